"""The engine beside the minimal one, in alternating rounds of one run.

Prints one JSON object. Each round plays the same seeds (three times, the
fastest kept) with 4 random bots
in this checkout's engine (every event recorded) and in ``bench/minimal.py``
(a minimal engine that records nothing), each in a fresh process, and
takes the ratio of games/s; the median over rounds is the figure. These
machines are shared and noisy, so only a ratio measured side by side means
anything.

    .venv/bin/python bench/ratio.py [--games 30] [--rounds 5] [--against REV] [--instructions N]

``--against REV`` also plays another revision's engine (checked out in a
temporary git worktree) in the same rounds: "is the ratio lower than
before this change" is then answered in one run.

``--instructions N`` adds a figure the machine's load cannot move: the
instructions each engine executes for N games, counted by valgrind's
callgrind (less those of starting the interpreter and importing), per game.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter whose path starts at the engine to time.
# Each round plays its games three times and keeps the fastest (timeit's habit:
# a slower repeat measures the machine's other load, not the code).
_ENGINE_ROUND = """
import sys, time
sys.path.insert(0, {tree!r})
from riskcore.bots import get_bot
from riskcore.simulate import play_game
best = None
for _ in range({repeats}):
    started = time.perf_counter()
    for i in range({games}):
        bots = [get_bot("random") for _ in range(4)]
        play_game(bots, seed=i.to_bytes(32, "big"), game_id=f"b{{i}}")
    spent = time.perf_counter() - started
    best = spent if best is None else min(best, spent)
print({games} / best if best else 0)
"""
_MINIMAL_ROUND = """
import sys, time
sys.path.insert(0, {bench!r})
from minimal import play
best = None
for _ in range(3):
    started = time.perf_counter()
    for seed in range({games}):
        play(seed)
    spent = time.perf_counter() - started
    best = spent if best is None else min(best, spent)
print({games} / best)
"""


def instructions(code: str) -> int:
    """Instructions ``code`` executes in a fresh interpreter, counted by callgrind."""
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/out",
                sys.executable,
                "-c",
                code,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    counted = [line for line in out.stderr.splitlines() if "Collected" in line]
    return int(counted[-1].split(":")[-1].replace(",", "").strip())


def instructions_per_game(tree: Path, games: int) -> int:
    """Callgrind's count for ``games`` games less that for none, per game."""
    played = instructions(_ENGINE_ROUND.format(tree=str(tree), games=games, repeats=1))
    idle = instructions(_ENGINE_ROUND.format(tree=str(tree), games=0, repeats=1))
    return (played - idle) // games


def timed(code: str) -> float:
    """Games/s printed by ``code`` run in a fresh interpreter (start-up not timed)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def worktree(rev: str, into: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(into), rev], check=True
    )
    return into


def run(games: int, rounds: int, against: str | None, counted: int) -> dict[str, object]:
    trees = {"engine": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        if against:
            trees[f"engine@{against}"] = worktree(against, Path(scratch) / "against")
        try:
            per_round = [one_round(trees, games) for _ in range(rounds)]
            counts = {name: instructions_per_game(tree, counted) for name, tree in trees.items()}
            counts = counts if counted else {}
        finally:
            if against:
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(ROOT),
                        "worktree",
                        "remove",
                        "--force",
                        str(trees[f"engine@{against}"]),
                    ],
                    check=False,
                )
    result: dict[str, object] = {
        "benchmark": "ratio",
        "python": platform.python_version(),
        "games_per_round": games,
        "rounds": per_round,
    }
    for name in trees:
        ratios = [r[name] / r["minimal"] for r in per_round]
        result[f"{name}_over_minimal"] = round(statistics.median(ratios), 3)
    if against:
        # The two engines side by side, round by round: the steadiest wall-clock figure.
        paired = [r["engine"] / r[f"engine@{against}"] for r in per_round]
        result[f"engine_over_engine@{against}"] = round(statistics.median(paired), 3)
    if counts:
        result["instructions_per_game"] = counts
    return result


def one_round(trees: dict[str, Path], games: int) -> dict[str, float]:
    speeds = {"minimal": timed(_MINIMAL_ROUND.format(bench=str(ROOT / "bench"), games=games))}
    for name, tree in trees.items():
        speeds[name] = timed(_ENGINE_ROUND.format(tree=str(tree), games=games, repeats=3))
    return {name: round(value, 2) for name, value in speeds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", default=None, help="another git revision to time as well")
    parser.add_argument(
        "--instructions", type=int, default=0, metavar="N", help="count instructions of N games"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    result = run(args.games, args.rounds, args.against, args.instructions)
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
