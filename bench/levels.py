"""Bot levels: how long each level thinks, per decision and per turn of its own.

Prints one JSON object. Each game seats the level against two ``easy``
(heuristic) bots in 3-player classic, seeds ``levels-<level>-<n>``:

    nice .venv/bin/python bench/levels.py [--games 1] [--levels easy,medium,hard]

Per level: decisions timed, their p50/p99/max in ms, the think time of each
of its turns (every decision of that turn summed: a turn of many attacks
makes many searched decisions) p50/p99 in s, and the games it won.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Sequence
from typing import Any

from riskcore.bots.base import Bot
from riskcore.bots.levels import LEVELS, bot_for
from riskcore.engine.legal import Action
from riskcore.simulate import play_game
from riskcore.views.seatview import SeatView


class Timed:
    """A bot whose every decision is timed, and summed per turn."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name, self.version = bot, bot.name, bot.version
        self.decisions: list[float] = []
        self.turns: dict[tuple[int, int], float] = {}
        self.game = 0

    def choose(self, view: SeatView, actions: Sequence[Action], rng: random.Random) -> Any:
        started = time.perf_counter()
        body = self.bot.choose(view, actions, rng)
        spent = time.perf_counter() - started
        self.decisions.append(spent)
        if view.turn > 0:  # setup is not a turn
            key = (self.game, view.turn)
            self.turns[key] = self.turns.get(key, 0.0) + spent
        return body


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def measure(level: str, games: int) -> dict[str, Any]:
    timed = Timed(bot_for(None, level))
    won = 0
    for n in range(games):
        timed.game = n
        seats = [timed, bot_for(None, "easy"), bot_for(None, "easy")]
        result = play_game(seats, seed=f"levels-{level}-{n}".encode(), game_id=f"lv{n}")
        won += result.winner == "p1"
    turns = list(timed.turns.values())
    return {
        "decisions": len(timed.decisions),
        "decision_ms": {
            "p50": round(quantile(timed.decisions, 0.5) * 1000, 1),
            "p99": round(quantile(timed.decisions, 0.99) * 1000, 1),
            "max": round(max(timed.decisions) * 1000, 1),
        },
        "turn_s": {"p50": round(quantile(turns, 0.5), 3), "p99": round(quantile(turns, 0.99), 3)},
        "games": games,
        "won": won,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args()
    levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    report = {level: measure(level, args.games) for level in levels}
    print(json.dumps({"python": platform.python_version(), "levels": report}, indent=2))


if __name__ == "__main__":
    main()
