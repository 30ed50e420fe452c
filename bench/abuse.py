"""Full-size figures of issue 36's abuse cases, against real processes (docs/operations.md).

Each case runs `risk serve` (one gevent worker, as the tests do) and, where it
needs one, `risk worker`, on a private `redis-server` on a free port (AOF,
fsync always, in a temporary directory), and prints one JSON document:

* ``costly``: a 16,000-event running game; 4 clients post its record to
  /v1/records/verify, 4 more ask its summary and record, for ``--seconds``;
  /healthz latencies (p50, p99, max) during it, and before;
* ``slow_readers``: 60 connections ask that record and never read: the API
  worker's RSS before, with them, and after the send timeout dropped them;
* ``flood``: one address creates a game and resigns it, as fast as it can,
  for ``--seconds``: games created before the storage budget refused, and
  Redis's used memory;
* ``tournament``: one POST of 16 random bots, 960 games: the answer, and
  Redis's memory after 20 s;
* ``redis_restart``: Redis killed with -9 while a worker plays all-bot games,
  restarted 2 s later: seconds until every game moves again, worker alive;
* ``analyses`` (issue 54): a person's game against two bots (bot reply p50, p99,
  max) and two games on 2 s clocks (deadline lateness), for ``--seconds`` with no
  analysis, then again while three depth-64 analyses of six-player games run on
  the costly workers (``risk worker``'s children), in the same stack.

    python bench/abuse.py [--seconds 20] [--only costly,flood,analyses]

The tests (tests/e2e/test_load_and_abuse.py) run the same cases scaled down.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis

from riskcore.audit.record import SYSTEM, envelopes
from riskcore.audit.sealing import seal
from riskcore.engine.evolve import fold
from riskcore.simulate import play_game
from service.application.game_log import NO_EVENTS, GameLog
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import Head

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "bench"


def _game_probes() -> Any:
    """bench/game_probes.py, loaded from its file (as the e2e test loads it)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_game_probes", ROOT / "bench" / "game_probes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    def __init__(self, directory: Path) -> None:
        self.directory, self.port = directory, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.directory),
                "--maxmemory",
                "512mb",
                "--maxmemory-policy",
                "noeviction",
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        for _ in range(300):
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise SystemExit("redis-server did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


@contextmanager
def stack(env_extra: dict[str, str], worker: bool = False) -> Iterator[tuple[str, Redis, dict]]:
    directory = Path(tempfile.mkdtemp(prefix="risk-abuse-"))
    store = Redis(directory)
    store.start()
    port = free_port()
    env = dict(os.environ, REDIS_URL=store.url, RISK_KEY_PREFIX=PREFIX, RISK_LOG_FORMAT="text")
    env.update(env_extra)
    processes: dict[str, subprocess.Popen[bytes]] = {}
    log = open(directory / "processes.log", "wb")  # noqa: SIM115
    command = [sys.executable, "-m", "riskcli"]
    serve = [*command, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    processes["api"] = subprocess.Popen(serve, cwd=ROOT, env=env, stdout=log, stderr=log)
    if worker:
        processes["worker"] = subprocess.Popen(
            [*command, "worker", "--log-level", "WARNING"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        yield url, store, processes
    finally:
        for process in processes.values():
            process.send_signal(signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        store.stop()
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


def call(
    method: str,
    url: str,
    body: Any = None,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 120,
) -> tuple[int, Any]:
    payload = data if data is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=payload, method=method, headers=headers or {})
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read()
            return answer.status, raw
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def healthz(url: str, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        call("GET", url + "/healthz", timeout=60)
        latencies.append(time.perf_counter() - started)
        time.sleep(0.05)
    return latencies


def figures(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


class Passive:
    name, version = "passive", "1"

    def choose(self, view: Any, actions: Any, rng: Any) -> dict[str, Any]:
        by_type = {action["command"]["type"]: action for action in reversed(actions)}
        for kind in ("claim_territory", "place_armies", "trade_cards", "defend", "occupy"):
            if kind in by_type:
                return dict(by_type[kind]["command"])
        if "end_phase" in by_type:
            return {"type": "end_phase"}
        return dict(actions[0]["command"])


def long_game(store_url: str, commands: int = 12_000) -> tuple[str, int]:
    """A running game of ~16,000 events, appended 2,000 at a time."""
    client = redis.Redis.from_url(store_url)
    result = play_game(
        [Passive() for _ in range(3)], seed=bytes(32), game_id="long", max_commands=commands
    )
    log = GameLog(EventStore(client, KeySpace(PREFIX)))
    record_format = fold(result.events[: result.opening]).record_format
    head = NO_EVENTS
    for start in range(0, len(result.events), 2000):
        wrapped = envelopes(
            result.events[start : start + 2000],
            first_version=head.version + 1,
            time_ms=1_764_000_000_000,
            actor=SYSTEM,
        )
        stored = log.append(
            "long",
            head,
            seal(wrapped, bytes(32), "long"),
            seed=bytes(32) if head.version == 0 else None,
            record_format=record_format,
        )
        head = Head(stored.last_version, stored.head_hash)
    log.keep_snapshots("long", head.version - 1, head.version, fold(result.events))
    return "long", len(result.events)


def hammer(clients: list[Callable[[], int]], seconds: float) -> dict[int, int]:
    stop, answers, lock = threading.Event(), dict[int, int](), threading.Lock()

    def loop(client: Callable[[], int]) -> None:
        while not stop.is_set():
            status = client()
            with lock:
                answers[status] = answers.get(status, 0) + 1

    threads = [threading.Thread(target=loop, args=(c,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(120)
    return answers


def costly(seconds: float) -> dict[str, Any]:
    """The costly case with the helper at the server's priority, then at the default
    niceness (``RISK_OFFLOAD_NICE``), one after the other: what the niceness buys."""
    return {f"offload_nice_{nice}": costly_at(seconds, nice) for nice in (0, 10)}


def costly_at(seconds: float, nice: int) -> dict[str, Any]:
    limits = {"RISK_RATE_IP": "off", "RISK_COSTLY_IP": "off", "RISK_OFFLOAD_NICE": str(nice)}
    with stack(limits) as (url, store, _):
        game, events = long_game(store.url)
        _, record = call("GET", f"{url}/v1/games/{game}/record")
        before = figures(healthz(url, 40))
        ndjson = {"Content-Type": "application/x-ndjson"}
        verify = lambda: call("POST", f"{url}/v1/records/verify", data=record, headers=ndjson)[0]  # noqa: E731
        summary = lambda: call("GET", f"{url}/v1/games/{game}/summary")[0]  # noqa: E731
        download = lambda: call("GET", f"{url}/v1/games/{game}/record")[0]  # noqa: E731
        during: list[float] = []
        probe = threading.Thread(target=lambda: during.extend(healthz(url, int(seconds * 10))))
        probe.start()
        answers = hammer([verify] * 4 + [summary] * 2 + [download] * 2, seconds)
        probe.join()
        return {
            "events": events,
            "record_bytes": len(record),
            "healthz_before": before,
            "healthz_during": figures(during),
            "answers": answers,
        }


def worker_rss(processes: dict[str, subprocess.Popen[bytes]]) -> int:
    master = processes["api"].pid
    child = Path(f"/proc/{master}/task/{master}/children").read_text().split()[0]
    status = Path(f"/proc/{child}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")))


def slow_readers(count: int = 60) -> dict[str, Any]:
    with stack({"RISK_RATE_IP": "off", "RISK_SEND_TIMEOUT": "30"}) as (url, store, processes):
        game, _ = long_game(store.url)
        call("GET", f"{url}/v1/games/{game}/record")
        before = worker_rss(processes)
        port = int(url.rsplit(":", 1)[1])
        sockets = []
        for _ in range(count):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.sendall(f"GET /v1/games/{game}/record HTTP/1.1\r\nHost: b\r\n\r\n".encode())
            sockets.append(sock)
        time.sleep(10)
        held = worker_rss(processes)
        health = figures(healthz(url, 20))
        time.sleep(25)  # past the send timeout
        dropped = worker_rss(processes)
        for sock in sockets:
            sock.close()
        return {
            "clients": count,
            "rss_kb_before": before,
            "rss_kb_with_clients": held,
            "rss_kb_after_send_timeout": dropped,
            "healthz_with_clients": health,
        }


def flood(seconds: float) -> dict[str, Any]:
    with stack({"RISK_RATE_IP": "off", "RISK_GAMES_PER_ADDRESS": "1000"}) as (url, store, _):
        client = redis.Redis.from_url(store.url)
        before = int(client.info("memory")["used_memory"])
        created, refused, codes = 0, 0, {}
        deadline = time.monotonic() + seconds
        seats = {
            "seats": [{"kind": "human"}] * 3,
            "rules": {"setup": "deal", "starting_armies": 14},
        }
        while time.monotonic() < deadline:
            status, raw = call("POST", f"{url}/v1/games", seats)
            if status != 201:
                refused += 1
                code = json.loads(raw).get("code")
                codes[code] = codes.get(code, 0) + 1
                continue
            answer = json.loads(raw)
            created += 1
            game, tokens = answer["game"]["game_id"], list(answer["tokens"].values())
            for token in tokens[1:]:
                call(
                    "POST",
                    f"{url}/v1/games/{game}/commands",
                    {"type": "resign"},
                    headers={"Authorization": f"Bearer {token}"},
                )
        after = int(client.info("memory")["used_memory"])
        return {
            "seconds": seconds,
            "created": created,
            "refused": refused,
            "codes": codes,
            "used_memory_growth_bytes": after - before,
            "keys": int(client.dbsize()),
        }


def tournament() -> dict[str, Any]:
    with stack({"RISK_RATE_IP": "off"}, worker=True) as (url, store, _):
        client = redis.Redis.from_url(store.url)
        before = int(client.info("memory")["used_memory"])
        entrants = [{"bot": "random"} for _ in range(16)]
        status, raw = call(
            "POST",
            f"{url}/v1/tournaments",
            {"entrants": entrants, "players": 2, "format": "games_per_pairing", "games": 8},
        )
        time.sleep(20)
        after = int(client.info("memory")["used_memory"])
        answer = json.loads(raw)
        total = answer.get("tournament", {}).get("games_total")
        return {
            "status": status,
            "code": answer.get("code"),
            "games_total": total,
            "used_memory_growth_bytes": after - before,
        }


def redis_restart() -> dict[str, Any]:
    with stack({"RISK_RATE_IP": "off"}, worker=True) as (url, store, processes):
        seats = {"seats": [{"kind": "bot", "level": "medium"} for _ in range(3)]}
        games = [
            json.loads(call("POST", f"{url}/v1/games", seats)[1])["game"]["game_id"]
            for _ in range(4)
        ]

        def versions() -> dict[str, int | None]:
            found: dict[str, int | None] = {}
            for game in games:
                try:
                    status, raw = call("GET", f"{url}/v1/games/{game}", timeout=5)
                    found[game] = json.loads(raw)["version"] if status == 200 else None
                except OSError:
                    found[game] = None
            return found

        time.sleep(5)
        store.kill()
        time.sleep(2)
        store.start()
        restarted = time.monotonic()
        first = versions()
        while any(v is None for v in first.values()):
            first = versions()
        moved: set[str] = set()
        while len(moved) < len(games) and time.monotonic() - restarted < 60:
            now = versions()
            moved |= {g for g in games if (now[g] or 0) > (first[g] or 0)}
            time.sleep(0.2)
        return {
            "games": len(games),
            "moved": len(moved),
            "seconds_until_all_moved": round(time.monotonic() - restarted, 1),
            "worker_alive": processes["worker"].poll() is None,
        }


def analyses(seconds: float) -> dict[str, Any]:
    """Bot replies and clock lateness without analyses, then with three deep ones running."""
    from service.application.games import GameService

    probes = _game_probes()
    limits = {"RISK_RATE_IP": "off", "RISK_COSTLY_IP": "off", "RISK_ANALYSES_PENDING": "0"}
    with stack(limits, worker=True) as (url, store, _):
        service = GameService(redis.Redis.from_url(store.url), KeySpace(PREFIX))
        big = probes.finished_games(service, 3, players=6, min_events=3000)
        without = probes.measure(url, service, seconds)
        answers = probes.start_analyses(url, big, 64)
        time.sleep(2)
        running = [probes.analysis(url, g, 64)["status"] for g in big]
        with_analyses = probes.measure(url, service, seconds)
        after = [probes.analysis(url, g, 64) for g in big]
        return {
            "seconds": seconds,
            "without_analyses": without,
            "with_analyses": with_analyses,
            "analyses": {
                "answers": answers,
                "status_at_start": running,
                "progress_at_end": [f"{a['status']} {a['done']}/{a['total']}" for a in after],
            },
        }


CASES: dict[str, Callable[[float], dict[str, Any]]] = {
    "costly": costly,
    "slow_readers": lambda _: slow_readers(),
    "flood": flood,
    "tournament": lambda _: tournament(),
    "redis_restart": lambda _: redis_restart(),
    "analyses": analyses,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--only", default=",".join(CASES))
    args = parser.parse_args()
    results = {name: CASES[name](args.seconds) for name in args.only.split(",")}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
