"""Event store benchmark: prints one JSON object.

    .venv/bin/python bench/store.py [--appends 20000] [--rounds 5] [--threads 4]
                                    [--load-events 10000] [--instructions 2000]
                                    [--grind-port 6399]

Figures (against $REDIS_URL, default redis://127.0.0.1:6379/0, under a
private key prefix that is deleted afterwards):

* ``append_one_game_per_s``: single-event appends, one after another, to
  one game, from one Python process and connection; each append is a real
  one (expected version, chained hash, private idempotency key, outbox).
* ``append_100_games_per_s``: the same, round-robin over 100 games.
* ``append_100_games_threads_per_s``: one process whose ``--threads``
  threads append at once, each to its own share of 100 games.
* ``append_100_games_processes_per_s``: the same with one process per
  writer (``--threads`` of them), each with its own client: a thread's
  Python work holds the interpreter lock that the other threads wait for,
  a process's does not; ``ratio_100_games_processes_to_script_limit``
  divides it by 1 / the script's time, as for the threads.
* ``raw_xadd_per_s``: what ``redis-benchmark -q -n 100000 XADD <key> '*' f v``
  reaches on the same server, with its default 50 connections and with one
  (``raw_xadd_one_connection_per_s``), and the ratios to our append rates
  (target: at least 10 % of the raw rate). The appends and redis-benchmark
  alternate over ``--rounds`` rounds; each ratio is the median of the
  rounds' ratios, so other work on the machine weighs on both sides alike.
* ``append_script_us_in_redis``: the append script's own time in Redis
  (``INFO commandstats``), beside ``bare_xadd_us_in_redis``, a bare ``XADD``'s
  own time there, taken from the same statistics while redis-benchmark runs
  (so run it against a server of its own: other clients' commands would
  count too); ``ratio_script_to_bare_xadd_us`` divides them (target: at most
  6), and ``ratio_100_games_threads_to_script_limit`` divides the threads'
  appends/s by 1 / the script's time, the most a server busy only with
  appends could take (target: at least 0.7); and ``zero_cost_client_estimate_per_s``: about
  what a client costing nothing would reach with one connection, paying
  redis-benchmark's one-connection round trip plus that script time (an
  estimate: the round trip already holds one XADD's server time).
* ``--instructions N`` adds ``instructions``: what a private
  ``redis-server`` run under valgrind's callgrind (on ``--grind-port``) executes per single-event
  append (N of them, one game; without a caller's idempotency key, and with
  one), per bare ``XADD`` and per ``PING`` (the round trip's share), and
  ``ratio_script_to_bare_xadd`` (``ratio_script_with_key_to_bare_xadd``) from
  those counts less the ``PING``'s: the commandstats ratio without the
  machine's load.
* ``load_ms``: median time to load a 10,000-event game without a
  snapshot, and with a snapshot 99 events behind the head (the worst case
  with ``snapshot_every=100``). The snapshot is an 8 KB stand-in blob and
  the fold only counts events: the figure is the store's share of a load
  (target: under 10 ms); bench/replay.py measures decoding and folding.
* ``bytes_per_event``: ``MEMORY USAGE`` of the 10,000-event stream divided
  by its length, for a realistic mix of canonical JSON events averaging
  ~95 bytes (target: at most 200); ``bytes_per_event_by_payload_size`` does
  the same for fixed sizes, which shows how node packing (the server's
  ``stream-node-max-bytes``) moves the figure; the memory of the per-game
  meta hash and of one idempotency record are there for reference.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from typing import Any

import redis

from riskcore.audit.chain import GENESIS
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import new_events

SNAPSHOT_BLOB = os.urandom(8 * 1024)


TERRITORIES = [
    *("alaska", "eastern-australia", "ukraine", "ural", "north-africa", "siam"),
    *("western-united-states", "peru", "great-britain", "kamchatka", "egypt", "india"),
]
SEATS = ["north", "east", "south", "west"]


def payload(n: int) -> bytes:
    """The n-th event of a plausible turn, in the codec's wire form (canonical JSON).

    Shapes follow riskcore.protocol.events (type, schema version, fields); sizes vary
    from ~40 to ~200 bytes and average ~95, as a real record's do. A mix
    matters: Redis packs stream entries into nodes, so one fixed size can
    land on a lucky or unlucky packing and misstate the per-event memory.
    """
    seat, source = SEATS[n % 4], TERRITORIES[n % 12]
    target = TERRITORIES[(n * 7 + 3) % 12]
    kind = n % 10
    event: dict[str, object] = {"seat": seat, "v": 1}
    if kind in (0, 3):
        event |= {"type": "armies_placed", "player": seat, "territory": target, "count": 3}
    elif kind in (1, 2):
        event |= {"type": "battle_resolved", "source": source, "target": target}
        event |= {"defender": SEATS[(n + 1) % 4], "attacker_dice": [6, 4, 1][: 1 + n % 3]}
        event |= {"defender_dice": [5, 2][: 1 + n % 2], "attacker_losses": 1}
        event["defender_losses"] = n % 2
    elif kind == 4:
        event |= {"type": "territory_occupied", "source": source, "target": target, "count": 2}
    elif kind == 5:
        event |= {"type": "fortified", "source": source, "target": target, "count": 4}
    elif kind in (6, 7):
        event |= {"type": "phase_ended", "phase": ["attack", "fortify"][kind - 6]}
    elif kind == 8:
        event |= {"type": "card_drawn", "card": n % 44}
    else:
        event |= {"type": "turn_ended"}
    return json.dumps(event, sort_keys=True, separators=(",", ":")).encode()


class Appender:
    """Appends single events to its games, one after another, tracking their heads.

    Payloads are encoded before the clock starts: encoding is the codec's
    work (bench/engine.py), not the store's. Hashing, checking, the round
    trip and parsing the reply are all inside the figure.
    """

    def __init__(
        self, store: EventStore, games: list[str], first_payload: int = 0, keyed: bool = False
    ) -> None:
        self.store = store
        self.games = games
        self.heads = dict.fromkeys(games, (0, GENESIS))
        self.next_payload = first_payload
        self.keyed = keyed  # each append with a caller's idempotency key of its own

    def encode(self, appends: int) -> list[bytes]:
        """The next ``appends`` payloads, encoded off the clock."""
        payloads = [payload(self.next_payload + n) for n in range(appends)]
        self.next_payload += appends
        return payloads

    def run(self, payloads: list[bytes]) -> float:
        """Append ``payloads`` one by one, round-robin over the games; seconds taken."""
        store, games, heads = self.store, self.games, self.heads
        keys = [f"k{self.next_payload + n}" if self.keyed else None for n in range(len(payloads))]
        began = time.perf_counter()
        for n, body in enumerate(payloads):
            game = games[n % len(games)]
            version, prev = heads[game]
            result = store.append(
                game, version, new_events(prev, [body]), prev=prev, idempotency_key=keys[n]
            )
            heads[game] = (result.last_version, result.head_hash)
        return time.perf_counter() - began


def threaded_rate(appenders: list[Appender], appends: int) -> float:
    """Appends/s of one process whose threads each append to their own games at once."""
    share = appends // len(appenders)
    start = threading.Barrier(len(appenders) + 1)

    def work(appender: Appender) -> None:
        payloads = appender.encode(share)
        start.wait()
        appender.run(payloads)

    threads = [threading.Thread(target=work, args=(a,)) for a in appenders]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return share * len(appenders) / (time.perf_counter() - began)


def _process_writer(appender: Appender, share: int, start: Any, out: Any) -> None:
    """One writer process: its own client and store (a forked child must not use the
    parent's connections), its games' heads carried over from the parent."""
    store = appender.store
    client = redis.Redis(
        connection_pool=redis.ConnectionPool(**store.client.get_connection_kwargs())
    )
    appender.store = EventStore(client, store.keys)
    payloads = appender.encode(share)
    start.wait()
    began = time.perf_counter()
    appender.run(payloads)
    out.put((began, time.perf_counter(), appender.heads, appender.next_payload))


def process_rate(appenders: list[Appender], appends: int) -> float:
    """Appends/s of one process per writer, each appending to its own games at once.

    The span runs from the first writer's start to the last one's end
    (``perf_counter`` is the system's monotonic clock, shared by processes);
    the games' heads come back to the parent for the next round.
    """
    share = appends // len(appenders)
    context = multiprocessing.get_context("fork")
    start, out = context.Barrier(len(appenders)), context.Queue()
    workers = [
        context.Process(target=_process_writer, args=(a, share, start, out)) for a in appenders
    ]
    for worker in workers:
        worker.start()
    spans = []
    for _ in workers:
        began, ended, heads, next_payload = out.get(timeout=600)  # a writer that died
        spans.append((began, ended))
        for appender in appenders:
            if set(heads) == set(appender.games):
                appender.heads, appender.next_payload = heads, next_payload
    for worker in workers:
        worker.join()
        if worker.exitcode:
            raise RuntimeError(f"a writer process failed: {worker.exitcode}")
    return share * len(appenders) / (max(e for _, e in spans) - min(b for b, _ in spans))


def build_game(store: EventStore, game: str, events: int, batch: int = 100) -> None:
    version, prev = 0, GENESIS
    while version < events:
        payloads = [payload(version + i) for i in range(min(batch, events - version))]
        result = store.append(game, version, new_events(prev, payloads), prev=prev)
        version, prev = result.last_version, result.head_hash


def bytes_by_size(store: EventStore, client: redis.Redis, sizes: list[int]) -> dict[int, float]:
    """Per-event stream memory for fixed payload sizes (3,000 events each)."""
    found = {}
    for size in sizes:
        game, version, prev = f"size{size}", 0, GENESIS
        while version < 3000:
            payloads = [
                b'{"n":%09d,"x":"%s"}' % (version + i, b"a" * (size - 20)) for i in range(100)
            ]
            result = store.append(game, version, new_events(prev, payloads), prev=prev)
            version, prev = result.last_version, result.head_hash
        found[size] = round(
            (client.memory_usage(store.keys.game(game).events, samples=0) or 0) / 3000, 1
        )
    return found


def load_ms(store: EventStore, game: str, stamp: str, runs: int = 15) -> float:
    timings = []
    for _ in range(runs):
        began = time.perf_counter()
        head, _count = store.load(
            game, stamp=stamp, initial=0, fold=lambda s, _e: s + 1, decode_snapshot=len
        )
        timings.append((time.perf_counter() - began) * 1000)
        assert head.version > 0
    return round(statistics.median(timings), 3)


def raw_xadd(url: str, prefix: str, clients: int, requests: int) -> float | None:
    """Run redis-benchmark's XADD against the same server; None if it is not installed."""
    tool = shutil.which("redis-benchmark")
    if tool is None:
        return None
    kwargs = redis.connection.parse_url(url)
    command = [tool, "-h", kwargs.get("host", "127.0.0.1"), "-p", str(kwargs.get("port", 6379))]
    command += ["--dbnum", str(kwargs.get("db", 0)), "-q", "-c", str(clients), "-n", str(requests)]
    command += ["XADD", f"{prefix}:raw", "*", "f", "v"]
    if kwargs.get("password"):
        command += ["-a", kwargs["password"]]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    found = re.findall(r"([\d.]+) requests per second", out)
    return float(found[-1]) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=20_000)
    parser.add_argument("--load-events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=4, choices=range(1, 101), metavar="1..100")
    parser.add_argument("--instructions", type=int, default=0, metavar="N")
    parser.add_argument("--grind-port", type=int, default=6399, metavar="PORT")
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    client = redis.Redis.from_url(url)
    prefix = f"bench:{uuid.uuid4().hex[:8]}"
    store = EventStore(client, KeySpace(prefix))
    try:
        found = run(store, client, url, prefix, args)
        if args.instructions:
            found["instructions"] = counted_instructions(args.instructions, args.grind_port)
        print(json.dumps(found, indent=2))
    finally:
        for key in client.scan_iter(f"{prefix}:*", count=1000):
            client.delete(key)


def counted_instructions(appends: int, port: int = 6399) -> dict[str, object]:
    """Instructions a callgrind-run private redis-server executes per operation."""
    with tempfile.TemporaryDirectory() as scratch:
        grind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/cg.%p"]
        # --hz 1: the fewest timer wake-ups counted beside the commands
        redis_args = ["--port", str(port), "--save", "", "--appendonly", "no", "--hz", "1"]
        server = subprocess.Popen(
            [*grind, "redis-server", *redis_args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            client = redis.Redis(port=port)
            for _ in range(600):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.1)
            store = EventStore(client, KeySpace("grind"))
            appender = Appender(store, ["solo"])
            appender.run(appender.encode(100))  # the script loaded, the game created
            keyed = Appender(store, ["keyed"], keyed=True)
            keyed.run(keyed.encode(100))
            per_op = {}
            _callgrind_dump(server.pid, scratch)  # from here on, count
            operations = {
                "append": lambda: appender.run(appender.encode(appends)),
                "append_with_key": lambda: keyed.run(keyed.encode(appends)),
                "bare_xadd": lambda: [
                    client.xadd("bare", {"p": payload(n), "h": b"h" * 32}) for n in range(appends)
                ],
                "ping": lambda: [client.ping() for _ in range(appends)],
            }
            for name, operation in operations.items():
                operation()
                per_op[name] = _callgrind_dump(server.pid, scratch) / appends
        finally:
            server.terminate()
            server.wait()
    ping = per_op["ping"]
    return {
        "operations": appends,
        "per_operation": {name: round(n) for name, n in per_op.items()},
        "ratio_script_to_bare_xadd": round(
            (per_op["append"] - ping) / (per_op["bare_xadd"] - ping), 2
        ),
        "ratio_script_with_key_to_bare_xadd": round(
            (per_op["append_with_key"] - ping) / (per_op["bare_xadd"] - ping), 2
        ),
    }


def _callgrind_dump(pid: int, scratch: str) -> int:
    """Dump callgrind's counts since the last dump; the instructions in that part."""
    before = set(os.listdir(scratch))
    subprocess.run(["callgrind_control", "-d", str(pid)], capture_output=True, check=True)
    for _ in range(100):
        new = set(os.listdir(scratch)) - before
        if new:
            time.sleep(0.2)  # let callgrind finish writing it
            with open(os.path.join(scratch, new.pop()), encoding="utf-8") as dump:
                text = dump.read()
            found = re.search(r"^summary: (\d+)", text, re.MULTILINE)
            if found:
                return int(found.group(1))
        time.sleep(0.1)
    raise RuntimeError("callgrind wrote no dump")


def append_rates(store: EventStore, url: str, prefix: str, args: argparse.Namespace) -> dict:
    """The append figures over ``args.rounds`` rounds, each beside a redis-benchmark run.

    Each ratio is the median of the ratios within a round, so that other
    work on the machine weighs on both sides of a ratio alike.
    """
    per_round = args.appends // args.rounds
    solo = Appender(store, ["solo"])
    hundred = Appender(store, [f"g{n}" for n in range(100)])
    threads = [
        Appender(store, [f"t{t}-{n}" for n in range(100 // args.threads)], 10**6 * (t + 1))
        for t in range(args.threads)
    ]
    processes = [
        Appender(store, [f"w{t}-{n}" for n in range(100 // args.threads)], 10**6 * (t + 1))
        for t in range(args.threads)
    ]
    rounds: dict[str, list[float]] = collections.defaultdict(list)
    script_stats = [0, 0]
    xadd_stats = [0, 0]
    for _ in range(args.rounds):
        before = _command_stats(store, "evalsha")
        rounds["one_game"].append(per_round / solo.run(solo.encode(per_round)))
        rounds["100_games"].append(per_round / hundred.run(hundred.encode(per_round)))
        rounds["100_games_threads"].append(threaded_rate(threads, per_round))
        rounds["100_games_processes"].append(process_rate(processes, per_round))
        _add_delta(script_stats, before, _command_stats(store, "evalsha"))
        raw = raw_xadd(url, prefix, 50, 100_000)
        before = _command_stats(store, "xadd")
        raw_one = raw_xadd(url, prefix, 1, 20_000)
        _add_delta(xadd_stats, before, _command_stats(store, "xadd"))
        if raw and raw_one:  # ratios within the round, beside the appends just measured
            rounds["raw"].append(raw)
            rounds["raw_one_connection"].append(raw_one)
            for name in ("one_game", "100_games", "100_games_threads", "100_games_processes"):
                rounds[f"ratio_{name}_to_raw"].append(rounds[name][-1] / raw)
            rounds["ratio_one_game_to_raw_one_connection"].append(rounds["one_game"][-1] / raw_one)
    calls, usec = script_stats
    script_us = usec / calls if calls else None
    xadd_us = xadd_stats[1] / xadd_stats[0] if xadd_stats[0] else None
    found: dict[str, object] = {"appends_measured": per_round * args.rounds}
    found["append_script_us_in_redis"] = None if script_us is None else round(script_us, 2)
    found["bare_xadd_us_in_redis"] = None if xadd_us is None else round(xadd_us, 2)
    if script_us and xadd_us:
        found["ratio_script_to_bare_xadd_us"] = round(script_us / xadd_us, 2)
    found["rounds"] = args.rounds
    found["threads"] = args.threads
    for name in ("one_game", "100_games", "100_games_threads", "100_games_processes"):
        found[f"append_{name}_per_s"] = round(statistics.median(rounds[name]))
    if script_us:
        limit = 1e6 / script_us
        found["script_limit_per_s"] = round(limit)
        for name in ("threads", "processes"):
            found[f"ratio_100_games_{name}_to_script_limit"] = round(
                statistics.median(rounds[f"100_games_{name}"]) / limit, 3
            )
    if rounds["raw"]:
        raw = statistics.median(rounds["raw"])
        raw_one = statistics.median(rounds["raw_one_connection"])
        found["raw_xadd_per_s"] = round(raw)
        found["raw_xadd_one_connection_per_s"] = round(raw_one)
        for name, values in rounds.items():
            if name.startswith("ratio_"):
                found[name] = round(statistics.median(values), 3)
        if script_us is not None:
            # An estimate, not a bound: a client costing nothing, paying only
            # redis-benchmark's one-connection round trip plus the script's time.
            estimate = 1 / (1 / raw_one + script_us / 1e6)
            found["zero_cost_client_estimate_per_s"] = round(estimate)
            found["ratio_zero_cost_client_estimate_to_raw"] = round(estimate / raw, 3)
    found["each_round"] = {
        name: [round(v, 3) if name.startswith("ratio_") else round(v) for v in values]
        for name, values in rounds.items()
    }
    return found


def _command_stats(store: EventStore, command: str) -> tuple[int, int]:
    """(calls, microseconds) of ``command`` so far on the server: its own time there."""
    stats = store.client.info("commandstats").get(f"cmdstat_{command}", {})
    return stats.get("calls", 0), stats.get("usec", 0)


def _add_delta(total: list[int], before: tuple[int, int], after: tuple[int, int]) -> None:
    total[0] += after[0] - before[0]
    total[1] += after[1] - before[1]


def run(
    store: EventStore, client: redis.Redis, url: str, prefix: str, args: argparse.Namespace
) -> dict[str, object]:
    appends = append_rates(store, url, prefix, args)
    build_game(store, "long", args.load_events)
    keys = store.keys.game("long")
    no_snapshot = load_ms(store, "long", "no-such-stamp")
    store.save_snapshot("long", args.load_events - 99, SNAPSHOT_BLOB, "s1")
    with_snapshot = load_ms(store, "long", "s1")
    stream_bytes = client.memory_usage(keys.events, samples=0) or 0
    # appends without a caller's key keep no record (service/store/append.lua): make one
    Appender(store, ["keyed"], keyed=True).run([payload(0)])
    idem = next(iter(client.scan_iter(f"{prefix}:*:idem:*", count=1000)))
    return {
        "redis_version": client.info("server")["redis_version"],
        **appends,
        "load_events": args.load_events,
        "load_ms": {"without_snapshot": no_snapshot, "with_snapshot_99_behind": with_snapshot},
        "snapshot_bytes": len(SNAPSHOT_BLOB),
        "event_payload_bytes_mean": statistics.mean(len(payload(n)) for n in range(1000)),
        "stream_node_max_bytes": int(
            client.config_get("stream-node-max-bytes")["stream-node-max-bytes"]
        ),
        "bytes_per_event": round(stream_bytes / client.xlen(keys.events), 1),
        "bytes_per_event_by_payload_size": bytes_by_size(store, client, [80, 90, 91, 100, 120]),
        "meta_bytes_per_game": client.memory_usage(keys.meta, samples=0),
        "idempotency_record_bytes": client.memory_usage(idem, samples=0),
    }


if __name__ == "__main__":
    main()
