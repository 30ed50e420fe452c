"""API benchmark: the command path against bare endpoints of the same server. Prints JSON.

    .venv/bin/python bench/api.py [--seconds 2] [--rounds 7] [--clients 16] [--long-game 10000]
        [--in-process 500]

Starts the production server (``risk serve``: gunicorn, gthread workers)
on loopback against $REDIS_URL under a private key prefix (deleted
afterwards), with the rate limiter on (limits set high enough never to
refuse), then in one run:

* ``bare``: ``GET /healthz`` (no Redis) and ``GET /v1/maps`` (the ``/v1``
  middleware, rate limiter included, a constant body) from ``--clients``
  keep-alive connections spread over client processes, for ``--seconds``
  each: requests/s, p50 and p99 latency;
* ``commands``: the same clients, each playing its own three-seat game as
  fast as it can (``POST .../commands`` only; each client plans its
  commands off the clock and checks each answer's version, see ``Player``):
  commands/s, p50, p99, and the ratio to each bare endpoint (target: at
  least 0.5);
* ``account_commands`` (issue 49): the same, each seat played with the token
  of an account that joined it instead of a seat token (an extra ``GET`` of
  the revocation counter per request, token lookups cached): the ratio of
  commands/s with account tokens to commands/s with seat tokens, same run
  (target: at least 0.9);
* ``account_vs_seat_in_process`` (issue 49): the same two kinds of command
  in this process (Flask's test client, the same Redis and database),
  ``--in-process`` (500) of each, alternating; CPU ms a command and the ratio
  of commands per CPU second, account ÷ seat: the steady figure, since load
  moves CPU time far less than throughput;
* ``long_game``: one client plays one game to ``--long-game`` versions,
  then sends ``--window`` commands to it, each paired with one to a young
  game (versions 10 to 60): p50/p99 of both and the ratio of the p99s
  (target: at most 2x).

The clients run on the same machine as the server (the figures are for
"these 2 cores" as a whole); both sides of every ratio pay that alike.
The three loads are interleaved over ``--rounds`` short rounds, and each
ratio is the median of the ratios within a round, so that other work on
the machine weighs on both sides of a ratio alike.
The games never end: every seat places its reinforcements and ends its
phases, so armies grow and no card is drawn, which keeps the work per
command steady at any version.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import multiprocessing
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import redis

from riskcore.engine.decide import execute
from riskcore.engine.evolve import fold
from riskcore.model.state import REINFORCE, SETUP_PLACE, State
from riskcore.protocol.codec import event_from_dict
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import acting_seat
from service.store.database import migrate

RISK = [sys.executable, "-m", "riskcli"]
SEATS = {"seats": [{"kind": "human"}] * 3, "rules": {"setup": "deal"}}
YOUNG_UNTIL = 60


class Connection:
    """One keep-alive HTTP/1.1 connection; returns (status, body, seconds)."""

    def __init__(self, port: int) -> None:
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, float]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        started = time.perf_counter()
        self.http.request(method, path, data, headers)
        response = self.http.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None, time.perf_counter() - started


class Player:
    """Plays every seat of one game: place all reinforcements, end every phase.

    Each step is exactly one request. The commands are planned ahead, off the
    clock, by playing the game forward locally from its opening events: no
    dice are involved (placements and phase ends only), so the local game is
    the server's. During a run a step only sends the next command and checks
    the version the server answers, which keeps the client's work per request
    close to the bare endpoints' (folding every response's events, as an
    earlier version did, cost the clients twice the CPU of the bare ones on
    the same two cores, and so weighed on the commands' side of the ratio).
    """

    PLAN_AHEAD = 600  # a run of 2 s takes ~300 a connection; more are planned if needed

    def __init__(self, connection: Connection, accounts: bool = False) -> None:
        self.connection = connection
        if accounts:
            self.game, self.tokens = _account_game(connection)
        else:
            status, created, _ = connection.call("POST", "/v1/games", SEATS)
            assert status == 201, created
            self.game = created["game"]["game_id"]
            self.tokens = created["tokens"]
        _, page, _ = connection.call("GET", f"/v1/games/{self.game}/events?since=0")
        self.state: State = fold(event_from_dict(e["event"]) for e in page["events"])
        self.version = self.state.version
        self._plan: collections.deque[tuple[str, dict[str, Any], int]] = collections.deque()
        self._rng = GameRng(bytes(32), self.game, 0)  # never drawn from: nothing is random
        self.plan_ahead()

    def plan_ahead(self) -> None:
        """Play ``PLAN_AHEAD`` more commands locally: (seat, body, version after it)."""
        for _ in range(self.PLAN_AHEAD):
            seat = acting_seat(self.state)
            assert seat is not None
            body = self._next(seat)
            execute(self.state, command_from_dict(body, seat), self._rng)
            self._plan.append((seat, body, self.state.version))

    def step(self) -> float:
        if not self._plan:
            self.plan_ahead()
        seat, body, expected = self._plan.popleft()
        path = f"/v1/games/{self.game}/commands"
        status, answer, seconds = self.connection.call("POST", path, body, self.tokens[seat])
        assert status == 200, answer
        assert answer["version"] == expected, (answer["version"], expected)
        self.version = expected
        return seconds

    def _next(self, seat: str) -> dict[str, Any]:
        """The first placement ``legal_actions`` would list (all armies on the seat's
        first territory), else end the phase."""
        state = self.state
        if state.phase == SETUP_PLACE:
            player, left = next((p, n) for p, n in state.setup_quota.items() if n > 0)
            where = state.territories_of(player)[0]
            return {"type": "place_armies", "territory": where, "count": left}
        if state.phase == REINFORCE:
            where = state.territories_of(seat)[0]
            return {"type": "place_armies", "territory": where, "count": state.reserve[seat]}
        return {"type": "end_phase"}


def _account_game(connection: Connection) -> tuple[str, dict[str, str]]:
    """A game whose three seats are three new accounts' (issue 49): the first creates
    it, the others join; each seat's token is its account's."""
    tokens = []
    for _ in range(3):
        name = f"bench-{secrets.token_hex(6)}"
        status, made, _ = connection.call("POST", "/v1/accounts", {"name": name})
        assert status == 201, made
        tokens.append(made["token"])
    open_seats = {**SEATS, "seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]}
    status, created, _ = connection.call("POST", "/v1/games", open_seats, tokens[0])
    assert status == 201, created
    game = created["game"]["game_id"]
    for token in tokens[1:]:
        status, joined, _ = connection.call("POST", f"/v1/games/{game}/join", {}, token)
        assert status == 200, joined
    return game, dict(zip(("p1", "p2", "p3"), tokens, strict=True))


def _client_process(
    port: int, kind: str, threads: int, seconds: float, queue: Any, start: Any
) -> None:
    """One client process: ``threads`` connections, each looping for ``seconds``
    once every connection of every client process is set up (``start``)."""
    results: list[list[float]] = [[] for _ in range(threads)]

    def loop(index: int) -> None:
        connection = Connection(port)
        player = None
        if kind in ("commands", "account_commands"):
            player = Player(connection, accounts=kind == "account_commands")
        start.wait()  # games created and planned everywhere: nothing but requests from here
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            if player is not None:
                results[index].append(player.step())
            else:
                status, _, took = connection.call("GET", kind)
                assert status == 200
                results[index].append(took)

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    queue.put([x for r in results for x in r])


def load(port: int, kind: str, clients: int, processes: int, seconds: float) -> dict[str, Any]:
    """Run ``clients`` connections over ``processes`` processes; rates and latencies."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    start = context.Barrier(clients)
    per_process = [clients // processes + (i < clients % processes) for i in range(processes)]
    children = [
        context.Process(target=_client_process, args=(port, kind, n, seconds, queue, start))
        for n in per_process
    ]
    for child in children:
        child.start()
    latencies = [x for _ in children for x in queue.get()]
    for child in children:
        child.join()
    # Every connection loops for exactly ``seconds`` once set up (games created first).
    return {"per_s": round(len(latencies) / seconds)} | _percentiles(latencies)


def _percentiles(latencies: list[float]) -> dict[str, Any]:
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return {
        "requests": len(latencies),
        "p50_ms": round(cuts[49] * 1000, 2),
        "p99_ms": round(cuts[98] * 1000, 2),
    }


def long_game(port: int, versions: int, window: int) -> dict[str, Any]:
    """p50/p99 of commands at version ~10 and at ``versions``, measured in pairs.

    One game is first played (unmeasured) to ``versions``; then commands
    alternate between it and young games (each used from version 10 to 60,
    then replaced), so whatever else the machine does weighs on both alike.
    """
    old = Player(Connection(port))
    while old.version < versions:
        old.step()
    young_connection = Connection(port)
    young = _young(young_connection)
    early: list[float] = []
    late: list[float] = []
    while len(late) < window:
        if young.version >= YOUNG_UNTIL:
            young = _young(young_connection)
        early.append(young.step())
        late.append(old.step())
    at_start, at_end = _percentiles(early), _percentiles(late)
    return {
        "version_10_to_60": at_start,
        f"version_{versions}_on": at_end,
        "p99_ratio": round(at_end["p99_ms"] / at_start["p99_ms"], 2),
        "final_version": old.version,
    }


def _young(connection: Connection) -> Player:
    player = Player(connection)
    while player.version < 10:
        player.step()
    return player


class InProcessConnection:
    """``Connection``'s ``call`` through Flask's test client: the app in this process."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, float]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        started = time.perf_counter()
        response = self.client.open(path, method=method, json=body, headers=headers)
        return response.status_code, response.get_json(), time.perf_counter() - started


def in_process(url: str, prefix: str, database: str, commands: int) -> dict[str, Any]:
    """CPU seconds a command costs in one process (the app through Flask's test client,
    real Redis and SQLite) with an account token and with a seat token, alternating
    command by command: load moves CPU time far less than it moves throughput, so
    this is the steady figure beside the HTTP rounds' ratio. The account's path adds
    the revocation counter's ``GET`` and a cached look-up (``Accounts.authenticate``)."""
    from service.http.app import create_app
    from service.settings import RateLimit, Settings

    unlimited = RateLimit(1_000_000, 1)
    settings = Settings(
        redis_url=url,
        key_prefix=f"{prefix}-in-process",
        database_url=database,
        rate_token=unlimited,
        rate_ip=unlimited,
        games_per_address=0,
    )
    app = create_app(settings)
    client = app.test_client()
    seat = Player(InProcessConnection(client))
    account = Player(InProcessConnection(client), accounts=True)
    assert commands + 50 <= Player.PLAN_AHEAD  # no planning inside the timed steps
    for _ in range(50):  # warm: caches filled, code paths compiled
        seat.step()
        account.step()
    spent = {"seat": 0.0, "account": 0.0}
    for _ in range(commands):
        for name, player in (("seat", seat), ("account", account)):
            before = time.process_time()
            player.step()
            spent[name] += time.process_time() - before
    risk = app.extensions["risk"]
    risk.offload.close()
    risk.archive.engine.dispose()
    return {
        "commands_each": commands,
        "cpu_ms_per_command_seat": round(spent["seat"] / commands * 1000, 3),
        "cpu_ms_per_command_account": round(spent["account"] / commands * 1000, 3),
        # commands per CPU second with account tokens ÷ with seat tokens
        "account_vs_seat": round(spent["seat"] / spent["account"], 3),
    }


def server_counters(port: int) -> dict[str, float]:
    """Totals from the server's own /metrics: every append conflict is a wasted round trip."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    totals: dict[str, float] = {}
    for line in text.splitlines():
        name = line.split("{")[0].split(" ")[0]
        if name in ("risk_append_conflicts_total", "risk_appends_total", "risk_commands_total"):
            totals[name] = totals.get(name, 0) + float(line.rsplit(" ", 1)[1])
    return totals


def start_server(
    url: str, prefix: str, workers: int, threads: int, database: str
) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    env = os.environ | {
        "REDIS_URL": url,
        "RISK_KEY_PREFIX": prefix,
        "RISK_DATABASE_URL": database,  # accounts (issue 49), migrated by ``main``
        "RISK_RATE_TOKEN": "1000000/1",
        "RISK_RATE_IP": "1000000/1",
        "RISK_GAMES_PER_ADDRESS": "0",  # one address creates every game here
    }
    args = ["serve", "--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
    server = subprocess.Popen(
        [*RISK, *args, "--threads", str(threads)], env=env, start_new_session=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if Connection(port).call("GET", "/readyz")[0] == 200:
                return server, port
        except OSError:
            time.sleep(0.1)
    os.killpg(server.pid, signal.SIGTERM)
    raise SystemExit("risk serve did not become ready")


def rounds(args: argparse.Namespace, port: int) -> dict[str, dict[str, Any]]:
    """Each kind of load ``--rounds`` times, interleaved, so that a change in the
    machine's background load hits every kind alike; medians over the rounds."""
    kinds = {
        "bare_healthz": "/healthz",
        "bare_v1_maps": "/v1/maps",
        "commands": "commands",
        "account_commands": "account_commands",
    }
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in kinds}
    for _ in range(args.rounds):
        for name, kind in kinds.items():
            result = load(port, kind, args.clients, args.client_processes, args.seconds)
            runs[name].append(result)
    return {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        | {"per_s_each_round": [r["per_s"] for r in results]}
        for name, results in runs.items()
    }


