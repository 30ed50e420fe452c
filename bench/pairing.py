"""Challenges and the quick-pairing queue (issue 49): what a game made by them costs,
against a plain creation in the same run, and how soon bots fill a wait. Prints JSON.

    .venv/bin/python bench/pairing.py [--rounds 7] [--games 10] [--wait 1]

Starts ``risk serve --workers 1`` and one ``risk worker`` (with its relay) on a fresh
SQLite database and a private key prefix of $REDIS_URL (deleted afterwards). Each
round, interleaved, makes ``--games`` games each way:

* ``create`` (the baseline): ``POST /v1/games`` with three human seats;
* ``challenge``: ``POST /v1/challenges`` naming two accounts, and both accepting
  (the last acceptance makes the game): the three requests;
* ``pairing``: three accounts joining one bucket of the queue (the third join
  makes the game): the three requests;

and one ``fill``: a seek with ``--wait`` seconds, from its ``fill_at`` to the first
``GET /v1/pairing/{id}`` (polled every 20 ms) that says ``paired``: the relay's
round, the job's way through the queue and the game's making.

Reported: ms per game (median over rounds of each round's median) and, per round,
the ratio of each to ``create`` (median over rounds); the fill delay's p50 and max.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import redis

from service.http.http_json import call
from service.store.database import migrate

ROOT = Path(__file__).resolve().parent.parent
RISK = [sys.executable, "-m", "riskcli"]


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ok(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    status, answer = call(method, url, body, token)
    assert 200 <= status < 300, (method, url, status, answer)
    return answer


class Stack:
    """``risk serve`` and one ``risk worker``, stopped by ``stop``."""

    def __init__(self, env: dict[str, str]) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        bind = self.url.removeprefix("http://")
        self.processes = [
            self._start(env, "serve", "--bind", bind, "--workers", "1"),
            self._start(env, "worker", "--log-level", "WARNING"),
        ]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if call("GET", self.url + "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit("the stack never became ready")

    @staticmethod
    def _start(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*RISK, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, start_new_session=True
        )

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


def timed(make: Any) -> float:
    started = time.perf_counter()
    make()
    return (time.perf_counter() - started) * 1000


def round_of(url: str, tokens: list[str], games: int, wait: int) -> dict[str, Any]:
    """One round: ``games`` games each way, interleaved, and one fill."""
    ada, bo, cy = tokens
    humans = {"seats": [{"kind": "human"}] * 3}
    times: dict[str, list[float]] = {"create": [], "challenge": [], "pairing": []}

    def challenge() -> None:
        made = ok("POST", f"{url}/v1/challenges", {"opponents": ["Bo", "Cy"]}, ada)
        ok("POST", f"{url}/v1/challenges/{made['challenge']['id']}/accept", {}, bo)
        answered = ok("POST", f"{url}/v1/challenges/{made['challenge']['id']}/accept", {}, cy)
        assert answered["game"] is not None

    def pairing() -> None:
        for token in tokens:
            last = ok("POST", f"{url}/v1/pairing", {"players": 3, "wait": 600}, token)
        assert last["seek"]["status"] == "paired"

    for _ in range(games):
        times["create"].append(timed(lambda: ok("POST", f"{url}/v1/games", humans)))
        times["challenge"].append(timed(challenge))
        times["pairing"].append(timed(pairing))
    seek = ok("POST", f"{url}/v1/pairing", {"players": 4, "wait": wait}, ada)["seek"]
    fill_at = datetime.fromisoformat(seek["fill_at"]).timestamp()
    while seek["status"] != "paired":
        time.sleep(0.02)
        seek = ok("GET", f"{url}/v1/pairing/{seek['id']}")["seek"]
    medians = {kind: statistics.median(values) for kind, values in times.items()}
    return {"ms": medians, "fill_s": time.time() - fill_at}


def run(args: argparse.Namespace, redis_url: str, folder: Path) -> dict[str, Any]:
    prefix = f"bench-pairing-{uuid.uuid4().hex[:8]}"
    database = f"sqlite:///{folder / 'risk.db'}"
    migrate(database)
    env = os.environ | {
        "REDIS_URL": redis_url,
        "RISK_KEY_PREFIX": prefix,
        "RISK_DATABASE_URL": database,
        "RISK_RATE_TOKEN": "off",
        "RISK_RATE_IP": "off",
        "RISK_GAMES_PER_ADDRESS": "0",
        "RISK_GAMES_PER_TOKEN": "0",
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(env)
    client = redis.Redis.from_url(redis_url)
    rounds = []
    try:
        names = ("Ada", "Bo", "Cy")
        tokens = [ok("POST", f"{stack.url}/v1/accounts", {"name": n})["token"] for n in names]
        for _ in range(args.rounds):
            rounds.append(round_of(stack.url, tokens, args.games, args.wait))
    finally:
        stack.stop()
        for key in client.scan_iter(f"{prefix}*", count=1000):
            client.delete(key)
    return summary(rounds, args)


def summary(rounds: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    def median_of(kind: str) -> float:
        return round(statistics.median(r["ms"][kind] for r in rounds), 2)

    def ratio(kind: str) -> float:
        return round(statistics.median(r["ms"][kind] / r["ms"]["create"] for r in rounds), 2)

    fills = sorted(r["fill_s"] for r in rounds)
    return {
        "rounds": args.rounds,
        "games_per_round": args.games,
        "ms_per_game": {kind: median_of(kind) for kind in ("create", "challenge", "pairing")},
        "ratio_to_create": {kind: ratio(kind) for kind in ("challenge", "pairing")},
        "fill_after_wait_s": {
            "wait": args.wait,
            "p50": round(statistics.median(fills), 3),
            "max": round(fills[-1], 3),
        },
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=10, help="games each way per round")
    parser.add_argument("--wait", type=int, default=1, help="the fill seek's wait, seconds")
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(args, redis_url, Path(folder)), indent=2))


if __name__ == "__main__":
    main()
