"""Territory shapes for the web board, computed once and committed as data.

No map art ships with the project, so the board page draws shapes made here
from the facts it has: the board (``riskcore/boards/maps/NAME.json``: who
borders whom, and how) and where each territory's point lies
(``service/http/static/board/layouts/NAME.json``). Each territory is the Voronoi
cell of its point, clipped to its continent's land: discs round the points
joined by strips along the continent's land borders, smoothed, and kept a
sea's width apart from the other continents. Whatever the shapes cannot show
(a sea lane, a land border across a continent's coast, a harbour's route)
becomes a link drawn over the sea; a bridge becomes a mark on the edge it
crosses; an edge between territories that do not border each other is drawn
as impassable.

    python scripts/board_shapes.py            # writes service/http/static/board/shapes/*.json
    python scripts/board_shapes.py --check    # exits 1 when the committed data is stale
    python scripts/board_shapes.py --fit NAME # adds layout seeds where borders do not meet

Needs shapely (the ``dev`` extra); the page and the tests read only the JSON.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shapely import coverage_simplify
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, polylabel, substring, unary_union, voronoi_diagram

ROOT = Path(__file__).resolve().parents[1]
MAPS = ROOT / "riskcore" / "boards" / "maps"
LAYOUTS = ROOT / "service" / "http" / "static" / "board" / "layouts"
OUT = ROOT / "service" / "http" / "static" / "board" / "shapes"
TOUCH = 3.0  # px of common edge that counts as two shapes sharing a border


@dataclass(frozen=True)
class Land:
    """How a board's land is grown from its points (px on the layout's canvas)."""

    radius: float  # of the disc round each point
    strip: float  # half-width of the strip along a land border inside a continent
    smooth: float  # closing radius that rounds the coasts
    gap: float  # sea between two continents
    margin: float  # sea kept along the canvas's edges
    joined: bool = False  # one landmass whose regions touch (Middle-earth), not continents


LANDS = {
    "classic": Land(radius=46, strip=30, smooth=22, gap=14, margin=8),
    "middle_earth": Land(radius=70, strip=40, smooth=40, gap=0, margin=10, joined=True),
}
DEFAULT_LAND = Land(radius=46, strip=30, smooth=22, gap=12, margin=8)


def load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    board = json.loads((MAPS / f"{name}.json").read_text())
    layout = json.loads((LAYOUTS / f"{name}.json").read_text())
    return board, layout


def shapes(board: dict[str, Any], layout: dict[str, Any]) -> dict[str, Any]:
    """The committed data: a path per territory and continent, links, marks, labels."""
    land = LANDS.get(board["name"], DEFAULT_LAND)
    width, height = layout["width"], layout["height"]
    points = {t: Point(xy) for t, xy in layout["territories"].items()}
    seeds = _seeds(layout)
    group_of = {t["id"]: t["group"] for t in board["territories"]}
    frame = box(land.margin, land.margin, width - land.margin, height - land.margin)
    cells = _cells(seeds, box(-width, -height, 2 * width, 2 * height))
    masks = {g["id"]: _mask(g, board, seeds, land).intersection(frame) for g in board["groups"]}
    if land.joined:
        whole = _filled(unary_union(list(masks.values())).buffer(land.smooth).buffer(-land.smooth))
        masks = {g: whole for g in masks}
    areas = {t: cells[t].intersection(masks[group_of[t]]) for t in points}
    continents = {
        g["id"]: unary_union([areas[t] for t in g["territories"]]).buffer(-land.gap / 2)
        for g in board["groups"]
    }
    pieces = {t: areas[t].intersection(continents[group_of[t]]) for t in points}
    pieces = _straits(board, pieces, group_of, land)
    pieces = _one_piece_each(pieces, points, group_of)
    pieces = _simplified(pieces)
    outlines = {g: unary_union([pieces[t] for t in ts["territories"]]) for g, ts in _groups(board)}
    badges = {t: _badge(pieces[t], points[t]) for t in points}
    edges, links = _borders(board, pieces, (width, height), land.margin)
    return {
        "board": board["name"],
        "width": width,
        "height": height,
        "note": "made by scripts/board_shapes.py from the board and its layout; do not edit",
        "territories": {
            t: {"path": _path(pieces[t]), "badge": _xy(badges[t])} for t in layout["territories"]
        },
        "groups": {
            g: {
                "path": _path(outlines[g]),
                "label": _xy(_group_label(data, outlines, badges, board, (width, height))),
            }
            for g, data in _groups(board)
        },
        "edges": edges,
        "links": links,
        "barriers": _barriers(board, pieces),
    }


def _groups(board: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(g["id"], g) for g in board["groups"]]


def _seeds(layout: dict[str, Any]) -> list[tuple[str, Point]]:
    """The territories' points and the layout's extra ``seeds``: a territory with more than
    one grows a longer shape (Forodwaith along the north, Siberia down to China)."""
    seeds = [(t, Point(xy)) for t, xy in layout["territories"].items()]
    for t, extra in layout.get("seeds", {}).items():
        seeds.extend((t, Point(xy)) for xy in extra)
    return seeds


def _cells(seeds: list[tuple[str, Point]], envelope: Polygon) -> dict[str, BaseGeometry]:
    """Each territory's Voronoi cells as one shape (shapely returns the cells unordered:
    each is matched to the seed it contains)."""
    diagram = voronoi_diagram(MultiPoint([p for _, p in seeds]), envelope=envelope)
    parts: dict[str, list[BaseGeometry]] = {}
    for cell in diagram.geoms:
        owner = next(t for t, p in seeds if cell.contains(p))
        parts.setdefault(owner, []).append(cell)
    return {t: unary_union(cells) for t, cells in parts.items()}


def _straits(
    board: dict[str, Any], pieces: dict[str, BaseGeometry], group_of: dict[str, str], land: Land
) -> dict[str, BaseGeometry]:
    """Two territories of a continent that border by sea only get a strait between them."""
    cut = dict(pieces)
    for a, b, kind in board["borders"]:
        if kind == "sea" and group_of[a] == group_of[b]:
            strait = _common(cut[a], cut[b]).buffer(max(land.gap, 10) / 2, quad_segs=4)
            cut[a], cut[b] = cut[a].difference(strait), cut[b].difference(strait)
    return cut


def _mask(
    group: dict[str, Any], board: dict[str, Any], seeds: list[tuple[str, Point]], land: Land
) -> Any:
    """A continent's land: a disc per seed and a strip per land border inside it, lakes filled.

    Sea borders inside a continent grow no strip, so islands stay islands.
    """
    members = set(group["territories"])
    by_land = {(a, b) for a, b, kind in board["borders"] if kind != "sea"}
    islands = {
        t for t in members if not any(t in pair and set(pair) <= members for pair in by_land)
    }
    points = dict(seeds[::-1])  # each territory's first seed
    masses = []
    for part in [members - islands, *({t} for t in islands)]:
        discs = [p.buffer(land.radius, quad_segs=8) for t, p in seeds if t in part]
        strips = [
            LineString([points[a], points[b]]).buffer(land.strip, quad_segs=4)
            for a, b in by_land
            if a in part and b in part
        ]
        masses.append(unary_union(discs + strips).buffer(land.smooth).buffer(-land.smooth))
    return _filled(unary_union(masses))


def _filled(shape: BaseGeometry) -> BaseGeometry:
    """The shape without lakes."""
    shells = list(shape.geoms) if isinstance(shape, MultiPolygon) else [shape]
    return unary_union([Polygon(s.exterior) for s in shells if not s.is_empty])


def _one_piece_each(
    pieces: dict[str, BaseGeometry], points: dict[str, Point], group_of: dict[str, str]
) -> dict[str, Polygon]:
    """A territory is one polygon: stray bits of a cell go to the neighbour they touch most."""
    kept: dict[str, Polygon] = {}
    strays: list[tuple[str, Polygon]] = []
    for t, shape in pieces.items():
        parts = list(shape.geoms) if isinstance(shape, MultiPolygon) else [shape]
        parts = [p for p in parts if isinstance(p, Polygon) and not p.is_empty]
        home = max(parts, key=lambda p: (p.contains(points[t]), p.area))
        kept[t] = home
        strays.extend((t, p) for p in parts if p is not home and p.area > 1)
    for t, stray in strays:
        near = [u for u in kept if u != t and group_of[u] == group_of[t]]
        best = max(near, key=lambda u: stray.buffer(0.5).intersection(kept[u]).area)
        if stray.buffer(0.5).intersects(kept[best]):
            merged = unary_union([kept[best], stray])
            if isinstance(merged, Polygon):
                kept[best] = merged
    return kept


def _simplified(pieces: dict[str, Polygon]) -> dict[str, Polygon]:
    """Fewer points, the shared edges kept shared (a coverage is simplified as one)."""
    names = list(pieces)
    simple = coverage_simplify([pieces[t] for t in names], 0.8)
    return {t: shape for t, shape in zip(names, simple, strict=True)}


def _badge(shape: Polygon, point: Point) -> Point:
    """Where the army badge sits: the territory's point if well inside, else its deepest spot."""
    deepest = polylabel(shape, tolerance=1.0)
    inside = shape.exterior.distance(point) if shape.contains(point) else 0.0
    return point if inside >= 0.7 * shape.exterior.distance(deepest) else deepest


