"""Where a random game's bytecode goes, function by function.

Prints one JSON object: the bytecode instructions the interpreter executes
per game (4-player classic, random bots, as ``bench/ratio.py`` plays them),
in total and for the functions that execute the most, counted with
``sys.settrace`` opcode events. The counts are exact and the machine's load
cannot move them, so two revisions compare in seconds where callgrind takes
a minute; they weigh every opcode alike (a call or a dict lookup costs more
than a load), so they point at where to look, and ``bench/ratio.py
--instructions`` says what a change bought.

    .venv/bin/python bench/opcodes.py [--games 3] [--top 30]

On Python 3.11 a comprehension or generator counts as a function of its
own (``<listcomp>``, ``<genexpr>``), under the line it starts on; from 3.12
list, dict and set comprehensions count in the function that holds them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from riskcore.bots import get_bot
from riskcore.simulate import play_game

ROOT = Path(__file__).resolve().parent.parent


def count_opcodes(games: int) -> Counter[str]:
    """Opcodes executed per function (``file:line:name``) over ``games`` games."""
    counts: Counter[str] = Counter()

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        code = frame.f_code
        where = code.co_filename.removeprefix(f"{ROOT}/")
        name = f"{where}:{code.co_firstlineno}:{code.co_name}"

        def opcodes(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "opcode":
                counts[name] += 1
            return opcodes

        return opcodes

    sys.settrace(calls)
    try:
        for i in range(games):
            bots = [get_bot("random") for _ in range(4)]
            play_game(bots, seed=i.to_bytes(32, "big"), game_id=f"b{i}")
    finally:
        sys.settrace(None)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    counts = count_opcodes(args.games)
    total = sum(counts.values())
    print(
        json.dumps(
            {
                "benchmark": "opcodes",
                "python": sys.version.split()[0],
                "games": args.games,
                "opcodes_per_game": total // args.games,
                "top": [
                    {
                        "function": name,
                        "per_game": count // args.games,
                        "share": round(count / total, 4),
                    }
                    for name, count in counts.most_common(args.top)
                ],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
