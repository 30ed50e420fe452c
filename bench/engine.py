"""Engine benchmark: full games with random bots, and fold rates.

Prints one JSON object. One process, one core:

    .venv/bin/python bench/engine.py [--games 200]

- play: 4-player classic games with random bots, every event recorded
  (games/s, events/s, commands/s);
- fold: rebuilding state from the recorded events, already decoded
  (events/s), from canonical JSON events, and from stored envelopes.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

from riskcore.bots import get_bot
from riskcore.codec import decode_event, encode_event
from riskcore.evolve import fold
from riskcore.record import decode_envelope, envelopes
from riskcore.simulate import play_game


def bench_play(games: int) -> tuple[dict[str, float], list[list]]:
    recorded = []
    commands = 0
    started = time.perf_counter()
    for i in range(games):
        result = play_game(
            [get_bot("random") for _ in range(4)], seed=i.to_bytes(32, "big"), game_id=f"b{i}"
        )
        recorded.append(result.events)
        commands += result.commands
    elapsed = time.perf_counter() - started
    events = sum(len(g) for g in recorded)
    return {
        "games": games,
        "games_per_second": round(games / elapsed, 1),
        "events_per_second": round(events / elapsed),
        "commands_per_second": round(commands / elapsed),
        "mean_events_per_game": round(events / games, 1),
    }, recorded


def rate(count: int, fn) -> int:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return round(count / best)


def bench_fold(recorded: list[list]) -> dict[str, int]:
    count = sum(len(g) for g in recorded)
    as_json = [[encode_event(e) for e in g] for g in recorded]
    stored = [
        [e.encode() for e in envelopes(g, first_version=1, time_ms=1_764_000_000_000, actor="p1")]
        for g in recorded
    ]
    return {
        "events": count,
        "fold_decoded_events_per_second": rate(count, lambda: [fold(g) for g in recorded]),
        "fold_json_events_per_second": rate(
            count, lambda: [fold(decode_event(b) for b in g) for g in as_json]
        ),
        "fold_envelope_events_per_second": rate(
            count, lambda: [fold(decode_envelope(b).event for b in g) for g in stored]
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    play, recorded = bench_play(args.games)
    result = {
        "benchmark": "engine",
        "python": platform.python_version(),
        "play": play,
        "fold": bench_fold(recorded[:50]),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
