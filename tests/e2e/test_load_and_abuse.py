"""Load and abuse against a real `risk serve` (issue 13, items 10 and 12; issue 36).

Idle event streams and long-polls must not starve `/healthz` (forty of them
used to take every thread of the gthread pool), a client that goes away is
noticed within one keep-alive, one address holds a bounded number of
them, and bodies are refused whole when too large or too slow, chunked or
not; gunicorn's own errors answer as problems.
"""

from __future__ import annotations

import collections
import contextlib
import json
import random
import socket
import statistics
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis as redis_lib

from riskcore.audit.record import SYSTEM, envelopes
from riskcore.audit.sealing import seal
from riskcore.bots.base import get_bot
from riskcore.engine.evolve import fold
from riskcore.simulate import play_game
from service.application.game_log import NO_EVENTS, GameLog
from service.application.records import append_simulated
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import Head
from tests.e2e.conftest import Stack, free_port, http, running_stack, wait_ready
from tests.private_redis import private_redis

pytestmark = pytest.mark.e2e
SEATS = {"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]}


@contextmanager
def server(env: dict[str, str], logs: Path, **overrides: str) -> Iterator[Stack]:
    port = free_port()
    stack = Stack(env | overrides, url=f"http://127.0.0.1:{port}", logs=logs)
    stack.start("api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1")
    try:
        wait_ready(stack.url)
        yield stack
    finally:
        stack.stop_all()


def port_of(stack: Stack) -> int:
    return int(stack.url.rsplit(":", 1)[1])


def open_wait(stack: Stack, path: str, source: str = "127.0.0.1") -> socket.socket:
    """A raw client that sends one GET and then just stays connected."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port_of(stack)))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
    return sock


def held(redis: redis_lib.Redis, env: dict[str, str]) -> int:
    """Open streams and waiting long-polls, as the server counts them (its leases)."""
    prefix = env["RISK_KEY_PREFIX"]
    return sum(int(redis.zcard(key)) for key in redis.scan_iter(f"{prefix}:streams:*"))


def eventually(check: Any, seconds: float) -> float:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, "not within the time"
        time.sleep(0.05)
    return time.monotonic() - started


def new_game(stack: Stack) -> tuple[str, int]:
    status, created = http("POST", f"{stack.url}/v1/games", SEATS)
    assert status == 201, created
    return created["game"]["game_id"], created["game"]["version"]


def raw(stack: Stack, request: bytes, pause: float = 0) -> tuple[int, dict[str, str], Any]:
    """Send ``request`` as it is (with ``pause`` s before the last 10 bytes of its
    body); the answer's status, headers and body."""
    with socket.create_connection(("127.0.0.1", port_of(stack)), timeout=20) as sock:
        half = len(request) - 10 if pause else len(request)
        sock.sendall(request[:half])
        if pause:
            time.sleep(pause)
            with contextlib.suppress(OSError):  # the server may have given up on us first
                sock.sendall(request[half:])
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < _length(answer):
            part = sock.recv(65536)
            if not part:
                break
            answer += part
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body) if body else None


def _length(answer: bytes) -> int:
    head, _, _ = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(head) + 4 + int(line.split(b":")[1])
    return 0


