"""Webhook delivery latency (issue 50): from a game's end to its signed game.finished.

Prints one JSON object. Starts ``risk serve --workers 1``, ``--worker-processes``
game workers (1) and ``--webhook-workers`` webhook workers (1,
``risk worker --webhooks``) on a fresh SQLite database, and a local receiver;
optionally ``--bot-games`` games of 4 random bots running meanwhile (0), as
load. Then ``--endpoints`` accounts (100) each register an endpoint of their
own (a path of the receiver) for ``game.finished``, make a challenge against
an easy bot and resign it at once; the latency of each is from the resign's
answer to the receiver getting the game's ``game.finished`` (checked with
``standardwebhooks``' ``Webhook.verify``). Reports p50, p99 and max in ms.

    .venv/bin/python bench/webhooks.py [--endpoints 100] [--bot-games 0]
        [--webhook-workers 1] [--worker-processes 1]

Needs REDIS_URL (a Redis it may write to; its keys have a prefix of their own).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
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
from standardwebhooks.webhooks import Webhook

from service.http.http_json import call
from service.store.database import migrate
from service.store.keys import KeySpace

ROOT = Path(__file__).resolve().parent.parent
RISK = [sys.executable, "-m", "riskcli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Receiver:
    """Keeps (arrival time, verified payload) per path; answers 200."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.arrived: dict[str, tuple[float, dict[str, Any]]] = {}
        self.bad = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                at = time.monotonic()
                try:
                    payload = Webhook(owner.secrets[self.path]).verify(body, dict(self.headers))
                    owner.arrived.setdefault(payload["data"]["game_id"], (at, payload))
                except Exception:
                    owner.bad += 1
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class Stack:
    def __init__(self, env: dict[str, str], workers: int, webhook_workers: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env
        self.processes: list[subprocess.Popen[bytes]] = []
        self.start("serve", "--bind", f"127.0.0.1:{self.port}", "--workers", "1")
        for _ in range(workers):
            self.start("worker", "--log-level", "WARNING")
        for _ in range(webhook_workers):
            self.start("worker", "--webhooks", "--log-level", "WARNING")

    def start(self, *args: str) -> None:
        self.processes.append(
            subprocess.Popen(
                [*RISK, *args],
                cwd=ROOT,
                env=self.env,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        )

    def wait_ready(self, client: redis.Redis, keys: KeySpace, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ready = call("GET", self.url + "/readyz")[0] == 200
                groups = client.xinfo_groups(keys.outboxes()[0])
                if ready and any(g["name"] in (b"webhooks", "webhooks") for g in groups):
                    return
            except (OSError, redis.ResponseError):
                pass
            time.sleep(0.2)
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


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def run(args: argparse.Namespace, redis_url: str, folder: Path) -> dict[str, Any]:
    prefix = f"bench-webhooks-{uuid.uuid4().hex[:8]}"
    database = f"sqlite:///{folder / 'risk.db'}"
    migrate(database)
    env = os.environ | {
        "REDIS_URL": redis_url,
        "RISK_KEY_PREFIX": prefix,
        "RISK_DATABASE_URL": database,
        "RISK_RATE_TOKEN": "off",
        "RISK_RATE_IP": "off",
        "RISK_GAMES_PER_ADDRESS": "0",
        "RISK_WEBHOOK_ALLOW_PRIVATE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    hooks = Receiver()
    stack = Stack(env, args.worker_processes, args.webhook_workers)
    client = redis.Redis.from_url(redis_url)
    try:
        stack.wait_ready(client, KeySpace(prefix))
        bots = {"seats": [{"kind": "bot", "bot": "random"} for _ in range(4)]}
        for _ in range(args.bot_games):
            call("POST", stack.url + "/v1/games", bots)
        tokens = []
        for index in range(args.endpoints):
            status, made = call("POST", stack.url + "/v1/accounts", {"name": f"bench{index}"})
            assert status == 201, made
            path = f"/hooks/{index}"
            body = {"url": hooks.url + path, "events": ["game.finished"]}
            status, hook = call("POST", stack.url + "/v1/webhooks", body, made["token"])
            assert status == 201, hook
            hooks.secrets[path] = hook["secret"]
            tokens.append(made["token"])
        time.sleep(2.5)  # the feed's cache of accounts with webhooks (2 s)
        ended: dict[str, float] = {}
        for token in tokens:
            _, made = call("POST", stack.url + "/v1/challenges", {"bots": ["easy"]}, token)
            game = made["game"]["game_id"]
            resign = {"type": "resign"}
            call("POST", f"{stack.url}/v1/games/{game}/commands", resign, token)
            ended[game] = time.monotonic()
        deadline = time.monotonic() + args.timeout
        while len(hooks.arrived) < len(ended) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stack.stop()
        hooks.server.shutdown()
        for key in client.scan_iter(f"{prefix}*", count=1000):
            client.delete(key)
    latencies = [(hooks.arrived[g][0] - t) * 1000 for g, t in ended.items() if g in hooks.arrived]
    return {
        "endpoints": args.endpoints,
        "bot_games": args.bot_games,
        "webhook_workers": args.webhook_workers,
        "delivered": len(latencies),
        "bad_signatures": hooks.bad,
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1) if latencies else None,
            "p99": round(percentile(latencies, 0.99), 1) if latencies else None,
            "max": round(max(latencies), 1) if latencies else None,
        },
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=100)
    parser.add_argument("--bot-games", type=int, default=0, help="bot games running meanwhile")
    parser.add_argument("--webhook-workers", type=int, default=1)
    parser.add_argument("--worker-processes", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for all")
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(args, redis_url, Path(folder)), indent=2))


if __name__ == "__main__":
    main()
