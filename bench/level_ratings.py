"""Each level's rating per mode on the server's own scale (issue 52): a seeded ladder, rated.

The server rates rated games with openskill (``service.application.player_ratings``,
one pool of humans and bot accounts per mode); a level plays as its bot account
(``bot-easy``, ``bot-medium``, ``bot-hard``). This plays, for each mode, the
ladder's pairings (``bench/ladder.py``: one level alone against the level
below, seats rotated, seeded) and rates every game with that same function
(``rate_finished_game``: the winners first, the others tied second; an account
in two seats of a game counts once), the pairings' games interleaved in their
schedule order, so "medium" is a number that means the same in every mode and
beside the players it meets on the server::

    nice -n 10 .venv/bin/python bench/level_ratings.py --modes classic,team --games 24
    nice -n 10 .venv/bin/python bench/level_ratings.py --games 12 --seconds 600 --workers 2

A mode plays 3 players where it takes them, else its nearest count (2 in the
two-player modes, 4 in the team game, where a level plays a whole team).
Prints JSON: per mode, each pairing's figures (as ``bench/ladder.py`` prints
them) and each level's rating: ``mu``, ``sigma``, the ordinal ``mu - 3 sigma``
that leaderboards sort by, its games, whether it is still provisional, and
``mu_other_orders``: its ``mu`` had the same games finished in other orders
(5th, 50th, 95th percentiles), since a rating rated game by game weighs the
last games most.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import sys
from collections.abc import Sequence
from typing import Any

from riskcore.engine.registry import mode_names
from riskcore.modes import mode_named
from service.application.player_ratings import RatedGame, rate_finished_game
from service.store.ratings import RatingRow

# bench/ is no package: the ladder is imported from its folder.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ladder import DEFAULT_PAIRINGS, pairing, quantile, sides_of


def players_for(mode: str) -> int:
    low, high = mode_named(mode).players
    return min(max(3, low), high)


Game = Sequence[Sequence[Any]]  # [level, won] a seat


def schedule_order(played: Sequence[Sequence[Game]]) -> list[Game]:
    """Each pairing's games (``played``), interleaved in their schedule order."""
    games = itertools.chain.from_iterable(itertools.zip_longest(*played))
    return [game for game in games if game is not None]


def rate(mode: str, games: Sequence[Game]) -> dict[str, RatingRow]:
    """The levels' ratings after ``games``, rated one after another as the server
    rates each finished rated game."""
    ratings: dict[str, RatingRow] = {}
    for number, seats in enumerate(games):
        rated = RatedGame(
            game_id=f"{mode}-{number}",
            mode=mode,
            finished_ms=number,
            seats=tuple((f"bot-{level}", bool(won)) for level, won in seats),
        )
        ratings.update(rate_finished_game(rated, ratings))
    return ratings


def mode_report(
    mode: str, pairs: list[tuple[str, str]], args: argparse.Namespace
) -> dict[str, Any]:
    players = players_for(mode)
    sides = sides_of(mode, players)
    games = -(-args.games // sides) * sides  # whole rotations
    reports = [
        pairing(mode, players, upper, lower, games, {}, args.workers, args.seconds, args.seed, True)
        for upper, lower in pairs
    ]
    games = schedule_order([report.pop("played") for report in reports])
    ratings = rate(mode, games)
    spread = order_spread(mode, games, args.orders)
    return {
        "players": players,
        "pairings": reports,
        "played": games,  # [level, won] a seat, a game, in the order rated
        "ratings": {
            account.removeprefix("bot-"): {
                "mu": round(row.mu, 2),
                "sigma": round(row.sigma, 2),
                "ordinal": round(row.ordinal, 2),
                "games": row.games,
                "provisional": row.provisional,
                "mu_other_orders": spread.get(account),
            }
            for account, row in sorted(ratings.items(), key=lambda item: -item[1].mu)
        },
    }


def order_spread(mode: str, games: Sequence[Game], orders: int) -> dict[str, list[float]]:
    """Each level's ``mu`` had the same games finished in another order: the 5th,
    50th and 95th percentiles over ``orders`` seeded shuffles. A rating is updated
    game by game, so the last games weigh most: how far the order alone moves a
    level says how much of a gap between two levels the games have shown."""
    rng = random.Random(f"orders-{mode}")
    seen: dict[str, list[float]] = {}
    for _ in range(orders):
        shuffled = list(games)
        rng.shuffle(shuffled)
        for account, row in rate(mode, shuffled).items():
            seen.setdefault(account, []).append(row.mu)
    return {
        account: [round(quantile(mus, q), 2) for q in (0.05, 0.5, 0.95)]
        for account, mus in seen.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=",".join(mode_names()), help="comma-separated")
    parser.add_argument("--games", type=int, default=12, help="games per pairing and mode")
    parser.add_argument("--pairings", default=DEFAULT_PAIRINGS, help="UPPER/LOWER, comma-separated")
    parser.add_argument("--workers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--seconds", type=float, default=None, help="stop a pairing after this")
    parser.add_argument("--seed", default="ratings", help="the seeds' prefix")
    parser.add_argument("--orders", type=int, default=200, help="shuffles for mu_other_orders")
    args = parser.parse_args()
    pairs = [tuple(p.strip().split("/")) for p in args.pairings.split(",") if p.strip()]
    if any(len(pair) != 2 for pair in pairs):
        parser.error("a pairing is UPPER/LOWER of levels")
    report = {
        "seed": args.seed,
        "games_per_pairing": args.games,
        "python": platform.python_version(),
        "modes": {
            mode.strip(): mode_report(mode.strip(), pairs, args)
            for mode in args.modes.split(",")
            if mode.strip()
        },
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