def test_healthz_stays_fast_with_200_idle_streams_and_dead_ones_are_noticed(
    stack_env: dict[str, str], tmp_path: Path, redis: redis_lib.Redis
) -> None:
    """200 idle clients (half streams, half long-polls) over 8 addresses, more than
    the old thread pool had threads many times over; then all of them vanish.

    `/healthz` with the streams held is compared with `/healthz` before them, in
    the same run: the machine's load moves both (a fixed 0.1 s failed at a load
    of 15 on 2 cores while nothing was starved)."""
    with server(stack_env, tmp_path, RISK_SSE_KEEPALIVE="1") as stack:
        slowloris = socket.create_connection(("127.0.0.1", port_of(stack)))
        slowloris.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")  # and never the rest
        games = [new_game(stack) for _ in range(4)]
        before = healthz_latencies(stack, 20)
        clients = []
        try:
            for index in range(200):
                game, version = games[index % len(games)]
                path = (
                    f"/v1/games/{game}/events/stream"
                    if index % 2
                    else f"/v1/games/{game}/events?since={version}&wait=30"
                )
                clients.append(open_wait(stack, path, source=f"127.0.0.{2 + index // 25}"))
            eventually(lambda: held(redis, stack_env) == 200, 20)
            latencies = healthz_latencies(stack, 50)
            assert max(latencies) < 1, max(latencies)
            median, baseline = statistics.median(latencies), statistics.median(before)
            assert median < max(0.1, 3 * baseline), (sorted(latencies), sorted(before))
        finally:
            for client in clients:
                client.close()
        # Within one keep-alive (1 s here) of the close, with room for a busy machine.
        eventually(lambda: held(redis, stack_env) == 0, 4)
        slowloris.settimeout(8)  # headers have 5 s (gunicorn's keep-alive) to arrive
        assert slowloris.recv(100) == b"", "a client that never ends its headers was kept"
        slowloris.close()


def healthz_latencies(stack: Stack, count: int, timeout: float = 2) -> list[float]:
    """Seconds each of ``count`` consecutive `/healthz` requests took (each answered 200)."""
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        status, _ = http("GET", f"{stack.url}/healthz", timeout=timeout)
        latencies.append(time.perf_counter() - started)
        assert status == 200
    return latencies


def test_one_address_holds_a_bounded_number_of_streams(
    stack_env: dict[str, str], tmp_path: Path, redis: redis_lib.Redis
) -> None:
    with server(stack_env, tmp_path, RISK_STREAMS_PER_ADDRESS="3", RISK_SSE_KEEPALIVE="1") as stack:
        game, version = new_game(stack)
        stream = f"/v1/games/{game}/events/stream"
        clients = [open_wait(stack, stream) for _ in range(2)]
        clients.append(open_wait(stack, f"/v1/games/{game}/events?since={version}&wait=30"))
        eventually(lambda: held(redis, stack_env) == 3, 10)
        status, problem = http("GET", f"{stack.url}{stream}")
        assert status == 429 and problem["code"] == "too_many_streams", problem
        status, problem = http("GET", f"{stack.url}/v1/games/{game}/events?since=0&wait=5")
        assert (status, problem.get("code")) == (429, "too_many_streams")
        status, _ = http("GET", f"{stack.url}/v1/games/{game}/events?since=0")
        assert status == 200  # a poll that does not wait holds nothing
        assert held(redis, stack_env) == 3
        other = open_wait(stack, stream, source="127.0.0.9")  # another address is not counted
        eventually(lambda: held(redis, stack_env) == 4, 10)
        clients[0].close()
        eventually(lambda: held(redis, stack_env) == 3, 4)
        clients.append(open_wait(stack, stream))  # the closed one's slot is free again
        eventually(lambda: held(redis, stack_env) == 4, 10)
        for client in [*clients, other]:
            client.close()


