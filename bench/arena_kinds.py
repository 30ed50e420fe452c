"""Domination's arena with seat kinds of your own: a bot and its options, by name.

The arena (docs/bots.md, "Against Domination's AI"; not part of the project)
knows our bots and levels by name. A lever measured there is a bot with
other options, so this declares such kinds and then runs the arena's own
command line with them::

    RISK_DOM_ARENA=/path/to/dom_arena.py nice -n 10 .venv/bin/python bench/arena_kinds.py \\
        --kind 'ct={"bot": "strong", "options": {"turn_ms": 250, "turn_rollouts": 200,
                    "clock": "cpu", "trades": false, "confidence": 1}}' \\
        -- --lineup 'ct,DomHard*3' --games 400 --seed 1 --out /tmp/ct.json

A kind is ``NAME=JSON`` with ``bot`` (a bot name), ``options`` (its bot
options, as ``get_bot`` takes them), for the strong bot ``search``
(``strong.SearchConfig`` fields that are no bot option, e.g. ``place_share``)
and, for the heuristic, ``params`` (``heuristic.Params`` fields by name, each
lever of docs/bots.md's tables).
Everything after ``--`` goes to the arena unchanged; game *i* of every
kind has the same seed, seats and dice, so two runs pair game by game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import fields, replace
from typing import Any

from riskcore.bots import get_bot
from riskcore.bots.base import Bot
from riskcore.bots.heuristic import HeuristicBot, Params
from riskcore.bots.levels import LEVELS, Level
from riskcore.bots.strong import SearchConfig, StrongBot

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from win_data import load_arena  # bench/ is no package: imported from its folder


def kind_bot(spec: dict[str, Any]) -> Bot:
    """A bot as a kind declares it."""
    name = spec.get("bot", "heuristic")
    params = spec.get("params")
    if params is None:
        bot = get_bot(name, spec.get("options"))
        search = spec.get("search")
        if search:  # the strong bot's SearchConfig fields that are no bot option
            if not isinstance(bot, StrongBot):
                raise SystemExit("search is the strong bot's; give it with bot strong")
            known = {f.name for f in fields(SearchConfig)}
            if set(search) - known:
                raise SystemExit(f"not a search setting: {sorted(set(search) - known)}")
            bot.config = replace(bot.config, **search)
        return bot
    if name != "heuristic" or spec.get("options"):
        raise SystemExit("params are the heuristic's; give them without options")
    known = {f.name for f in fields(Params)}
    unknown = set(params) - known
    if unknown:
        raise SystemExit(f"not a heuristic parameter: {sorted(unknown)}")
    return HeuristicBot(Params(**params))


def parse_kinds(texts: list[str]) -> dict[str, dict[str, Any]]:
    kinds = {}
    for text in texts:
        name, _, spec = text.partition("=")
        if not name or not spec:
            raise SystemExit(f"--kind takes NAME=JSON: {text!r}")
        kinds[name] = json.loads(spec)
        kind_bot(kinds[name])  # fail now, not in the first game
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domination", default=os.environ.get("RISK_DOM_ARENA"))
    parser.add_argument("--kind", action="append", default=[], help="NAME=JSON (repeatable)")
    parser.add_argument("arena", nargs=argparse.REMAINDER, help="-- then the arena's arguments")
    args = parser.parse_args()
    if not args.domination:
        parser.error("no arena: give --domination PATH or set RISK_DOM_ARENA")
    kinds = parse_kinds(args.kind)
    arena = load_arena(args.domination)
    arena.LEVELS = dict(LEVELS) | {
        name: Level(name, spec.get("bot", "heuristic")) for name, spec in kinds.items()
    }
    declared = arena.BotSeat.__init__

    def seat_init(seat: Any, match: Any, where: str, kind: str) -> None:
        declared(seat, match, where, "heuristic" if kind in kinds else kind)
        seat.kind = kind
        if kind in kinds:
            seat.bot = kind_bot(kinds[kind])

    arena.BotSeat.__init__ = seat_init
    rest = args.arena[1:] if args.arena[:1] == ["--"] else args.arena
    sys.argv = [args.domination, *rest]
    arena.main()


if __name__ == "__main__":
    main()
