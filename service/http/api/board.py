"""The web board: the lobby at ``/``, a game's page at ``/games/<id>``, and their files;
the players' pages (issue 49): ``/account`` (sign in with an account token, play a bot,
your games), ``/play`` (quick pairing, challenges by link), ``/players/<name>`` (a
profile) and ``/leaderboards``.

The pages are plain HTML, CSS and JavaScript modules under
``service/http/static/board`` (no build step, nothing from a CDN: the machines
that run this may have no internet). They hold no rules: they draw what
the API's views say and offer exactly ``/legal-actions``. What the lobby's
form needs to know and the API does not list (modes, bots, rule options
with their choices) is served once as ``/board/meta.json``, read from the
engine, so the form grows with it.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from flask import Blueprint, Response

from riskcore.bots import bot_names
from riskcore.bots.levels import LEVELS
from riskcore.model.options import OPTIONS
from riskcore.modes import BUILT_IN_MODES, mode_named
from service.application.accounts import NAME
from service.http.api.common import game_id, reply
from service.http.problems import ApiProblem

bp = Blueprint("board", __name__)
_FILES = resources.files("service.http").joinpath("static/board")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
_CACHE = {"Cache-Control": "no-cache"}  # revalidated, so a new release shows at once


@bp.get("/")
def lobby_page() -> Response:
    return _page("lobby.html")


@bp.get("/games/<game>")
def game_page(game: str) -> Response:
    game_id(game)  # a malformed id is a 404 here, not a page that fails later
    return _page("game.html")


@bp.get("/account")
def account_page() -> Response:
    """Signing in happens in the page: the token never comes to this URL."""
    return _page("account.html")


@bp.get("/play")
def play_page() -> Response:
    """Quick pairing and challenges by link; a challenge's link is this page with the
    challenge's id in the fragment, which the browser never sends here."""
    return _page("play.html")


@bp.get("/players/<name>")
def player_page(name: str) -> Response:
    if not NAME.fullmatch(name):  # no account could have it: a 404, not a page that fails later
        raise ApiProblem(404, "player_not_found", f"no player named {name[:40]!r}")
    return _page("player.html")


@bp.get("/leaderboards")
def leaderboards_page() -> Response:
    return _page("leaderboards.html")


@bp.get("/board/<path:name>")
def board_file(name: str) -> Response:
    """A file of the board; only names of the shipped files, so nothing else is reachable."""
    if name not in _shipped():
        raise ApiProblem(404, "not_found", f"no board file {name[:80]!r}")
    suffix = name[name.rfind(".") :]
    data = _FILES.joinpath(name).read_bytes()  # small files: no file handle outlives the request
    return Response(data, mimetype=_TYPES[suffix], headers=_CACHE)


@bp.get("/board/meta.json")
def board_meta() -> Response:
    return reply(_meta(), headers={"Cache-Control": "public, max-age=60"})


def _page(name: str) -> Response:
    html = _FILES.joinpath(name).read_text("utf-8")
    return Response(html, mimetype="text/html", headers=_CACHE)


@cache
def _shipped() -> frozenset[str]:
    names: set[str] = set()
    for entry in _FILES.iterdir():
        if entry.is_file() and entry.name.rsplit(".", 1)[-1] in ("js", "css", "json"):
            names.add(entry.name)
        elif entry.is_dir():
            names.update(f"{entry.name}/{f.name}" for f in entry.iterdir() if f.is_file())
    return frozenset(names)


@cache
def _meta() -> dict[str, Any]:
    return {
        "modes": list(BUILT_IN_MODES),
        "players": {name: list(mode_named(name).players) for name in BUILT_IN_MODES},
        "bots": list(bot_names()),
        "levels": [level.public() | {"summary": level.summary} for level in LEVELS.values()],
        "rules": [
            {
                "name": o.name,
                "default": o.default,
                "choices": list(o.choices) if o.choices is not None else None,
                "bounds": list(o.bounds) if o.bounds is not None else None,
                "summary": o.summary,
            }
            for o in OPTIONS
        ],
    }
