"""Webhooks under the bot pipeline's load (issue 50): delivery latency, and what
sending webhooks costs the bot games. Prints one JSON object.

``bench/workers.py``'s stack and load (loaded by path, never put on sys.path):
``risk serve --workers 1`` and ``--worker-processes`` (2) ``risk worker``
processes (relays included) on a fresh SQLite database, playing ``--games``
(100) all-bot games at once, each finished game replaced by a new one;
commands/s is the commands their records hold with a server time inside the
window. Beside them, ``--endpoints`` (100) accounts each register an endpoint
of their own at a local receiver (a process of its own, so the bench's own
work never delays an arrival) for every event type, and a driver process
(also its own) plays the accounts' games at ``--account-games`` a second (2),
the accounts in turn: a challenge against an easy bot, resigned at once, which
makes five messages (``challenge.accepted``, ``game.created``,
``game.started``, ``turn.started``, ``game.finished``).

``--rounds`` (5) pairs of windows of ``--seconds`` (30), webhooks on in one and
off in the other (the order alternates from pair to pair, so a drift in the
machine's load weighs on both sides alike). On: the endpoints are enabled
(``PATCH /v1/webhooks/{id}``) and a webhook worker (``risk worker
--webhooks``) runs; after the window it is given ``--drain`` seconds (30) to
deliver what the window made, then stopped, and its consumer group is
destroyed, so the next one starts at the outboxes' end as on a first
deployment. Off: no webhook worker, the endpoints disabled; the accounts'
games are played all the same. Figures:

- ``pipeline_ratio``: the median over the pairs of the bot games' commands/s
  with webhooks on ÷ off (the issue's "unchanged within noise"), with every
  round's commands/s and CPU seconds;
- ``latency_ms``: from the API's answer to the receiver getting the message
  (verified with ``standardwebhooks``' ``Webhook.verify``) for the on-windows'
  ``game.finished`` (from the resign's answer: the headline, target p99 ≤ 1 s)
  and for every message (the others from the challenge's answer; a
  ``challenge.accepted`` is made by the API and found by the feed's sweep, four
  times a second); p50, p99, max. ``webhook_worker_cpu_seconds``: the webhook
  worker's CPU in its window.

    .venv/bin/python bench/webhooks.py [--games 100] [--seconds 30] [--rounds 5]
        [--endpoints 100] [--account-games 2] [--worker-processes 2]

Quick check: ``--games 20 --seconds 15 --rounds 1 --endpoints 20``.
Needs REDIS_URL (a Redis it may write to; it removes its own keys afterwards).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import redis
from rq import Queue
from standardwebhooks.webhooks import Webhook

from service.http.http_json import call
from service.store.database import migrate
from service.store.keys import KeySpace

ROOT = Path(__file__).resolve().parent.parent
RISK = [sys.executable, "-m", "riskcli"]
EVENTS = [
    "game.created",
    "game.started",
    "turn.started",
    "game.finished",
    "challenge.received",
    "challenge.accepted",
]
FROM_RESIGN = {"game.finished"}  # the other messages are timed from the challenge's answer


def bench_workers() -> Any:
    """bench/workers.py, loaded by path under a name of its own (on sys.path its name
    would shadow the ``workers`` package)."""
    spec = importlib.util.spec_from_file_location(
        "bench_webhooks_workers", ROOT / "bench/workers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the receiver and the driver, each a process of its own -----------------------------


def receive(ports: Any, arrivals: Any) -> None:
    """Answer 200 to every POST; send (arrival, path, headers, body) to ``arrivals``.
    ``time.monotonic`` is the system's: comparable with the driver's."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            at = time.monotonic()
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()
            headers = {k.lower(): v for k, v in self.headers.items() if k.lower()[:8] == "webhook-"}
            arrivals.put((at, self.path, headers, body.decode()))

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports.put(server.server_address[1])
    server.serve_forever()


