"""The levels' ladder (issue 52): one level alone against the level below, seats rotated.

Does ``hard`` beat ``medium`` and ``medium`` beat ``easy`` head to head? For a
game mode, each pairing seats its upper level alone against ``players - 1``
of its lower level; game *i* plays seed ``ladder-<mode>-<i // players>``
(``--seed`` names another prefix than ``ladder``) with the lone seat in
seat ``i % players`` (p1, p2, ...), so every seed is played
from every seat (paired: the same deals and dice streams for every seat
order, and the same seeds for every pairing). In the team game the upper
level plays a whole team (both its seats) against a team of the lower
level, the teams swapped every other game (an equal share is a half)::

    nice -n 10 .venv/bin/python bench/ladder.py classic --games 60
    nice -n 10 .venv/bin/python bench/ladder.py lotr --games 18 --pairings hard/medium
    nice -n 10 .venv/bin/python bench/ladder.py classic --games 60 --pairings h4/medium \\
        --kind 'h4={"bot": "strong", "options": {"turn_ms": 1000, "clock": "cpu"}}'

A pairing is ``UPPER/LOWER``: a level (``levels.LEVELS``) or a kind declared
with ``--kind NAME=JSON`` as ``arena_kinds.py`` declares them. ``--games`` is
rounded up to whole rotations; ``--seconds`` stops a pairing after the
rotation that passes it (the report says how many games it played).
``--workers`` (1 or 2) plays games in that many processes. The ``medium``
and ``hard`` levels think to a CPU budget, so their play depends on the
machine and two runs differ; the seeds keep the deals and dice the same.

Prints JSON: per pairing the lone seat's wins, the games, its share, the
equal share (1 / sides), the Wilson 95% interval of the share, the CPU
seconds a turn (p50, p99) of each side's own turns, and the wall seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from riskcore.bots.base import Bot
from riskcore.bots.levels import LEVELS, bot_for
from riskcore.engine.legal import Action
from riskcore.modes import mode_named
from riskcore.modes.team import TeamGame
from riskcore.simulate import play_game
from riskcore.views.seatview import SeatView

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arena_kinds import kind_bot, parse_kinds  # bench/ is no package: imported from its folder

DEFAULT_PAIRINGS = "medium/easy,hard/medium"


class Timed:
    """A bot whose own turns are timed on the thread's CPU clock (the budgets' clock)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name, self.version = bot, bot.name, bot.version
        self.turns: dict[int, float] = {}
        inner = getattr(bot, "choose_command", None)
        if inner is not None:
            self.choose_command = self._timed(inner)
        self.choose = self._timed(bot.choose)

    def _timed(self, chooser: Any) -> Any:
        def timed(view: SeatView, actions: Sequence[Action], rng: random.Random) -> Any:
            started = time.thread_time()
            chosen = chooser(view, actions, rng)
            if view.turn > 0 and view.current == view.seat:  # the setup is no turn
                spent = time.thread_time() - started
                self.turns[view.turn] = self.turns.get(view.turn, 0.0) + spent
            return chosen

        return timed