def _group_label(
    group: dict[str, Any],
    outlines: dict[str, BaseGeometry],
    badges: dict[str, Point],
    board: dict[str, Any],
    size: tuple[float, float],
) -> Point:
    """Where the continent's name and bonus go: on or by its land, clear of every badge and
    territory name (drawn under its badge) as far as the land allows."""
    outline = outlines[group["id"]]
    names = {t["id"]: t["name"] for t in board["territories"]}
    blocks = [box(b.x - 14, b.y - 14, b.x + 14, b.y + 14) for b in badges.values()]
    blocks += [_text_box(Point(b.x, b.y + 24), names[t], 5.2, 11) for t, b in badges.items()]
    others = unary_union([o for g, o in outlines.items() if g != group["id"]]).buffer(8)
    text = f"{group['name']} +{group['bonus']}"
    minx, miny, maxx, maxy = outline.buffer(20).bounds
    best, score = outline.centroid, -1e9
    for i in range(49):
        for j in range(37):
            spot = Point(minx + (maxx - minx) * i / 48, miny + (maxy - miny) * j / 36)
            label = _text_box(spot, text, 8.2, 16)
            inside = label.within(box(4, 4, size[0] - 4, size[1] - 4))
            if not inside or others.intersects(label) or outline.distance(spot) > 18:
                continue
            clear = min(label.distance(b) for b in blocks) - 0.02 * spot.distance(outline.centroid)
            if clear > score:
                best, score = spot, clear
    return best


