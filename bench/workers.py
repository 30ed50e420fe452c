"""Bot games through the relay and RQ workers, beside the same bots in process.

Prints one JSON object. Starts the real processes the way ``risk dev`` and
the end-to-end fixtures do (``risk serve --workers 1`` and ``risk worker``,
which runs the relay too), with ``--worker-processes`` workers (2), then in
each of ``--rounds`` rounds (5):

- in process: ``risk simulate`` plays ``--games`` 4-player games of random
  bots in one process (commands/s from its own JSON);
- through the workers: ``--games`` (100) games of 4 random bots are created
  over HTTP at once and played by the workers to the end; commands/s is
  the commands their records hold (the envelopes carrying one) over the
  time from the first creation to the last game's end;

and the round's ratio, workers' commands/s over in-process commands/s. The
figure is the median of the rounds' ratios. Both sides play the same bots
on the same board; the games differ (the server draws its own seeds), so
commands/s, not games/s, is compared.

    .venv/bin/python bench/workers.py [--games 100] [--rounds 5] [--worker-processes 2]

Quick check on a loaded machine: ``--games 10 --rounds 1``. Needs REDIS_URL
(a Redis it may write to; it removes its own keys afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import redis

from service.http_json import call

ROOT = Path(__file__).resolve().parent.parent
RISK = [sys.executable, "-m", "riskcli"]
SEATS = {"seats": [{"kind": "bot", "bot": "random"} for _ in range(4)]}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """``risk serve`` and the workers, each in its own session, stopped on exit."""

    def __init__(self, redis_url: str, prefix: str, workers: int) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = os.environ | {
            "REDIS_URL": redis_url,
            "RISK_KEY_PREFIX": prefix,
            "RISK_RATE_TOKEN": "off",
            "RISK_RATE_IP": "off",
            "RISK_GAMES_PER_ADDRESS": "0",  # one address creates every game here
            "PYTHONUNBUFFERED": "1",
        }
        self.processes: list[subprocess.Popen[bytes]] = []
        self._start("serve", "--bind", f"127.0.0.1:{self.port}", "--workers", "1")
        for _ in range(workers):
            self._start("worker", "--log-level", "WARNING")
        self._wait_ready()

    def _start(self, *args: str) -> None:
        self.processes.append(
            subprocess.Popen(
                [*RISK, *args],
                cwd=ROOT,
                env=self.env,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        )

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if call("GET", self.url + "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit("the stack never became ready")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)


def in_process(games: int, seed: int) -> dict[str, Any]:
    """``risk simulate`` with 4 random bots, as a user runs it."""
    args = ["simulate", "--players", "4", "--bot", "random", "--games", str(games)]
    out = subprocess.run(
        [*RISK, *args, "--seed", str(seed), "--json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    summary = json.loads(out)
    return {
        "games": games,
        "seconds": summary["seconds"],
        "commands_per_second": summary["commands_per_second"],
        "mean_commands_per_game": summary["mean_commands_per_game"],
    }


def through_workers(stack: Stack, store: redis.Redis, prefix: str, games: int) -> dict[str, Any]:
    """Create ``games`` all-bot games at once; time them until every one has finished."""
    started = time.perf_counter()
    ids = []
    for _ in range(games):
        status, created = call("POST", f"{stack.url}/v1/games", SEATS)
        assert status == 201, created
        ids.append(created["game"]["game_id"])
    running = set(ids)
    while running:
        time.sleep(0.25)
        for game in list(running):
            status, document = call("GET", f"{stack.url}/v1/games/{game}")
            assert status == 200, document
            if document["status"] == "finished":
                running.discard(game)
    elapsed = time.perf_counter() - started
    commands = sum(_commands_recorded(store, prefix, game) for game in ids)
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "commands_per_second": round(commands / elapsed),
        "mean_commands_per_game": round(commands / games, 1),
    }


def _commands_recorded(store: redis.Redis, prefix: str, game: str) -> int:
    """The envelopes of a game's stream that carry the command that caused their batch."""
    from service.keys import KeySpace

    stream = KeySpace(prefix).game(game).events
    count = 0
    for _, fields in store.xrange(stream):
        if json.loads(fields[b"p"]).get("c") is not None:
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker-processes", type=int, default=2)
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"bench-workers-{uuid.uuid4().hex[:8]}"
    store = redis.Redis.from_url(redis_url)
    stack = Stack(redis_url, prefix, args.worker_processes)
    rounds = []
    try:
        for number in range(args.rounds):
            alone = in_process(args.games, seed=number * args.games)
            piped = through_workers(stack, store, prefix, args.games)
            ratio = piped["commands_per_second"] / alone["commands_per_second"]
            rounds.append({"in_process": alone, "workers": piped, "ratio": round(ratio, 3)})
    finally:
        stack.stop()
        for key in store.scan_iter(match=f"{prefix}*", count=1000):
            store.delete(key)
    result = {
        "benchmark": "workers",
        "python": platform.python_version(),
        "games_per_round": args.games,
        "worker_processes": args.worker_processes,
        "rounds": rounds,
        "median_ratio": round(statistics.median(r["ratio"] for r in rounds), 3),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