def make(name: str, kinds: dict[str, dict[str, Any]]) -> Bot:
    if name in kinds:
        return kind_bot(kinds[name])
    return bot_for(None, name)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95% at z 1.96)."""
    if games == 0:
        return 0.0, 1.0
    share = wins / games
    denominator = 1 + z * z / games
    centre = (share + z * z / (2 * games)) / denominator
    half = z * math.sqrt(share * (1 - share) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def sides_of(mode: str, players: int) -> int:
    """How many sides a game has: its teams in the team game, else its players."""
    return 2 if isinstance(mode_named(mode), TeamGame) else players


def play(job: tuple[str, int, str, str, int, dict[str, dict[str, Any]], str]) -> dict[str, Any]:
    """One game: ``upper`` on side ``game % sides`` (a seat, or a team's seats:
    seat *s* is on side ``s % sides``), ``lower`` on the others."""
    mode, players, upper, lower, game, kinds, label = job
    sides = sides_of(mode, players)
    lone = game % sides
    upper_seats = {seat for seat in range(players) if seat % sides == lone}
    names = [upper if seat in upper_seats else lower for seat in range(players)]
    bots = [Timed(make(name, kinds)) for name in names]
    seed = f"{label}-{mode}-{game // sides}".encode()
    result = play_game(bots, seed=seed, game_id=f"ladder-{game}", mode=mode)
    winners = set(result.winners) | ({result.winner} if result.winner else set())
    seats = [[name, f"p{seat + 1}" in winners] for seat, name in enumerate(names)]
    return {
        "won": any(won for seat, (_, won) in enumerate(seats) if seat in upper_seats),
        "drawn": not winners,
        "turns": result.turns,
        "seats": seats,  # [level, won] a seat, for ratings (bench/level_ratings.py)
        "upper": [t for i in sorted(upper_seats) for t in bots[i].turns.values()],
        "lower": [t for i, b in enumerate(bots) if i not in upper_seats for t in b.turns.values()],
    }


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def pairing(
    mode: str,
    players: int,
    upper: str,
    lower: str,
    games: int,
    kinds: dict[str, dict[str, Any]],
    workers: int,
    seconds: float | None,
    label: str = "ladder",
    keep: bool = False,
) -> dict[str, Any]:
    """The pairing's games and figures (``keep``: each game's seats too, as ``played``)."""
    started = time.monotonic()
    sides = sides_of(mode, players)
    results: list[dict[str, Any]] = []
    jobs = [(mode, players, upper, lower, game, kinds, label) for game in range(games)]
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        # A rotation at a time, so a stop at --seconds leaves whole rotations.
        for first in range(0, games, sides):
            rotation = jobs[first : first + sides]
            played = pool.map(play, rotation) if pool else map(play, rotation)
            results.extend(played)
            wins = sum(r["won"] for r in results)
            print(f"{upper}/{lower}: {wins} of {len(results)}", file=sys.stderr, flush=True)
            if seconds is not None and time.monotonic() - started > seconds:
                break
    finally:
        if pool is not None:
            pool.shutdown()
    wins = sum(r["won"] for r in results)
    played_games = len(results)
    low, high = wilson(wins, played_games)
    upper_turns = [t for r in results for t in r["upper"]]
    lower_turns = [t for r in results for t in r["lower"]]
    report = {
        "alone": upper if sides == players else f"a team of {players // sides} x {upper}",
        "against": f"{players - players // sides} x {lower}",
        "games": played_games,
        "wins": wins,
        "share": round(wins / played_games, 3) if played_games else None,
        "equal_share": round(1 / sides, 3),
        "wilson95": [round(low, 3), round(high, 3)],
        "drawn": sum(r["drawn"] for r in results),
        "turns_p50": quantile([r["turns"] for r in results], 0.5),
        "cpu_turn_s": {
            upper: {
                "p50": round(quantile(upper_turns, 0.5), 3),
                "p99": round(quantile(upper_turns, 0.99), 3),
            },
            lower: {
                "p50": round(quantile(lower_turns, 0.5), 3),
                "p99": round(quantile(lower_turns, 0.99), 3),
            },
        },
        "wall_s": round(time.monotonic() - started, 1),
    }
    if keep:
        report["played"] = [r["seats"] for r in results]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", default="classic", help="a game mode (default classic)")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=30, help="games per pairing")
    parser.add_argument("--pairings", default=DEFAULT_PAIRINGS, help="UPPER/LOWER, comma-separated")
    parser.add_argument("--kind", action="append", default=[], help="NAME=JSON (arena_kinds)")
    parser.add_argument("--workers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--seconds", type=float, default=None, help="stop a pairing after this")
    parser.add_argument("--seed", default="ladder", help="the seeds' prefix (other games)")
    args = parser.parse_args()
    kinds = parse_kinds(args.kind)
    mode = mode_named(args.mode)
    # 3 players where the mode takes them (issue 52's 3-player targets), else
    # its nearest: 2 in the two-player modes, 4 in the team game.
    low, high = mode.players
    players = args.players or min(max(3, low), high)
    mode.check_player_count(players)
    pairs = [p.strip().split("/") for p in args.pairings.split(",") if p.strip()]
    for pair in pairs:
        unknown = [n for n in pair if n not in LEVELS and n not in kinds]
        if len(pair) != 2 or unknown:
            parser.error(f"a pairing is UPPER/LOWER of levels or --kind names: {'/'.join(pair)}")
    sides = sides_of(args.mode, players)
    games = -(-args.games // sides) * sides  # whole rotations
    report = {
        "mode": args.mode,
        "players": players,
        "seed": args.seed,
        "python": platform.python_version(),
        "kinds": kinds,
        "pairings": [
            pairing(args.mode, players, a, b, games, kinds, args.workers, args.seconds, args.seed)
            for a, b in pairs
        ],
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