def test_bodies_over_the_limit_or_too_slow_are_refused_and_errors_are_problems(
    stack_env: dict[str, str], tmp_path: Path, redis: redis_lib.Redis
) -> None:
    with server(stack_env, tmp_path, RISK_BODY_TIMEOUT="1") as stack:
        before = len(list(redis.scan_iter(f"{stack_env['RISK_KEY_PREFIX']}:*:info")))
        # A game, then 200 KB of white space: chunked, it was cut at 64 KB and accepted (201).
        body = json.dumps(SEATS).encode() + b" " * 200_000
        chunked = b"".join(
            b"%x\r\n%s\r\n" % (len(body[i : i + 8192]), body[i : i + 8192])
            for i in range(0, len(body), 8192)
        )
        head = (
            b"POST /v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        status, headers, problem = raw(stack, head + chunked + b"0\r\n\r\n")
        assert (status, problem.get("code")) == (413, "body_too_large"), problem
        assert headers["Content-Type"] == "application/problem+json"
        sized = head.replace(b"Transfer-Encoding: chunked", b"Content-Length: %d" % len(body))
        status, _, problem = raw(stack, sized + body)
        assert (status, problem.get("code")) == (413, "body_too_large")
        small = json.dumps(SEATS).encode()
        slow = head.replace(b"Transfer-Encoding: chunked", b"Content-Length: %d" % len(small))
        status, _, problem = raw(stack, slow + small, pause=2)
        assert (status, problem.get("code")) == (408, "body_timeout"), problem
        assert len(list(redis.scan_iter(f"{stack_env['RISK_KEY_PREFIX']}:*:info"))) == before
        status, headers, problem = raw(stack, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")
        assert (status, problem.get("code")) == (414, "uri_too_long")
        assert headers["Content-Type"] == "application/problem+json"
        status, _, problem = raw(
            stack, b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
        )
        assert (status, problem.get("code")) == (431, "header_fields_too_large")
        assert http("GET", f"{stack.url}/healthz")[0] == 200


def call(url: str, token: str, method: str = "GET", body: Any = None, **headers: str) -> Any:
    """(status, body, headers) of one request with the seat's token."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    for name, value in headers.items():
        request.add_header(name.replace("_", "-"), value)
    try:
        with urllib.request.urlopen(request, timeout=40) as response:
            return response.status, json.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def test_the_documented_loop_at_full_speed_is_never_limited_in_a_whole_game(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    """Against two bots: legal actions, a command, a long-poll when idle, as fast as
    the server answers, under limits cut from 600 and 1,200 to 100 a minute so that
    the game's requests (150–400: fewer since the bots' moves come in runs) are more
    than a limit that counted every one."""
    env = stack_env | {"RISK_RATE_TOKEN": "100/60", "RISK_RATE_IP": "100/60"}
    with running_stack(env, tmp_path) as stack:
        seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
        seats.append({"kind": "bot", "bot": "heuristic"})
        status, created = http("POST", f"{stack.url}/v1/games", {"seats": seats})
        assert status == 201, created
        game, token = created["game"]["game_id"], created["tokens"]["p1"]
        base = f"{stack.url}/v1/games/{game}"
        rng, since, requests, statuses = random.Random(7), 0, 0, collections.Counter[int]()
        while True:
            status, legal, _ = call(f"{base}/legal-actions", token)
            requests += 1
            statuses[status] += 1
            assert status == 200, legal
            if legal["actions"]:
                status, _, headers = call(
                    f"{base}/commands",
                    token,
                    "POST",
                    choose(legal["actions"], rng),
                    If_Match=f'"{legal["version"]}"',
                    Idempotency_Key=uuid.uuid4().hex,
                )
                requests += 1
                statuses[status] += 1
                continue
            status, page, headers = call(f"{base}/events?since={since}&wait=25", token)
            requests += 1
            statuses[status] += 1
            assert status == 200, page
            since = page["version"]
            if page["finished"]:
                break
        assert statuses[429] == 0, statuses
        assert requests > 120, requests  # more than the limit, had it counted every request
        assert int(headers["RateLimit-Remaining"]) >= 80, dict(headers)
        for _ in range(200):  # the same look again and again: that is limited
            status, _, headers = call(f"{base}/legal-actions", token)
            if status == 429:
                break
        assert status == 429 and int(headers["Retry-After"]) >= 1


def choose(actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """What examples/http_bot.py does: the forced steps, attacks, else end the phase."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in actions:
        by_type.setdefault(action["command"]["type"], []).append(action)
    for kind in ("claim_territory", "trade_cards", "place_armies", "defend", "occupy", "blitz"):
        if kind in by_type:
            return dict(rng.choice(by_type[kind])["command"])
    if "end_phase" in by_type:
        return {"type": "end_phase"}
    return dict(rng.choice([a for a in actions if a["command"]["type"] != "resign"])["command"])


def stored_long_game(redis: redis_lib.Redis, env: dict[str, str], events: int) -> str:
    """A finished random-bot game of at least ``events`` events, played in process and
    appended straight to the store (a second, not minutes of HTTP commands)."""
    for attempt in range(200):
        seed = attempt.to_bytes(32, "big")
        result = play_game(
            [get_bot("random") for _ in range(3)], seed=seed, game_id=f"long{attempt}"
        )
        if len(result.events) >= events and result.winner:
            return append_simulated(
                EventStore(redis, KeySpace(env["RISK_KEY_PREFIX"])), result, seed
            )
    raise AssertionError(f"no game of {events} events in 200 seeds")


class Passive:
    """A bot that never attacks: its game runs as long as ``max_commands`` lets it."""

    name, version = "passive", "1"

    def choose(self, view: Any, actions: Any, rng: random.Random) -> dict[str, Any]:
        by_type = {action["command"]["type"]: action for action in reversed(actions)}
        for kind in ("claim_territory", "place_armies", "trade_cards", "defend", "occupy"):
            if kind in by_type:
                return dict(by_type[kind]["command"])
        if "end_phase" in by_type:
            return {"type": "end_phase"}
        return dict(actions[0]["command"])


def stored_passive_game(redis: redis_lib.Redis, env: dict[str, str], commands: int) -> str:
    """A running game of ~1.3 events a command, appended 2,000 events at a time with one
    snapshot at its end: 16,000 events in about a second (the bench builds its own)."""
    result = play_game(
        [Passive() for _ in range(3)], seed=bytes(32), game_id="passive", max_commands=commands
    )
    log = GameLog(EventStore(redis, KeySpace(env["RISK_KEY_PREFIX"])))
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
            "passive",
            head,
            seal(wrapped, bytes(32), "passive"),
            seed=bytes(32) if head.version == 0 else None,
            record_format=record_format,
        )
        head = Head(stored.last_version, stored.head_hash)
    log.keep_snapshots("passive", head.version - 1, head.version, fold(result.events))
    return "passive"


