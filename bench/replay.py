"""Replay and audit speed (issue 7): state at version N, and offline verification.

Stores one long recorded game (>= 10,000 events, random bots) in Redis the
way the server does (envelopes, hash chain, seed, snapshots every 100),
then measures, from a cold process cache:

- time to the state at version N for N = 10, 1,000 and 10,000;
- time to build the game's record, and verification speed (events/s) of
  `riskcore.audit.verify` over it;
- on the same stored events, in ``--rounds`` alternating rounds (ratios are
  medians of the rounds' ratios, so the machine's load weighs on both sides
  alike): ``json.loads`` alone over the stored envelopes, the fold from them
  (decode and fold, as a load does), and verification of the game's record
  as ``risk verify`` does it (``riskcli.audit.verify_offline``);
  ``ratio_fold_json_to_json_loads`` (target: at least 0.5) and
  ``ratio_verify_to_fold_json`` (target: at least 0.5).

``--instructions`` adds the instructions each of the three executes per
event, counted by valgrind's callgrind in a fresh interpreter (less those of
starting it, importing and reading the events), which the machine's load
cannot move, and the same two ratios from those counts.

    .venv/bin/python bench/replay.py [--rounds 5] [--instructions]
    # REDIS_URL, default redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time

import redis

from riskcli.audit import verify_offline
from riskcore.audit.record import decode_envelope
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.simulate import GameResult, play_game
from service.application.games import GameService
from service.application.records import append_simulated, record_text
from service.store.event_store import EventStore
from service.store.keys import KeySpace

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


def fastest(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """The fastest of ``repeat`` runs: what the code costs, less the machine's interruptions."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return min(samples)


def side_by_side(payloads: list[bytes], text: str, rounds: int) -> dict[str, object]:
    """json.loads alone, the fold from JSON and verification, round by round (each the
    fastest of three runs)."""
    count = len(payloads)
    each: dict[str, list[float]] = {"json_loads": [], "fold_json": [], "verify": []}
    for _ in range(rounds):
        each["json_loads"].append(count / fastest(lambda: [json.loads(p) for p in payloads], 3))
        each["fold_json"].append(
            count / fastest(lambda: fold(decode_envelope(p).event for p in payloads), 3)
        )
        each["verify"].append(count / fastest(lambda: verify_offline(text), 3))
    ratios = {
        "ratio_fold_json_to_json_loads": [
            f / j for f, j in zip(each["fold_json"], each["json_loads"], strict=True)
        ],
        "ratio_verify_to_fold_json": [
            v / f for v, f in zip(each["verify"], each["fold_json"], strict=True)
        ],
    }
    found: dict[str, object] = {"rounds": rounds}
    for name, values in each.items():
        found[f"{name}_events_per_second"] = round(statistics.median(values))
    for name, values in ratios.items():
        found[name] = round(statistics.median(values), 3)
    found["each_round"] = {name: [round(v, 3) for v in values] for name, values in ratios.items()}
    return found


_COUNTED = """
import json, sys
sys.path.insert(0, {root!r})
from riskcore.audit.record import decode_envelope
from riskcli.audit import verify_offline
from riskcore.engine.evolve import fold
text = open({record!r}, encoding="utf-8").read()
payloads = [p.encode() for p in json.load(open({payloads!r}, encoding="utf-8"))]
{work}
"""
_WORK = {
    "json_loads": "[json.loads(p) for p in payloads]",
    "fold_json": "fold(decode_envelope(p).event for p in payloads)",
    "verify": "assert verify_offline(text).ok",
}


def counted_instructions(payloads: list[bytes], text: str) -> dict[str, object]:
    """Instructions per event of each of the three, less the set-up's."""
    from ratio import instructions  # bench/ratio.py, beside this script

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as scratch:
        record, stored = os.path.join(scratch, "record"), os.path.join(scratch, "payloads")
        with open(record, "w", encoding="utf-8") as out:
            out.write(text)
        with open(stored, "w", encoding="utf-8") as out:
            json.dump([p.decode() for p in payloads], out)
        paths = {"root": root, "record": record, "payloads": stored}
        idle = instructions(_COUNTED.format(**paths, work=""), sys.executable)
        per_event = {
            name: (instructions(_COUNTED.format(**paths, work=work), sys.executable) - idle)
            / len(payloads)
            for name, work in _WORK.items()
        }
    return {
        "instructions_per_event": {name: round(n) for name, n in per_event.items()},
        "ratio_fold_json_to_json_loads": round(per_event["json_loads"] / per_event["fold_json"], 3),
        "ratio_verify_to_fold_json": round(per_event["fold_json"] / per_event["verify"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
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
        verdict = verify_offline(text)
        verify_seconds = time.perf_counter() - started
        assert verdict.ok, verdict.divergence
        payloads = [event.payload for event in store.read(game)]
        ratios = side_by_side(payloads, text, args.rounds)
        if args.instructions:
            ratios["instructions"] = counted_instructions(payloads, text)
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
                    "side_by_side": ratios,
                },
                indent=2,
            )
        )
    finally:
        store.delete_game(game)
        client.delete(keys.record_export(game), keys.replay_checkpoints(game))


if __name__ == "__main__":
    main()