def drive(url: str, tokens: list[str], per_second: float, seconds: float, out: Any) -> None:
    """The accounts' games for ``seconds``, paced at ``per_second``: a challenge
    against an easy bot, resigned at once; (game, challenge answered, resign answered)."""
    played: list[tuple[str, float, float]] = []
    started = time.monotonic()
    index = 0
    while time.monotonic() - started < seconds:
        wait = started + index / per_second - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        token = tokens[index % len(tokens)]
        index += 1
        status, made = call("POST", url + "/v1/challenges", {"bots": ["easy"]}, token)
        assert status == 201, made
        created = time.monotonic()
        game = made["game"]["game_id"]
        status, answer = call("POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, token)
        assert status == 200, answer
        played.append((game, created, time.monotonic()))
    out.put(played)


class Arrivals:
    """Collects the receiver's arrivals in a thread of this process."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue
        self.got: list[tuple[float, str, dict[str, str], str]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self) -> None:
        while True:
            item = self.queue.get()
            with self.lock:
                self.got.append(item)

    def count(self) -> int:
        with self.lock:
            return len(self.got)


# -- one stack, rounds on and off ------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, redis_url: str, folder: Path) -> None:
        self.args = args
        self.prefix = f"bench-webhooks-{uuid.uuid4().hex[:8]}"
        self.keys = KeySpace(self.prefix)
        self.store = redis.Redis.from_url(redis_url)
        self.workers = bench_workers()
        database = f"sqlite:///{folder / 'risk.db'}"
        migrate(database)
        os.environ |= {  # read by the stack's processes (bench/workers.py's Stack)
            "RISK_DATABASE_URL": database,
            "RISK_WEBHOOK_ALLOW_PRIVATE": "1",
            "RISK_GAMES_PER_TOKEN": "0",
        }
        context = multiprocessing.get_context("fork")
        self.context = context
        ports, queue = context.Queue(), context.Queue()
        self.receiver = context.Process(target=receive, args=(ports, queue), daemon=True)
        self.receiver.start()
        self.hook_url = f"http://127.0.0.1:{ports.get(timeout=30)}"
        self.arrivals = Arrivals(queue)
        self.stack = self.workers.Stack(redis_url, self.prefix, args.worker_processes)
        self.sender: subprocess.Popen[bytes] | None = None
        self.tokens: list[str] = []
        self.endpoints: list[str] = []
        self.secrets: dict[str, str] = {}

    def register(self) -> None:
        """``--endpoints`` accounts, each with an endpoint of its own for every event."""
        for index in range(self.args.endpoints):
            status, made = call("POST", self.stack.url + "/v1/accounts", {"name": f"hook{index}"})
            assert status == 201, made
            path = f"/hooks/{index}"
            body = {"url": self.hook_url + path, "events": EVENTS}
            status, hook = call("POST", self.stack.url + "/v1/webhooks", body, made["token"])
            assert status == 201, hook
            self.tokens.append(made["token"])
            self.endpoints.append(hook["id"])
            self.secrets[path] = hook["secret"]

    def switch(self, enabled: bool) -> None:
        for token, endpoint in zip(self.tokens, self.endpoints, strict=True):
            path = f"{self.stack.url}/v1/webhooks/{endpoint}"
            status, answer = call("PATCH", path, {"enabled": enabled}, token)
            assert status == 200, answer

    def round(self, webhooks_on: bool) -> dict[str, Any]:
        self.switch(webhooks_on)
        if webhooks_on:
            self.start_sender()
        out = self.context.Queue()
        driver = self.context.Process(
            target=drive,
            args=(self.stack.url, self.tokens, self.args.account_games, self.args.seconds, out),
        )
        arrived_before = self.arrivals.count()
        cpu_before = self.sender_cpu()
        driver.start()
        load = self.workers.through_workers(
            self.stack, self.store, self.prefix, self.args.games, self.args.seconds
        )
        played = out.get(timeout=120)
        driver.join(30)
        result: dict[str, Any] = {"webhooks": "on" if webhooks_on else "off", "pipeline": load}
        result["account_games"] = len(played)
        if webhooks_on:  # the window's (the window ends before the records are counted)
            result["webhook_worker_cpu_seconds"] = round(self.sender_cpu() - cpu_before, 1)
            self.drain(played)
            self.stop_sender()
        with self.arrivals.lock:
            messages = self.arrivals.got[arrived_before:]
        result["messages"] = len(messages)
        if webhooks_on:
            result["latency"] = self.latencies(played, messages)
        return result

    def sender_cpu(self) -> float:
        return 0.0 if self.sender is None else self.workers.cpu_seconds(self.sender.pid)

    def drain(self, played: list[tuple[str, float, float]]) -> None:
        """Until every game of the window has its ``game.finished`` and nothing more
        arrived for 2 s (the sweep's last ``challenge.accepted``), or ``--drain`` s."""
        games = {game for game, _, _ in played}
        deadline = time.monotonic() + self.args.drain
        seen, quiet_since = -1, time.monotonic()
        while time.monotonic() < deadline:
            with self.arrivals.lock:
                got = list(self.arrivals.got)
            if len(got) != seen:
                seen, quiet_since = len(got), time.monotonic()
            finished = {json.loads(b)["data"]["game_id"] for *_, b in got if "game.finished" in b}
            if games <= finished and time.monotonic() - quiet_since >= 2:
                break
            time.sleep(0.2)

    def latencies(
        self, played: list[tuple[str, float, float]], messages: list[Any]
    ) -> dict[str, Any]:
        answered = {game: (created, resigned) for game, created, resigned in played}
        first: dict[tuple[str, str], float] = {}
        bad = 0
        for at, path, headers, body in messages:
            try:
                payload = Webhook(self.secrets[path]).verify(body, headers)
            except Exception:
                bad += 1
                continue
            key = (payload["data"]["game_id"], payload["type"])
            first.setdefault(key, at)  # a repeat (at least once) is not a new message
        finished, every = [], []
        for (game, kind), at in first.items():
            if game not in answered:
                continue
            created, resigned = answered[game]
            took = (at - (resigned if kind in FROM_RESIGN else created)) * 1000
            every.append(took)
            if kind == "game.finished":
                finished.append(took)
        return {
            "game_finished": len(finished),
            "of_games": len(answered),
            "messages": len(every),
            "bad_signatures": bad,
            "game_finished_ms": finished,
            "every_message_ms": every,
        }

    def start_sender(self) -> None:
        self.sender = subprocess.Popen(
            [*RISK, "worker", "--webhooks", "--log-level", "WARNING"],
            cwd=ROOT,
            env=self.stack.env,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                groups = self.store.xinfo_groups(self.keys.outboxes()[0])
                if any(g["name"] in (b"webhooks", "webhooks") for g in groups):
                    return
            except redis.ResponseError:
                pass
            time.sleep(0.1)
        raise SystemExit("the webhook worker never started its feed")

    def stop_sender(self) -> None:
        """Stop it and forget its consumer group: the next one starts at the end."""
        assert self.sender is not None
        os.killpg(self.sender.pid, signal.SIGTERM)
        try:
            self.sender.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.sender.pid, signal.SIGKILL)
            self.sender.wait(5)
        for stream in self.keys.outboxes():
            self.store.xgroup_destroy(stream, "webhooks")
        Queue(f"{self.keys.rq_prefix()}webhooks", connection=self.store).empty()
        self.sender = None

    def close(self) -> None:
        if self.sender is not None:
            self.stop_sender()
        self.stack.stop()
        self.receiver.kill()
        for name in ("games", "clocks", "continued", "exports", "webhooks"):
            Queue(f"{self.keys.rq_prefix()}{name}", connection=self.store).empty()
        for key in self.store.scan_iter(match=f"{self.prefix}*", count=1000):
            self.store.delete(key)


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(p99, 1),
        "max": round(ordered[-1], 1),
    }


def summary(args: argparse.Namespace, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = []
    for pair in range(args.rounds):
        on, off = (r["pipeline"]["commands_per_second"] for r in rounds[2 * pair : 2 * pair + 2])
        if rounds[2 * pair]["webhooks"] == "off":
            on, off = off, on
        ratios.append(round(on / off, 3))
    finished = [x for r in rounds if "latency" in r for x in r["latency"].pop("game_finished_ms")]
    every = [x for r in rounds if "latency" in r for x in r["latency"].pop("every_message_ms")]
    return {
        "benchmark": "webhooks",
        "python": platform.python_version(),
        "concurrent_games": args.games,
        "seconds_per_round": args.seconds,
        "worker_processes": args.worker_processes,
        "endpoints": args.endpoints,
        "account_games_per_second": args.account_games,
        "rounds": rounds,
        "pipeline_ratio_each_pair": ratios,
        "pipeline_ratio": round(statistics.median(ratios), 3),
        "latency_ms": {
            "game_finished": percentiles(finished) | {"count": len(finished)},
            "every_message": percentiles(every) | {"count": len(every)},
        },
        "target_p99_ms": 1000,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="all-bot games at once")
    parser.add_argument("--seconds", type=float, default=30, help="each window")
    parser.add_argument("--rounds", type=int, default=5, help="pairs of windows, on and off")
    parser.add_argument("--endpoints", type=int, default=100)
    parser.add_argument("--account-games", type=float, default=2.0, help="per second")
    parser.add_argument("--worker-processes", type=int, default=2)
    parser.add_argument("--drain", type=float, default=30, help="seconds to deliver after")
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with tempfile.TemporaryDirectory(prefix="bench-webhooks-") as folder:
        bench = Bench(args, redis_url, Path(folder))
        rounds = []
        try:
            bench.register()
            for pair in range(args.rounds):
                for webhooks_on in (True, False) if pair % 2 == 0 else (False, True):
                    rounds.append(bench.round(webhooks_on))
        finally:
            bench.close()
    print(json.dumps(summary(args, rounds), indent=2))


if __name__ == "__main__":
    main()
