"""Sixteen HTTP clients playing one seat at once against `risk serve`, with If-Match.

The production server (gunicorn, two worker processes, threads) serves a
three-player game. Sixteen clients hold p1's token; each loops: read the
legal actions (and their version), send one of them with ``If-Match`` at
that version. Another client plays p2 and p3 the same way. Whatever the
interleaving, each version can be won once: every answer is 200 or 409,
the accepted batches tile the event stream exactly (nothing lost, nothing
twice), every 409 names a newer version, and the contention was real.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from riskcore.audit.record import decode_envelope
from service.application.games import GameService
from service.store.keys import KeySpace

ROOT = Path(__file__).resolve().parents[3]
# The clients play until seat p1 has won ENOUGH versions, each of them contended
# by a losing client too, or until SECONDS pass (a bound for a loaded machine:
# at a load of 15 on 2 cores, 15 s gave only 16 such versions).
CLIENTS, SECONDS, ENOUGH = 16, 90.0, 20


@dataclass(frozen=True)
class Answer:
    seat: str
    if_match: int
    status: int
    body: dict[str, Any]


@dataclass
class Log:
    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def add(self, answer: Answer) -> None:
        with self.lock:
            self.answers.append(answer)
            wins = sum(1 for a in self.answers if a.seat == "p1" and a.status == 200)
            contended = {a.if_match for a in self.answers if a.seat == "p1" and a.status == 409}
        if wins >= ENOUGH and len(contended) >= ENOUGH:
            self.stop.set()


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token = token

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        sent = {"Content-Type": "application/json"}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        data = None if body is None else json.dumps(body)
        self.connection.request(method, path, data, {**sent, **headers})
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null")


@pytest.fixture
def server(redis_url: str, key_prefix: str, redis: Any, tmp_path: Path) -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    env = os.environ | {
        "REDIS_URL": redis_url,
        "RISK_KEY_PREFIX": key_prefix,
        "RISK_RATE_TOKEN": "off",
        "RISK_RATE_IP": "off",
        "RISK_GAMES_PER_ADDRESS": "0",
    }
    command = [sys.executable, "-m", "riskcli", "serve"]
    log = tmp_path / "serve.log"
    with open(log, "wb") as output:  # a file, not a pipe: a full pipe would stall the server
        process = subprocess.Popen(
            [*command, "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "8"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=output,
            start_new_session=True,
        )
    try:
        _wait_ready(port, process)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
        errors = log.read_text()
        assert "Traceback" not in errors, errors[-3000:]


def _wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, "risk serve exited"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        try:
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)
        finally:
            connection.close()
    raise AssertionError("risk serve never became ready")


def play(client: Client, seats: dict[str, str], game: str, log: Log, seed: int) -> None:
    """Read the legal actions of each seat in turn; send one with If-Match at their version."""
    rng = random.Random(seed)
    deadline = time.monotonic() + SECONDS
    try:
        _loop(client, seats, game, log, rng, deadline)
    finally:
        client.connection.close()


def _loop(
    client: Client, seats: dict[str, str], game: str, log: Log, rng: random.Random, deadline: float
) -> None:
    while not log.stop.is_set() and time.monotonic() < deadline:
        for seat, token in seats.items():
            client.token = token
            status, listed = client.call("GET", f"/v1/games/{game}/legal-actions")
            assert status == 200, listed
            actions = [a for a in listed["actions"] if a["command"]["type"] != "resign"]
            if not actions:
                continue
            body = rng.choice(actions)["command"]
            version = listed["version"]
            path = f"/v1/games/{game}/commands"
            status, answer = client.call("POST", path, body, **{"If-Match": f'"{version}"'})
            log.add(Answer(seat, version, status, answer))


def test_one_winner_per_version_and_nothing_lost_or_duplicated(
    server: int, redis: Any, key_prefix: str
) -> None:
    setup = Client(server, "")
    rules = {"setup": "deal", "starting_armies": 14}
    status, created = setup.call(
        "POST", "/v1/games", {"seats": [{"kind": "human"}] * 3, "rules": rules}
    )
    setup.connection.close()
    assert status == 201, created
    game, tokens = created["game"]["game_id"], created["tokens"]
    start = created["game"]["version"]
    log = Log()
    threads = [
        threading.Thread(target=play, args=(Client(server, ""), {"p1": tokens["p1"]}, game, log, n))
        for n in range(CLIENTS)
    ]
    others = {"p2": tokens["p2"], "p3": tokens["p3"]}
    threads.append(threading.Thread(target=play, args=(Client(server, ""), others, game, log, 99)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(SECONDS + 30)

    assert {a.status for a in log.answers} <= {200, 409}, {a.status for a in log.answers}
    stored = GameService(redis, KeySpace(key_prefix)).store.read(game)
    _accepted_batches_tile_the_stream(log.answers, stored, start)
    conflicts = [a for a in log.answers if a.status == 409]
    assert all(a.body["code"] == "version_conflict" for a in conflicts)
    assert all(a.body["current_version"] > a.if_match for a in conflicts)
    contended = {a.if_match for a in conflicts if a.seat == "p1"}
    wins = [a for a in log.answers if a.seat == "p1" and a.status == 200]
    assert len(wins) >= ENOUGH and len(contended) >= ENOUGH, (len(wins), len(contended))


def _accepted_batches_tile_the_stream(answers: list[Answer], stored: list[Any], start: int) -> None:
    accepted = sorted((a for a in answers if a.status == 200), key=lambda a: a.if_match)
    wins_per_version = [a.if_match for a in accepted]
    assert len(wins_per_version) == len(set(wins_per_version)), "a version was won twice"
    expected_next = start
    for answer in accepted:
        versions = [e["version"] for e in answer.body["events"]]
        assert answer.if_match == expected_next, "a batch was lost or came from nowhere"
        assert versions == list(range(expected_next + 1, answer.body["version"] + 1))
        for event in answer.body["events"]:
            record = decode_envelope(stored[event["version"] - 1].payload)
            assert (record.actor, record.event.TYPE) == (answer.seat, event["event"]["type"])
        expected_next = answer.body["version"]
    assert expected_next == len(stored), "the stream holds events no client was told about"