def _text_box(centre: Point, text: str, per_char: float, height: float) -> Polygon:
    half = len(text) * per_char / 2
    return box(centre.x - half, centre.y - height / 2, centre.x + half, centre.y + height / 2)


def _borders(
    board: dict[str, Any], pieces: dict[str, Polygon], size: tuple[float, float], margin: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each border as a shared edge (with its kind) or, where the shapes do not meet, a link."""
    edges, links = [], []
    for a, b, kind in board["borders"]:
        common = _common(pieces[a], pieces[b])
        if common.length >= TOUCH:
            middle = common.interpolate(0.5, normalized=True)
            edges.append(
                {
                    "a": a,
                    "b": b,
                    "kind": kind,
                    "at": _xy(middle),
                    "along": _direction(common, middle),
                }
            )
        elif kind == "harbour":
            path = _sea_route(a, b, pieces, size, margin) or _link(pieces[a], pieces[b], kind, size)
            links.append({"a": a, "b": b, "kind": kind, "path": path})
        else:
            links.append(
                {"a": a, "b": b, "kind": kind, "path": _link(pieces[a], pieces[b], kind, size)}
            )
    return edges, links


def _sea_route(
    a: str, b: str, pieces: dict[str, Polygon], size: tuple[float, float], margin: float
) -> str | None:
    """A ship's way between two harbours: out to the sea along the canvas's edge, round
    the coast the shorter way, and in; None where leaving a harbour would cross land."""
    ring = box(margin / 2, margin / 2, size[0] - margin / 2, size[1] - margin / 2).exterior
    others = unary_union([p for t, p in pieces.items() if t not in (a, b)])
    land = unary_union(list(pieces.values())).buffer(-0.5)
    ends = []
    for harbour, other in ((pieces[a], pieces[b]), (pieces[b], pieces[a])):
        coastline = harbour.boundary.difference(others.buffer(0.5))  # not shared with land
        if coastline.is_empty:
            return None
        ways = [
            (coast, exit)
            for coast in map(Point, _coords(coastline))
            for exit in _exits(coast, ring, margin, size)
            if LineString([coast, exit]).intersection(land).length <= 1
        ]
        if not ways:
            return None
        coast, exit = min(ways, key=lambda w: w[0].distance(w[1]) + 0.25 * w[0].distance(other))
        ends.append((coast, exit, ring.project(exit)))
    (start, first, at_a), (end, last, at_b) = ends
    low, high = sorted((at_a, at_b))
    one_way = substring(ring, low, high)
    the_other = LineString(
        [*substring(ring, high, ring.length).coords, *list(substring(ring, 0, low).coords)[1:]]
    )
    along = min((one_way, the_other), key=lambda line: line.length)
    points = list(along.coords)
    if Point(points[0]).distance(ring.interpolate(at_a)) > 1:
        points.reverse()
    route = [(start.x, start.y), (first.x, first.y), *points, (last.x, last.y), (end.x, end.y)]
    route = [xy for i, xy in enumerate(route) if i == 0 or math.dist(xy, route[i - 1]) > 0.05]
    return "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in route)


def _barriers(board: dict[str, Any], pieces: dict[str, Polygon]) -> list[dict[str, Any]]:
    """Edges two shapes share although the board gives them no border: no passage there."""
    bordering = {frozenset((a, b)) for a, b, _ in board["borders"]}
    names = sorted(pieces)
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if frozenset((a, b)) in bordering or not pieces[a].buffer(0.5).intersects(pieces[b]):
                continue
            common = _common(pieces[a], pieces[b])
            if common.length >= TOUCH:
                found.append({"a": a, "b": b, "path": _line_path(common)})
    return found


def _common(a: Polygon, b: Polygon) -> Any:
    return a.boundary.intersection(b.buffer(0.25))


def _direction(line: Any, middle: Point) -> list[float]:
    """A unit vector along the edge at its middle (a bridge is drawn across it)."""
    start = line.interpolate(max(0.0, line.project(middle) - 2))
    end = line.interpolate(min(line.length, line.project(middle) + 2))
    dx, dy = end.x - start.x, end.y - start.y
    size = (dx * dx + dy * dy) ** 0.5 or 1.0
    return [round(dx / size, 3), round(dy / size, 3)]


def _link(a: Polygon, b: Polygon, kind: str, size: tuple[float, float]) -> str:
    """A line over the sea between two coasts; one that is shorter round the world
    (Alaska–Kamchatka) runs off both edges of the canvas instead."""
    width = size[0]
    ca, cb = a.centroid, b.centroid
    if kind == "sea" and abs(ca.x - cb.x) > width * 0.6:
        west, east = (a, b) if ca.x < cb.x else (b, a)
        wx, wy = west.bounds[0], west.centroid.y
        ex, ey = east.bounds[2], east.centroid.y
        return f"M{wx:.1f},{wy:.1f} L0,{wy:.1f} M{ex:.1f},{ey:.1f} L{width},{ey:.1f}"
    pa, pb = nearest_points(a, b)
    # from a little inside each coast, so the line is seen to reach the land
    inner_a = _towards(pa, a.centroid, 6)
    inner_b = _towards(pb, b.centroid, 6)
    return f"M{inner_a[0]:.1f},{inner_a[1]:.1f} L{inner_b[0]:.1f},{inner_b[1]:.1f}"


def _exits(p: Point, ring: Any, margin: float, size: tuple[float, float]) -> list[Point]:
    """Where a ship leaving ``p`` meets the sea round the canvas: straight out each way."""
    low, high = margin / 2, (size[0] - margin / 2, size[1] - margin / 2)
    straight = [Point(low, p.y), Point(high[0], p.y), Point(p.x, low), Point(p.x, high[1])]
    return [ring.interpolate(ring.project(p)), *straight]


def _coords(line: Any) -> list[tuple[float, float]]:
    parts = list(line.geoms) if hasattr(line, "geoms") else [line]
    return [xy for part in parts for xy in part.coords]


def _towards(p: Point, q: Point, step: float) -> tuple[float, float]:
    dx, dy = q.x - p.x, q.y - p.y
    size = (dx * dx + dy * dy) ** 0.5 or 1.0
    return (p.x + dx / size * step, p.y + dy / size * step)


def _xy(p: Point) -> list[float]:
    return [round(p.x, 1), round(p.y, 1)]


def _ring(coords: Any) -> str:
    xy = [f"{x:.1f},{y:.1f}" for x, y in list(coords)[:-1]]
    return "M" + " L".join(xy) + " Z"


def _path(shape: BaseGeometry) -> str:
    polygons = list(shape.geoms) if isinstance(shape, MultiPolygon) else [shape]
    rings = []
    for polygon in polygons:
        rings.append(_ring(polygon.exterior.coords))
        rings.extend(_ring(hole.coords) for hole in polygon.interiors)
    return " ".join(rings)


def _line_path(line: Any) -> str:
    lines = list(line.geoms) if hasattr(line, "geoms") else [line]
    parts = []
    for piece in lines:
        coords = list(piece.coords)
        if len(coords) >= 2:
            parts.append("M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in coords))
    return " ".join(parts)


def missing(board: dict[str, Any], layout: dict[str, Any]) -> list[tuple[str, str]]:
    """Land borders the shapes do not show as an edge (drawn as lines instead)."""
    land = LANDS.get(board["name"], DEFAULT_LAND)
    group = {t["id"]: t["group"] for t in board["territories"]}
    return [
        (link["a"], link["b"])
        for link in shapes(board, layout)["links"]
        if link["kind"] not in ("sea", "harbour")
        and (land.joined or group[link["a"]] == group[link["b"]])
    ]


def fit(board: dict[str, Any], layout: dict[str, Any]) -> dict[str, Any]:
    """The layout with seeds added, greedily, where a land border is missing: a seed for
    each side on the line between their points, kept only if fewer borders are missing."""
    layout = copy.deepcopy(layout)
    gaps = missing(board, layout)
    for a, b in list(gaps):
        if (a, b) not in gaps:
            continue
        pa, pb = layout["territories"][a], layout["territories"][b]
        for near, far in ((0.4, 0.6), (0.3, 0.7), (0.45, 0.55)):
            trial = copy.deepcopy(layout)
            seeds = trial.setdefault("seeds", {})
            seeds.setdefault(a, []).append(_between(pa, pb, near))
            seeds.setdefault(b, []).append(_between(pa, pb, far))
            after = missing(board, trial)
            if len(after) < len(gaps):
                layout, gaps = trial, after
                break
    return layout


def _between(p: list[float], q: list[float], share: float) -> list[int]:
    return [round(p[0] + (q[0] - p[0]) * share), round(p[1] + (q[1] - p[1]) * share)]


def written(name: str) -> str:
    board, layout = load(name)
    return json.dumps(shapes(board, layout), indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed data is stale")
    parser.add_argument("--fit", action="store_true", help="add layout seeds, then write")
    parser.add_argument("boards", nargs="*", default=sorted(p.stem for p in LAYOUTS.glob("*.json")))
    args = parser.parse_args(argv)
    stale = []
    OUT.mkdir(exist_ok=True)
    for name in args.boards:
        if args.fit:
            board, layout = load(name)
            fitted = fit(board, layout)
            (LAYOUTS / f"{name}.json").write_text(json.dumps(fitted, indent=1) + "\n")
            print(f"{name}: {len(missing(board, fitted))} land borders drawn as lines")
        text = written(name)
        target = OUT / f"{name}.json"
        if args.check:
            if not target.exists() or target.read_text() != text:
                stale.append(name)
            continue
        target.write_text(text)
        print(target.relative_to(ROOT))
    if stale:
        print(f"stale shapes: {', '.join(stale)} (run python scripts/board_shapes.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
