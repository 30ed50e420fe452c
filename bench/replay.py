"""Replay and audit speed (issue 7): state at version N, and offline verification.

Stores one long recorded game (>= 10,000 events, random bots) in Redis the
way the server does (envelopes, hash chain, seed, snapshots every 100),
then measures, from a cold process cache:

- time to the state at version N for N = 10, 1,000 and 10,000;
- time to build the game's record, and verification speed (events/s) of
  `riskcore.audit.verify` over it.

    .venv/bin/python bench/replay.py        # REDIS_URL, default redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import json
import os
import secrets
import statistics
import time

import redis

from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.simulate import GameResult, play_game
from service.games import GameService
from service.keys import KeySpace
from service.records import append_simulated, record_text
from service.store import EventStore

MIN_EVENTS = 10_000


def long_game() -> tuple[GameResult, bytes]:
    for attempt in range(500):
        seed = attempt.to_bytes(32, "big")
        result = play_game([get_bot("random") for _ in range(3)], seed=seed, game_id=f"g{attempt}")
        if len(result.events) >= MIN_EVENTS and result.winner:
            return result, seed
    raise SystemExit(f"no game of {MIN_EVENTS} events in 500 seeds")


def timed(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    keys = KeySpace(f"bench-{secrets.token_hex(4)}")
    result, seed = long_game()
    store = EventStore(client, keys)
    game = append_simulated(store, result, seed)
    try:
        first = {
            str(n): round(
                1000 * timed(lambda n=n: GameService(client, keys).state_at(game, n), 1), 2
            )
            for n in (10, 1_000, 10_000)
        }
        state_at = {
            str(n): round(1000 * timed(lambda n=n: GameService(client, keys).state_at(game, n)), 2)
            for n in (10, 1_000, 10_000, 10_999)
        }
        service = GameService(client, keys)
        started = time.perf_counter()
        text = record_text(service, game, None)
        build = time.perf_counter() - started
        started = time.perf_counter()
        verdict = verify_text(text)
        verify_seconds = time.perf_counter() - started
        assert verdict.ok, verdict.divergence
        print(
            json.dumps(
                {
                    "benchmark": "replay",
                    "events": len(result.events),
                    "state_at_version_ms_first_look": first,
                    "state_at_version_ms": state_at,
                    "record_build_seconds": round(build, 3),
                    "record_bytes": len(text),
                    "verify_seconds": round(verify_seconds, 3),
                    "verify_events_per_second": round(len(result.events) / verify_seconds),
                },
                indent=2,
            )
        )
    finally:
        store.delete_game(game)
        client.delete(keys.record_export(game), keys.replay_checkpoints(game))


if __name__ == "__main__":
    main()
