"""The engine beside the minimal one, in alternating rounds of one run.

Prints one JSON object. Each round plays the same seeds (three times, the
fastest kept) with 4 random bots
in this checkout's engine (every event recorded) and in ``bench/minimal.py``
(a minimal engine that records nothing), each in a fresh process, and
takes the ratio of games/s; the median over rounds is the figure. These
machines are shared and noisy, so only a ratio measured side by side means
anything.

    .venv/bin/python bench/ratio.py [--games 30] [--rounds 5] [--against REV] [--instructions N]
        [--compiled PYTHON]

``--against REV`` also plays another revision's engine (checked out in a
temporary git worktree) in the same rounds: "is the ratio lower than
before this change" is then answered in one run.

``--compiled PYTHON`` also plays the compiled build (``make compiled``; by
default ``.venv-compiled/bin/python`` when it exists) in the same rounds, as
``engine_compiled``: that interpreter imports its own installed riskcore.

``--instructions N`` adds a figure the machine's load cannot move: the
instructions each engine (the minimal one too) executes for N games, counted
by valgrind's callgrind (less those of starting the interpreter and
importing), per game, and each engine's ratio to the minimal one by them
(``*_over_minimal_by_instructions``: the minimal engine's count over the
engine's, as games/s would be on a machine that ran both alike).
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ROOT / ".venv-compiled/bin/python"

# Run in a fresh interpreter whose path starts at the engine to time.
# Each round plays its games three times and keeps the fastest (timeit's habit:
# a slower repeat measures the machine's other load, not the code).
_ENGINE_ROUND = """
import sys, time
if {tree!r}:
    sys.path.insert(0, {tree!r})
import riskcore.protocol.codec
assert riskcore.protocol.codec.__file__.endswith(".py") != {compiled!r}, "wrong build"
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
for _ in range({repeats}):
    started = time.perf_counter()
    for seed in range({games}):
        play(seed)
    spent = time.perf_counter() - started
    best = spent if best is None else min(best, spent)
print({games} / best)
"""


def instructions(code: str, python: str) -> int:
    """Instructions ``code`` executes in a fresh interpreter, counted by callgrind."""
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/out",
                python,
                "-c",
                code,
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd="/",
        )
    counted = [line for line in out.stderr.splitlines() if "Collected" in line]
    return int(counted[-1].split(":")[-1].replace(",", "").strip())


@dataclass(frozen=True)
class Engine:
    """An engine to time: a source tree put first on the path, or (``tree`` None)
    the riskcore installed in ``python``'s virtualenv (the compiled build)."""

    tree: Path | None
    python: str = sys.executable

    def round(self, games: int, repeats: int) -> str:
        tree = str(self.tree) if self.tree else ""
        return _ENGINE_ROUND.format(
            tree=tree, compiled=self.tree is None, games=games, repeats=repeats
        )


def per_game(round_of: Callable[[int, int], str], python: str, games: int) -> int:
    """Callgrind's count for ``games`` games (one repeat) less that for none, per game."""
    played = instructions(round_of(games, 1), python)
    idle = instructions(round_of(0, 1), python)
    return (played - idle) // games


def minimal_round(games: int, repeats: int) -> str:
    return _MINIMAL_ROUND.format(bench=str(ROOT / "bench"), games=games, repeats=repeats)


def timed(code: str, python: str = sys.executable) -> float:
    """Games/s printed by ``code`` run in a fresh interpreter (start-up not timed)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    # Not the repository's directory: the compiled build must not find riskcore/ there.
    out = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, check=True, env=env, cwd="/"
    )
    return float(out.stdout.strip().splitlines()[-1])


def worktree(rev: str, into: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(into), rev], check=True
    )
    return into


def run(
    games: int, rounds: int, against: str | None, counted: int, compiled: str | None
) -> dict[str, object]:
    trees = {"engine": Engine(ROOT)}
    if compiled:
        trees["engine_compiled"] = Engine(None, compiled)
    with tempfile.TemporaryDirectory() as scratch:
        if against:
            trees[f"engine@{against}"] = Engine(worktree(against, Path(scratch) / "against"))
        try:
            per_round = [one_round(trees, games) for _ in range(rounds)]
            counts = (
                {"minimal": per_game(minimal_round, sys.executable, counted)}
                | {name: per_game(tree.round, tree.python, counted) for name, tree in trees.items()}
                if counted
                else {}
            )
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
                        str(trees[f"engine@{against}"].tree),
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
    if compiled:
        paired = [r["engine_compiled"] / r["engine"] for r in per_round]
        result["engine_compiled_over_engine"] = round(statistics.median(paired), 3)
    if counts:
        result["instructions_per_game"] = counts
        # The same question the machine's load cannot move: the minimal engine's
        # instructions a game over each engine's (games/s go as their inverse).
        for name in trees:
            result[f"{name}_over_minimal_by_instructions"] = round(
                counts["minimal"] / counts[name], 3
            )
    return result


def one_round(trees: dict[str, Engine], games: int) -> dict[str, float]:
    speeds = {"minimal": timed(minimal_round(games, 3))}
    for name, engine in trees.items():
        speeds[name] = timed(engine.round(games, 3), engine.python)
    return {name: round(value, 2) for name, value in speeds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", default=None, help="another git revision to time as well")
    parser.add_argument(
        "--instructions", type=int, default=0, metavar="N", help="count instructions of N games"
    )
    parser.add_argument(
        "--compiled",
        default=str(COMPILED) if COMPILED.exists() else None,
        metavar="PYTHON",
        help="the compiled build's interpreter (default: .venv-compiled's, if built)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    result = run(args.games, args.rounds, args.against, args.instructions, args.compiled)
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