def test_costly_requests_run_beside_the_server_so_healthz_stays_fast(
    stack_env: dict[str, str], tmp_path: Path, redis: redis_lib.Redis
) -> None:
    """Four clients posting a long game's record to /v1/records/verify without a pause
    (issue 36, item 1: at 16,768 events /healthz took 14 s). Scaled: a game of 3,000+
    events (~1.3 MB of record); docs/operations.md has the full-size figures."""
    game = stored_long_game(redis, stack_env, 3000)
    with server(stack_env, tmp_path, RISK_COSTLY_IP="1000/60") as stack:
        record = urllib.request.urlopen(f"{stack.url}/v1/games/{game}/record", timeout=60).read()
        assert record.count(b"\n") > 3000
        before = healthz_latencies(stack, 20)
        stop, answers = threading.Event(), collections.Counter[int]()

        def verify() -> None:
            while not stop.is_set():
                request = urllib.request.Request(
                    f"{stack.url}/v1/records/verify",
                    data=record,
                    headers={"Content-Type": "application/x-ndjson"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=60) as answer:
                        answers[answer.status] += 1
                        assert json.loads(answer.read())["ok"] is True
                except urllib.error.HTTPError as error:
                    answers[error.code] += 1

        clients = [threading.Thread(target=verify) for _ in range(4)]
        for client in clients:
            client.start()
        try:
            time.sleep(1)  # every client has sent its first record
            latencies = healthz_latencies(stack, 40, timeout=30)
        finally:
            stop.set()
            for client in clients:
                client.join(90)
        assert answers[200] >= 2 and set(answers) <= {200, 503}, answers
        assert max(latencies) < 0.5, sorted(latencies)
        median, baseline = statistics.median(latencies), statistics.median(before)
        assert median < max(0.1, 3 * baseline), (sorted(latencies), sorted(before))


def api_worker_rss(stack: Stack) -> int:
    """Resident bytes of the API's one gunicorn worker (the master's child)."""
    master = stack.processes["api"].pid
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children
    status = Path(f"/proc/{children[0]}/status").read_text()
    return (
        int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")))
        * 1024
    )


def test_clients_that_never_read_a_record_hold_little_memory_and_are_dropped(
    stack_env: dict[str, str], tmp_path: Path, redis: redis_lib.Redis
) -> None:
    """Thirty connections ask a 16,000-event game's record (5 MB, more than the kernel's
    send buffer takes) and never read (issue 36, item 2: sixty took a worker from 219
    to 674 MB). The record is sent a chunk at a time, so the worker grows by little;
    after the send timeout (1 s here) each is dropped."""
    game = stored_passive_game(redis, stack_env, 12_000)
    with server(stack_env, tmp_path, RISK_SEND_TIMEOUT="1") as stack:
        size = len(urllib.request.urlopen(f"{stack.url}/v1/games/{game}/record", timeout=60).read())
        assert size > 4_500_000
        before = api_worker_rss(stack)
        clients = []
        for _ in range(30):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port_of(stack)))
            sock.sendall(f"GET /v1/games/{game}/record HTTP/1.1\r\nHost: t\r\n\r\n".encode())
            clients.append(sock)
        time.sleep(1.5)  # every response started and stuck on a full socket
        grown = api_worker_rss(stack) - before
        assert grown < 40 * 2**20, f"the worker grew by {grown / 2**20:.1f} MB"
        assert http("GET", f"{stack.url}/healthz", timeout=2)[0] == 200

        def dropped(sock: socket.socket) -> bool:
            """Read what was sent; True once the server has closed the connection."""
            sock.settimeout(0.5)
            try:
                while part := sock.recv(1 << 20):
                    del part
            except TimeoutError:
                return False
            except ConnectionResetError:
                pass
            return True

        time.sleep(2)  # past the send timeout
        try:
            assert all(dropped(sock) for sock in clients)
        finally:
            for sock in clients:
                sock.close()


