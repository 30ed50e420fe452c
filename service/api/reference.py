"""Reference data that needs no game: battle odds and boards."""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Response

from riskcore.boards.board import board_names, load_board
from riskcore.rules.odds import attack_outcome, to_json
from service.api.common import query, reply
from service.problems import ApiProblem
from service.schemas import OddsQuery

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
