"""Idle event streams and long-polls against /healthz and commands. Prints JSON.

    .venv/bin/python bench/streams.py [--streams 1000] [--seconds 4] [--rounds 3]

Starts the production server (``risk serve``, gevent workers, the default)
on loopback against $REDIS_URL under a private key prefix (deleted
afterwards), with the per-address stream cap at its default (32). Then, in
``--rounds`` rounds, each:

* without streams: ``GET /healthz`` from one keep-alive client for
  ``--seconds`` (p50, p99), then commands from one client playing its own
  game for ``--seconds`` (``bench/api.py``'s ``Player``: p50, p99);
* with ``--streams`` idle clients held open by a separate process, half
  Server-Sent Event streams and half long-polls (``wait=30``, re-sent when
  they end) on 20 games where nothing happens, spread over source addresses
  127.0.0.2, 127.0.0.3, ... at 25 per address (under the cap): the same two
  measurements.

Each ratio is "with streams ÷ without", per round, then the median. The
targets (issue 13): with 1,000 streams, ``/healthz`` p99 under 100 ms, and
commands keep their latency (ratio near 1).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import secrets
import selectors
import signal
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api import SEATS, Connection, Player, start_server  # bench/api.py

IDLE_GAMES = 20
PER_ADDRESS = 25


def healthz(port: int, seconds: float) -> list[float]:
    connection = Connection(port)
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        status, _, took = connection.call("GET", "/healthz")
        assert status == 200
        latencies.append(took)
    return latencies


def commands(port: int, seconds: float) -> list[float]:
    player = Player(Connection(port))
    deadline = time.perf_counter() + seconds
    latencies = []
    while time.perf_counter() < deadline:
        latencies.append(player.step())
    return latencies


def _measure(port: int, seconds: float) -> dict[str, Any]:
    return {
        "healthz": _percentiles(healthz(port, seconds)),
        "commands": _percentiles(commands(port, seconds)),
    }


def _percentiles(latencies: list[float]) -> dict[str, Any]:
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return {
        "requests": len(latencies),
        "p50_ms": round(cuts[49] * 1000, 2),
        "p99_ms": round(cuts[98] * 1000, 2),
    }


# -- the idle clients ----------------------------------------------------------------


def _request(index: int, games: list[tuple[str, int]]) -> bytes:
    game, version = games[index % len(games)]
    if index % 2:
        path = f"/v1/games/{game}/events/stream"
    else:
        path = f"/v1/games/{game}/events?since={version}&wait=30"
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode()


def _open(port: int, index: int, games: list[tuple[str, int]]) -> socket.socket:
    sock = socket.socket()
    sock.bind((f"127.0.0.{2 + index // PER_ADDRESS}", 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(_request(index, games))
    sock.setblocking(False)
    return sock


def hold_streams(port: int, count: int, games: list[tuple[str, int]]) -> None:
    """Open ``count`` idle clients and keep them open (opening again any that ends:
    a long-poll that answered, or a refusal) until SIGTERM."""
    selector = selectors.DefaultSelector()
    for index in range(count):
        selector.register(_open(port, index, games), selectors.EVENT_READ, index)
    stop = False

    def on_term(*_: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    while not stop:
        for key, _ in selector.select(timeout=0.5):
            sock, index = key.fileobj, key.data
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                sock.close()
                selector.register(_open(port, index, games), selectors.EVENT_READ, index)
    for key in list(selector.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def open_on_server(store: redis.Redis, prefix: str) -> int:
    """Streams and waiting long-polls the server holds: its per-address leases."""
    return sum(int(store.zcard(key)) for key in store.scan_iter(f"{prefix}:streams:*"))


def idle_games(port: int) -> list[tuple[str, int]]:
    connection = Connection(port)
    games = []
    for _ in range(IDLE_GAMES):
        status, created, _ = connection.call("POST", "/v1/games", SEATS)
        assert status == 201, created
        games.append((created["game"]["game_id"], created["game"]["version"]))
    return games


def with_streams(
    port: int, count: int, games: list[tuple[str, int]], seconds: float, store: Any
) -> dict[str, Any]:
    store_client, prefix = store
    context = multiprocessing.get_context("fork")
    holder = context.Process(target=hold_streams, args=(port, count, games))
    started = time.perf_counter()
    holder.start()
    try:
        deadline = started + 60
        # A long-poll that ends after its 30 s is sent again: a few are always in between.
        while (held := open_on_server(store_client, prefix)) < count * 0.98:
            if time.perf_counter() > deadline:
                raise SystemExit(f"only {held} of {count} streams open after 60 s")
            time.sleep(0.2)
        took = round(time.perf_counter() - started, 2)
        time.sleep(1)  # let the last opens finish before the clock starts
        measured = _measure(port, seconds)
        held = min(held, open_on_server(store_client, prefix))
    finally:
        holder.terminate()
        holder.join(10)
    return measured | {"streams_open": held, "seconds_to_open": took}


def run(args: argparse.Namespace, port: int, store: tuple[redis.Redis, str]) -> dict[str, Any]:
    games = idle_games(port)
    rounds = []
    for _ in range(args.rounds):
        without = _measure(port, args.seconds)
        loaded = with_streams(port, args.streams, games, args.seconds, store)
        while open_on_server(*store):  # closed streams are noticed within a keep-alive
            time.sleep(0.5)
        rounds.append({"without_streams": without, "with_streams": loaded})

    def median(path: tuple[str, str, str]) -> float:
        return statistics.median(r[path[0]][path[1]][path[2]] for r in rounds)

    def ratio(kind: str, cut: str) -> float:
        pairs = [r["with_streams"][kind][cut] / r["without_streams"][kind][cut] for r in rounds]
        return round(statistics.median(pairs), 2)

    return {
        "setup": {
            "cpus": os.cpu_count(),
            "server_workers": args.workers,
            "worker_class": "gevent",
            "streams": args.streams,
            "seconds_per_run": args.seconds,
            "rounds": args.rounds,
        },
        "healthz_without_streams": {
            "p50_ms": median(("without_streams", "healthz", "p50_ms")),
            "p99_ms": median(("without_streams", "healthz", "p99_ms")),
        },
        "healthz_with_streams": {
            "p50_ms": median(("with_streams", "healthz", "p50_ms")),
            "p99_ms": median(("with_streams", "healthz", "p99_ms")),
        },
        "commands_without_streams": {
            "p50_ms": median(("without_streams", "commands", "p50_ms")),
            "p99_ms": median(("without_streams", "commands", "p99_ms")),
        },
        "commands_with_streams": {
            "p50_ms": median(("with_streams", "commands", "p50_ms")),
            "p99_ms": median(("with_streams", "commands", "p99_ms")),
        },
        "ratio_healthz_p99": ratio("healthz", "p99_ms"),
        "ratio_commands_p50": ratio("commands", "p50_ms"),
        "ratio_commands_p99": ratio("commands", "p99_ms"),
        "streams_open_each_round": [r["with_streams"]["streams_open"] for r in rounds],
        "seconds_to_open_each_round": [r["with_streams"]["seconds_to_open"] for r in rounds],
        "targets": {"healthz_p99_ms_below": 100, "commands_ratio_near": 1.0},
        "rounds": rounds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"bench-streams-{secrets.token_hex(4)}"
    client = redis.Redis.from_url(url)
    server, port = start_server(url, prefix, args.workers, threads=16)
    try:
        print(json.dumps(run(args, port, (client, prefix)), indent=2))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        for key in client.scan_iter(f"{prefix}:*", count=1000):
            client.delete(key)


if __name__ == "__main__":
    main()
