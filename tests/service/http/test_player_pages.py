"""The players' pages (issue 49) as the server hands them: ``/account``, a profile at
``/players/<name>`` and ``/leaderboards``, each with its scripts; every module a page
imports is a shipped file (a typo would be a page that never starts). What they do in
a browser: tests/e2e/test_player_pages_browser.py."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from tests.service.api_helpers import ApiClient

BOARD_FILES = resources.files("service.http").joinpath("static/board")
IMPORTED = re.compile(r'from "/board/([\w./-]+)"')


@pytest.mark.parametrize(
    ("path", "script"),
    [
        ("/account", "account.js"),
        ("/play", "play.js"),
        ("/players/Ada", "player.js"),
        ("/players/bot-medium", "player.js"),
        ("/leaderboards", "leaderboards.js"),
    ],
)
def test_each_players_page_is_served_with_its_script(
    api: ApiClient, path: str, script: str
) -> None:
    response = api.client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert f'src="/board/{script}"'.encode() in response.data
    assert b'href="/board/pages.css"' in response.data


@pytest.mark.parametrize("name", ["a", "-Ada", "Ada%20Lovelace", "x" * 40])
def test_a_name_no_account_could_have_is_a_problem_not_a_page(api: ApiClient, name: str) -> None:
    response = api.client.get(f"/players/{name}")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "player_not_found"


def test_every_module_a_page_imports_is_served(api: ApiClient) -> None:
    scripts = [e.name for e in BOARD_FILES.iterdir() if e.is_file() and e.name.endswith(".js")]
    imported = {name for script in scripts for name in IMPORTED.findall(_text(script))} | {
        "signin.js",
        "gamelist.js",
        "finished.js",
        "pages.css",
    }
    for name in sorted(imported):
        assert api.client.get(f"/board/{name}").status_code == 200, name


def _text(name: str) -> str:
    return BOARD_FILES.joinpath(name).read_text("utf-8")