def _ratio(numerator: dict[str, Any], denominator: dict[str, Any]) -> float:
    pairs = zip(numerator["per_s_each_round"], denominator["per_s_each_round"], strict=True)
    return round(statistics.median(a / b for a, b in pairs), 2)


def run(args: argparse.Namespace, port: int) -> dict[str, Any]:
    clients, processes, seconds = args.clients, args.client_processes, args.seconds
    measured = rounds(args, port)
    healthz, maps, commands = (
        measured["bare_healthz"],
        measured["bare_v1_maps"],
        measured["commands"],
    )
    long = long_game(port, args.long_game, args.window)
    steady = in_process(args.redis_url, args.prefix, args.database, args.in_process)
    return {
        "server_counters": server_counters(port),
        "setup": {
            "cpus": os.cpu_count(),
            "server_workers": args.workers,
            "server_threads": args.threads,
            "clients": clients,
            "client_processes": processes,
            "seconds_per_run": seconds,
            "rounds": args.rounds,
        },
        "bare_healthz": healthz,
        "bare_v1_maps": maps,
        "commands": commands,
        # Ratios within each round (same background load), then their median.
        "commands_vs_healthz": _ratio(commands, healthz),
        "commands_vs_v1_maps": _ratio(commands, maps),
        "account_commands": measured["account_commands"],
        "account_vs_seat_commands": _ratio(measured["account_commands"], commands),
        "account_vs_seat_in_process": steady,
        "long_game": long,
        "targets": {
            "throughput_ratio_at_least": 0.5,
            "p99_growth_at_most": 2.0,
            "account_vs_seat_at_least": 0.9,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--long-game", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=2000)
    parser.add_argument("--in-process", type=int, default=500, help="commands of each kind")
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"bench-api-{secrets.token_hex(4)}"
    folder = tempfile.TemporaryDirectory(prefix="bench-api-")
    database = f"sqlite:///{folder.name}/risk.db"
    migrate(database)
    args.redis_url, args.prefix, args.database = url, prefix, database
    server, port = start_server(url, prefix, args.workers, args.threads, database)
    try:
        print(json.dumps(run(args, port), indent=2))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(f"{prefix}:*", count=1000):
            client.delete(key)
        folder.cleanup()


if __name__ == "__main__":
    main()
