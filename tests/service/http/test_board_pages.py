"""The web board's pages and files (issue 14): served by the app itself, nothing else reachable.

What the pages do in a browser is tested with Chromium in
``tests/e2e/test_board_browser.py``; these check what the server hands them.
"""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest

from riskcore.boards.board import board_names, load_board
from riskcore.bots import bot_names
from riskcore.engine.registry import mode_named
from riskcore.model.options import OPTIONS
from riskcore.modes import BUILT_IN_MODES
from tests.service.api_helpers import ApiClient

BOARD_FILES = resources.files("service.http").joinpath("static/board")


def test_the_lobby_is_the_front_page(api: ApiClient) -> None:
    response = api.client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert b'src="/board/lobby.js"' in response.data


def test_a_game_page_is_served_for_any_well_formed_id(api: ApiClient) -> None:
    response = api.client.get("/games/g0123456789abcdef")
    assert response.status_code == 200
    assert b'src="/board/game.js"' in response.data


def test_a_malformed_game_id_is_a_problem_not_a_page(api: ApiClient) -> None:
    response = api.client.get("/games/..%2Fetc")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    ("name", "mimetype"),
    [
        ("common.js", "text/javascript"),
        ("game.js", "text/javascript"),
        ("lobby.js", "text/javascript"),
        ("result.js", "text/javascript"),
        ("board.css", "text/css"),
        ("layouts/classic.json", "application/json"),
    ],
)
def test_board_files_are_served_with_their_type(api: ApiClient, name: str, mimetype: str) -> None:
    response = api.client.get(f"/board/{name}")
    assert response.status_code == 200
    assert response.mimetype == mimetype


@pytest.mark.parametrize("name", ["../app.py", "..%2Fapp.py", "layouts/../../app.py", "nope.js"])
def test_nothing_but_the_shipped_files_is_reachable(api: ApiClient, name: str) -> None:
    response = api.client.get(f"/board/{name}")
    assert response.status_code == 404


def test_the_pages_load_nothing_from_another_host() -> None:
    """Offline machines: every script, style and fetch is on the server itself."""
    for entry in BOARD_FILES.iterdir():
        if entry.is_file():
            text = entry.read_text("utf-8")
            assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), entry.name
            assert "https://" not in text, entry.name


def test_the_form_offers_what_the_engine_has(api: ApiClient) -> None:
    meta = api.client.get("/board/meta.json").get_json()
    assert meta["modes"] == list(BUILT_IN_MODES)
    assert meta["players"] == {m: list(mode_named(m).players) for m in BUILT_IN_MODES}
    assert meta["players"]["team"] == [4, 4] and meta["players"]["two_player"] == [2, 2]
    assert meta["bots"] == list(bot_names())
    assert [option["name"] for option in meta["rules"]] == [o.name for o in OPTIONS]
    for option in meta["rules"]:
        assert (option["choices"] is None) != (option["bounds"] is None)


@pytest.mark.parametrize("board", board_names())
def test_every_board_has_a_layout_that_keeps_territories_apart(board: str) -> None:
    """Each shipped board is drawn from coordinates of its own geography; a board
    added without them still draws (the page computes a layout), but ours have them."""
    layout = json.loads(BOARD_FILES.joinpath(f"layouts/{board}.json").read_text("utf-8"))
    points = layout["territories"]
    assert set(points) == set(load_board(board).territory_names)
    for x, y in points.values():
        assert 0 < x < layout["width"]
        assert 0 < y < layout["height"]
    names = sorted(points)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert math.dist(points[a], points[b]) >= 40, (a, b)
