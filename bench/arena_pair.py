"""Two arena runs compared game by game: the paired difference of the lone seat's wins.

Every lever row of docs/bots.md is a seat kind run on the same games of
the arena (``bench/arena_kinds.py``, one seed: game *i* of every run has
the same seats, seed and dice stream) against the row it names. Their
difference is measured on the games both runs played, as the mean of
(B won) − (A won) over those games with a 95% normal interval of that
mean: the shared dice and seats cancel out of it, so it is much tighter
than the gap between two independent win rates::

    .venv/bin/python bench/arena_pair.py /tmp/medium.json /tmp/lever.json

The lone seat is the one whose kind is not Domination's (``Dom…``);
``--seat KIND`` names it when both runs seat one of ours more than once.
Prints JSON: the games in common, each run's wins on them and in all,
the difference in points with its interval, and the same for each half of
the common games (a difference that holds in both halves is likelier real).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

Z95 = 1.96


def lone_wins(path: str, seat: str | None = None) -> dict[int, int]:
    """Game index -> 1 if the lone seat (or ``seat``) won it, else 0."""
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    games = document["pairings"][-1]["games_detail"]
    won: dict[int, int] = {}
    for game in games:
        index = int(str(game["game"]).rsplit("-", 1)[1])
        winner = game.get("winner_kind") or ""
        ours = winner == seat if seat else bool(winner) and not winner.startswith("Dom")
        won[index] = int(ours)
    return won


def paired(a: dict[int, int], b: dict[int, int], games: list[int]) -> dict[str, Any]:
    """B's wins less A's on ``games``, in points, with a 95% interval."""
    n = len(games)
    diffs = [b[i] - a[i] for i in games]
    mean = sum(diffs) / n if n else 0.0
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else float("nan")
    return {
        "games": n,
        "a_wins": sum(a[i] for i in games),
        "b_wins": sum(b[i] for i in games),
        "points": round(100 * mean, 1),
        "interval95": round(100 * Z95 * spread, 1),
    }


def compare(a_path: str, b_path: str, seat: str | None = None) -> dict[str, Any]:
    a, b = lone_wins(a_path, seat), lone_wins(b_path, seat)
    common = sorted(set(a) & set(b))
    half = len(common) // 2
    return {
        "a": {"file": a_path, "games": len(a), "wins": sum(a.values())},
        "b": {"file": b_path, "games": len(b), "wins": sum(b.values())},
        "b_less_a": paired(a, b, common),
        "halves": [paired(a, b, common[:half]), paired(a, b, common[half:])],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the arena's JSON of the row compared against")
    parser.add_argument("b", help="the arena's JSON of the lever")
    parser.add_argument("--seat", help="the seat kind whose wins count (default: not Dom…)")
    args = parser.parse_args()
    print(json.dumps(compare(args.a, args.b, args.seat), indent=1))


if __name__ == "__main__":
    main()
