"""Reference data that needs no game: battle odds, boards and modes."""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Response

from riskcore.boards.board import board_names, load_board
from riskcore.engine.decide import new_game
from riskcore.errors import RuleOptionError
from riskcore.model.options import OPTIONS
from riskcore.modes import BUILT_IN_MODES, mode_named
from riskcore.rules.odds import attack_outcome, to_json
from service.http.api.common import query, reply
from service.http.problems import ApiProblem
from service.http.schemas import OddsQuery

bp = Blueprint("reference", __name__, url_prefix="/v1")
_ODDS = OddsQuery()
# Boards and odds never change while the process runs: let clients cache them.
_CACHE = {"Cache-Control": "public, max-age=3600"}


@bp.get("/odds")
def get_odds() -> Response:
    """Exact odds that ``attackers`` armies (those able to attack) take the territory."""
    args = query(_ODDS)
    odds = attack_outcome(
        args["attackers"],
        args["defenders"],
        attacker_bonus=args["attacker_bonus"],
        defender_bonus=args["defender_bonus"],
        defender_one_die_vs_one=args["one_die_vs_one"],
    )
    return reply(to_json(odds), headers=_CACHE)


@bp.get("/maps")
def list_maps() -> Response:
    return reply({"maps": _maps()}, headers=_CACHE)


@cache
def _maps() -> list[dict[str, object]]:
    """The boards shipped with the engine: they cannot change while the process runs."""
    boards = [load_board(name) for name in board_names()]
    return [{"name": b.name, "title": b.title, "territories": len(b.territories)} for b in boards]


@bp.get("/maps/<name>")
def get_map(name: str) -> Response:
    if name not in board_names():  # checked before the name becomes a file name
        raise ApiProblem(404, "map_not_found", f"no map {name[:60]!r}; one of {board_names()}")
    return reply(load_board(name).to_dict(), headers=_CACHE)


@bp.get("/modes")
def list_modes() -> Response:
    """What a game of each mode is, as the engine declares it: for forms that must not
    offer what the engine refuses (the lobby reads this, not a list of its own)."""
    return reply(_modes(), headers=_CACHE)


@cache
def _modes() -> dict[str, object]:
    return {
        "modes": [_mode(name) for name in BUILT_IN_MODES],
        "options": [
            o.to_dict() | {"choices": _listed(o.choices), "bounds": _listed(o.bounds)}
            for o in OPTIONS
        ],
    }


def _listed(values: tuple[object, ...] | None) -> list[object] | None:
    return list(values) if values is not None else None


def _mode(name: str) -> dict[str, object]:
    """A mode: how it is won (in words, issue 53), its board, player counts, the options
    it reads with its own defaults, and the seats a game of each count gets (the
    neutrals and teams the mode adds)."""
    mode = mode_named(name)
    low, high = mode.players
    rules = mode.rule_set().to_dict()
    seats = {
        str(count): [
            {"kind": seat["kind"], "team": seat.get("team")}
            for seat in mode.seat_list(
                [f"player {i}" for i in range(1, count + 1)], mode.rule_set()
            )
        ]
        for count in range(low, high + 1)
    }
    return {
        "name": name,
        "title": mode.title,
        "win_condition": mode.win_condition,
        "board": mode.board,
        "boards": [board for board in board_names() if _plays_on(name, board, low)],
        "players": [low, high],
        "options": list(mode.reads_options()),
        "defaults": {option: rules[option] for option in mode.reads_options()},
        "seats": seats,
    }


def _plays_on(mode: str, board: str, players: int) -> bool:
    """Whether the engine opens a game of ``mode`` on ``board`` (it refuses a board the
    mode cannot be played on at creation, as the API would)."""
    try:
        new_game(
            game_id="modes",
            players=[f"player {i}" for i in range(1, players + 1)],
            seed=bytes(32),
            board=board,
            mode=mode,
        )
    except RuleOptionError:
        return False
    return True
