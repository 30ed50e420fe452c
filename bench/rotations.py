"""Our own bots against each other, each lineup's seats rotated: wins by kind.

docs/bots.md's checks among our bots (is a lever of the heuristic stronger
than the heuristic as it is, and does it hand a random bot games?) play a
lineup of kinds, seats rotated so that every kind sits in every seat as
often: game *i* plays the lineup rotated by *i* on seed ``rot{i // seats}``::

    .venv/bin/python bench/rotations.py --lineup 'new,new,random' --games 300
    .venv/bin/python bench/rotations.py --lineup 'new,old,old' --games 300 \\
        --kind 'old={"params": {"claim_clump": 0.04, "claim_contact": 0}}'

A kind is a bot name (``heuristic``, ``random``, …), ``new`` (the heuristic
as it is) or one declared with ``--kind NAME=JSON`` as ``arena_kinds.py``
declares them (``bot``, ``options``, the heuristic's ``params``). Prints
JSON: the games, each kind's wins and its seats a game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from riskcore.bots import get_bot
from riskcore.bots.base import Bot
from riskcore.simulate import play_game

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arena_kinds import kind_bot, parse_kinds  # bench/ is no package: imported from its folder


def make(kind: str, kinds: dict[str, dict[str, object]]) -> Bot:
    if kind in kinds:
        return kind_bot(kinds[kind])
    return get_bot("heuristic" if kind == "new" else kind)


def rotations(lineup: list[str], games: int, kinds: dict[str, dict[str, object]]) -> Counter[str]:
    """Wins by kind over ``games`` games, the lineup rotated one seat a game."""
    wins: Counter[str] = Counter()
    seats = len(lineup)
    for game in range(games):
        turn = game % seats
        seated = lineup[turn:] + lineup[:turn]
        seed = f"rot{game // seats}".encode()
        result = play_game([make(k, kinds) for k in seated], seed=seed, game_id="rot")
        if result.winner is not None:
            wins[seated[int(result.winner[1:]) - 1]] += 1
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lineup", required=True, help="kinds, comma-separated, one a seat")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--kind", action="append", default=[], help="NAME=JSON (arena_kinds)")
    args = parser.parse_args()
    kinds = parse_kinds(args.kind)
    lineup = args.lineup.split(",")
    wins = rotations(lineup, args.games, kinds)
    seats = Counter(lineup)
    report = {
        "lineup": lineup,
        "games": args.games,
        "wins": {kind: wins.get(kind, 0) for kind in seats},
        "seats": dict(seats),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
