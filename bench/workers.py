"""Bot games through the relay and RQ workers, beside the same bots in process.

Prints one JSON object. Starts the real processes the way ``risk dev`` and
the end-to-end fixtures do (``risk serve --workers 1`` and ``risk worker``,
which runs the relay too), with ``--worker-processes`` workers (2), then in
each of ``--rounds`` rounds (5):

- in process: ``risk simulate`` plays ``--simulated`` (20) 4-player games of random
  bots in one process (commands/s from its own JSON), just before the window
  and again just after it (the mean of the two);
- through the workers: ``--games`` (100) games of 4 random bots, created over
  HTTP, run at once for ``--seconds`` (60), each finished game replaced by a
  new one; commands/s is the commands their records hold (the envelopes
  carrying one) with a server time inside the window;

and the round's ratio, workers' commands/s over in-process commands/s. The
figure is the median of the rounds' ratios. Each round also shows the CPU
seconds the API, the workers (with their relays) and Redis used in the
window, and ``exports_waiting``: finished games whose record is still to be
built (``workers.jobs.export_record`` runs when no bot job waits). Both sides play the same bots
on the same board; the games differ (the server draws its own seeds), so
commands/s, not games/s, is compared.

    .venv/bin/python bench/workers.py [--games 100] [--seconds 60] [--simulated 20]
        [--rounds 5] [--worker-processes 2]

Quick check on a loaded machine: ``--games 20 --seconds 20 --simulated 5
--rounds 1``. Needs REDIS_URL (a Redis it may write to; it removes its own
keys afterwards).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
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
from rq import Queue

from service.http.http_json import call

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


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of ``pid`` and every process under it, from /proc
    (Linux; 0 elsewhere): to show where a window's work went."""
    try:
        stats = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    except OSError:
        return 0.0
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += stats.get(current, (0, 0))[1]
        todo += [child for child, (parent, _) in stats.items() if parent == current]
    return total / os.sysconf("SC_CLK_TCK")


def in_process(games: int, seed: int) -> dict[str, Any]:
    """``risk simulate`` with 4 random bots, as a user runs it."""
    args = ["simulate", "--players", "4", "--bot", "random", "--games", str(games)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [*RISK, *args, "--seed", str(seed), "--json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    summary = json.loads(out)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "games": games,
        "seconds": summary["seconds"],
        "cpu_seconds": round(used, 2),  # the whole process: start-up and imports too
        "commands_per_second": summary["commands_per_second"],
        "mean_commands_per_game": summary["mean_commands_per_game"],
    }


def through_workers(
    stack: Stack, store: redis.Redis, prefix: str, games: int, seconds: float
) -> dict[str, Any]:
    """``games`` all-bot games running at once for ``seconds``: each that finishes is
    replaced by a new one, so the workers always have ``games`` games to play.

    Commands/s counts the commands recorded (envelopes carrying one) with a
    server time inside the window. Waiting for the last game to end instead
    would time the longest game's tail (a random game's length varies tenfold),
    played alone, not the pipeline under load.
    """
    from service.store.event_store import EventStore
    from service.store.keys import KeySpace

    keys = KeySpace(prefix)
    events = EventStore(store, keys)
    running = [_create(stack) for _ in range(games)]
    every = list(running)
    cpu_before = _cpu(stack, store)
    started_ms = time.time() * 1000
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.5)
        for index, game in enumerate(running):
            last = events.read(game, start=events.version(game))
            if last and b'"game_finished"' in last[-1].payload:
                running[index] = _create(stack)
                every.append(running[index])
    ended_ms = time.time() * 1000
    exports = Queue(f"{keys.rq_prefix()}exports", connection=store).count
    cpu = {name: round(after - cpu_before[name], 1) for name, after in _cpu(stack, store).items()}
    commands = sum(_commands_recorded(events, game, started_ms, ended_ms) for game in every)
    elapsed = (ended_ms - started_ms) / 1000
    return {
        "concurrent_games": games,
        "seconds": round(elapsed, 3),
        "games_started": len(every),
        "commands": commands,
        "commands_per_second": round(commands / elapsed),
        "cpu_seconds": cpu,
        "exports_waiting": exports,
    }


def _cpu(stack: Stack, store: redis.Redis) -> dict[str, float]:
    """CPU seconds used so far by the API, the workers (with their relays) and Redis."""
    info: Any = store.info("cpu")
    return {
        "api": cpu_seconds(stack.processes[0].pid),
        "workers": sum(cpu_seconds(p.pid) for p in stack.processes[1:]),
        "redis": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
    }


def _create(stack: Stack) -> str:
    status, created = call("POST", f"{stack.url}/v1/games", SEATS)
    assert status == 201, created
    return str(created["game"]["game_id"])


def _commands_recorded(events: Any, game: str, start_ms: float, end_ms: float) -> int:
    """The envelopes of a game's stream in the window that carry their batch's command."""
    count = 0
    for stored in events.read(game):
        envelope = json.loads(stored.payload)
        if envelope.get("c") is not None and start_ms <= envelope["t"] < end_ms:
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once (workers)")
    parser.add_argument("--seconds", type=float, default=60, help="each round's window")
    parser.add_argument("--simulated", type=int, default=20, help="games risk simulate plays")
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
            # In process just before and just after the window: on a shared machine
            # the load moves within a minute, and a short run alone catches one moment.
            before = in_process(args.simulated, seed=2 * number * args.simulated)
            piped = through_workers(stack, store, prefix, args.games, args.seconds)
            after = in_process(args.simulated, seed=(2 * number + 1) * args.simulated)
            alone = statistics.mean([before["commands_per_second"], after["commands_per_second"]])
            ratio = piped["commands_per_second"] / alone
            rounds.append(
                {
                    "in_process": [before, after],
                    "in_process_commands_per_second": round(alone),
                    "workers": piped,
                    "ratio": round(ratio, 3),
                }
            )
    finally:
        stack.stop()
        for name in ("games", "clocks", "continued", "exports"):  # jobs left waiting
            Queue(f"{prefix}.{name}", connection=store).empty()
        for key in store.scan_iter(match=f"{prefix}*", count=1000):
            store.delete(key)
    result = {
        "benchmark": "workers",
        "python": platform.python_version(),
        "concurrent_games": args.games,
        "seconds_per_round": args.seconds,
        "worker_processes": args.worker_processes,
        "rounds": rounds,
        "median_ratio": round(statistics.median(r["ratio"] for r in rounds), 3),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