def game_version(stack: Stack, game: str) -> int | None:
    """The game's version, or None while the API cannot read it (Redis away)."""
    try:
        status, document = http("GET", f"{stack.url}/v1/games/{game}", timeout=5)
    except OSError:
        return None
    return int(document["version"]) if status == 200 else None


def test_a_worker_outlives_a_redis_kill_and_its_bot_games_move_again(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    """Redis (AOF, fsync always) killed with -9 while a worker plays an all-bot game,
    down for 2 s, started again: the same worker process plays the game on within
    30 s (issue 36, item 4: the worker quit, 2 trials of 2, and the games stopped).
    Once the bots' claims took no search (the levels' ``claims: false``), the kill
    mostly meets a job between writes rather than mid-search: its game then moves
    again when the lease runs out and the relay's watchdog makes a new job, 10.0 s
    after Redis was back in three runs of four here; the bound leaves as much again."""
    data = tmp_path / "redis"
    data.mkdir()
    with private_redis(data) as store:
        env = stack_env | {"REDIS_URL": store.url}
        with running_stack(env, tmp_path) as stack:
            seats = [{"kind": "bot", "level": "medium"} for _ in range(3)]
            status, created = http("POST", f"{stack.url}/v1/games", {"seats": seats})
            assert status == 201, created
            game = created["game"]["game_id"]
            start = created["game"]["version"]
            eventually(lambda: (game_version(stack, game) or 0) > start + 3, 20)  # a job plays
            worker = stack.processes["worker"]
            store.kill()
            time.sleep(2)
            store.start()
            back = game_version(stack, game)
            for _ in range(50):
                back = game_version(stack, game)
                if back is not None:
                    break
                time.sleep(0.1)
            assert back is not None, "the API did not read the game again"
            # 30 s: a CI run on the shared 2-core machine once saw more than 20 (the
            # logs below say why, if it happens again past 30).
            try:
                waited = eventually(lambda: (game_version(stack, game) or 0) > back + 2, 30)
            except AssertionError as late:
                logs = {name: stack.log(name)[-2000:] for name in ("worker", "api")}
                raise AssertionError(f"the game did not move again: {logs}") from late
            assert worker.poll() is None, stack.log("worker")[-3000:]
            assert waited < 30
