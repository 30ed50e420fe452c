"""The territory shapes the web board draws (issue 33: "a board that looks like the game").

``service/http/static/board/shapes/NAME.json`` is made once by ``scripts/board_shapes.py``
from the board and its layout. These tests read the committed data with plain Python:
every territory has a shape, and every border of the board is seen on the map, either
as an edge the two shapes really share (checked on the paths' points) or as a drawn
link. With shapely installed (the ``dev`` extra) the data is also made again and
compared, so a board or layout changed without running the script fails here.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from riskcore.boards.board import board_names, load_board

SHAPES = resources.files("service.http").joinpath("static/board/shapes")
MAPS = resources.files("riskcore").joinpath("boards/maps")
Point = tuple[float, float]


def shapes_of(board: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SHAPES.joinpath(f"{board}.json").read_text("utf-8"))
    return data


def board_data(board: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MAPS.joinpath(f"{board}.json").read_text("utf-8"))
    return data


def rings(path: str) -> list[list[Point]]:
    """The closed rings of an SVG path made of M, L and Z."""
    found = []
    for part in re.findall(r"M[^MZ]*Z", path):
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", part)]
        found.append(list(zip(numbers[::2], numbers[1::2], strict=True)))
    return found


def to_segment(p: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = (
        0.0
        if dx == dy == 0
        else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    )
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def shared_length(a: str, b: str) -> float:
    """How long an edge two shapes share: the run of ``a``'s outline lying on ``b``'s."""
    outline_b = [(r[i], r[(i + 1) % len(r)]) for r in rings(b) for i in range(len(r))]
    on_b = lambda p: min(to_segment(p, s, e) for s, e in outline_b) <= 0.3  # noqa: E731
    total = 0.0
    for ring in rings(a):
        for i, p in enumerate(ring):
            q = ring[(i + 1) % len(ring)]
            middle = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
            if on_b(p) and on_b(q) and on_b(middle):
                total += math.dist(p, q)
    return total


@pytest.mark.parametrize("board", board_names())
def test_every_territory_and_continent_has_a_shape(board: str) -> None:
    shapes, data = shapes_of(board), board_data(board)
    assert set(shapes["territories"]) == {t["id"] for t in data["territories"]}
    assert set(shapes["groups"]) == {g["id"] for g in data["groups"]}
    for territory, shape in shapes["territories"].items():
        x, y = shape["badge"]
        assert 0 < x < shapes["width"] and 0 < y < shapes["height"], territory
        assert rings(shape["path"]), territory
    for group, shape in shapes["groups"].items():
        x, y = shape["label"]
        assert 0 < x < shapes["width"] and 0 < y < shapes["height"], group


@pytest.mark.parametrize("board", board_names())
def test_every_border_is_a_shared_edge_or_a_drawn_link(board: str) -> None:
    """A player reads the borders off the map: two territories that border each other
    touch along an edge, or a line (sea lane, harbour route) joins them; a bridge is an
    edge with its mark. Territories of a continent that border only by sea do not touch
    (a strait between them), and no edge is drawn between two that do not border."""
    shapes, data = shapes_of(board), board_data(board)
    group = {t["id"]: t["group"] for t in data["territories"]}
    paths = {t: s["path"] for t, s in shapes["territories"].items()}
    edges = {frozenset((e["a"], e["b"])): e["kind"] for e in shapes["edges"]}
    links = {frozenset((e["a"], e["b"])): e["kind"] for e in shapes["links"]}
    for a, b, kind in data["borders"]:
        pair = frozenset((a, b))
        assert (pair in edges) != (pair in links), (a, b)
        if pair in edges:
            assert edges[pair] == kind
            assert shared_length(paths[a], paths[b]) >= 2.0, (a, b)
        else:
            assert links[pair] == kind
            path = next(x["path"] for x in shapes["links"] if frozenset((x["a"], x["b"])) == pair)
            assert re.fullmatch(r"(M[-\d.]+,[-\d.]+( L[-\d.]+,[-\d.]+)+ ?)+", path), (a, b, path)
        if kind == "sea" and group[a] == group[b]:
            assert pair in links, f"{a} and {b} border by sea only, but their shapes touch"
    bordering = set(edges) | set(links)
    for barrier in shapes["barriers"]:
        assert frozenset((barrier["a"], barrier["b"])) not in bordering


@pytest.mark.parametrize("board", board_names())
def test_the_board_is_drawn_in_one_piece_per_continent_with_few_lines(board: str) -> None:
    """It looks like a map, not a graph: most borders are edges, few are lines."""
    shapes = shapes_of(board)
    land_links = [link for link in shapes["links"] if link["kind"] not in ("sea", "harbour")]
    assert len(shapes["edges"]) >= 3 * len(land_links)


def test_the_committed_shapes_are_those_the_script_makes() -> None:
    """Structure compared (who touches whom, where the badges are), not every float:
    another shapely may round a point differently."""
    pytest.importorskip("shapely", reason="the dev extra: pip install -e '.[dev]'")
    script = Path(__file__).resolve().parents[3] / "scripts" / "board_shapes.py"
    spec = importlib.util.spec_from_file_location("board_shapes", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    for board in board_names():
        made = json.loads(module.written(board))
        committed = shapes_of(board)
        for key in ("edges", "links", "barriers"):
            assert pairs(made[key]) == pairs(committed[key]), (board, key)
        for territory, shape in made["territories"].items():
            assert math.dist(shape["badge"], committed["territories"][territory]["badge"]) < 2


def pairs(found: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return sorted((e["a"], e["b"], e.get("kind")) for e in found)


@pytest.mark.parametrize("board", board_names())
def test_the_shapes_are_of_this_board(board: str) -> None:
    assert set(shapes_of(board)["territories"]) == set(load_board(board).territory_names)
