"""The archive (issue 48): the projector's lag under load, the history's latency and
the export's throughput over 100,000 archived games, and the bytes an event costs.

Prints one JSON object with three parts:

- ``lag``: the projector (``risk projector``, its own processes), once it has
  made its first round, while ``bench/workers.py``'s load runs: ``--games``
  (100) all-bot games at once for ``--seconds`` (60), each finished game
  replaced by a new one, the archive in ``--lag-database`` (SQLite, or a
  PostgreSQL database of its own). The figures are
  the projector's own (``KeySpace.projector_stats``: each notification's age when
  its rows were committed, p50/p99 over the whole window) and the archive's
  size per event of the records it wrote, against Redis' 166 bytes an event,
  and the CPU its two processes used in the window (and the summaries' alone);
- ``history`` and ``export``, per backend (``--backends sqlite,postgres``): the
  archive seeded with ``--rows`` (100,000) games and their seats, ``--records``
  (2,000) of them with a real ~1,000-event record (one game's, the same bytes for
  each: an export reads and sends bytes, it does not look at them), served by
  ``risk serve``. History: ``--queries`` (600) ``GET /v1/games`` pages over HTTP,
  mixed filters (none, a player, a player and result, a mode, a board, a time
  window, the next page by cursor), p50/p99 ms, beside ``GET /healthz``'s in the
  same run (the machine's load moves both). Export: ``GET /v1/games/export``
  of every record, records/s, sent as stored (``Accept-Encoding: gzip``) and,
  as the same run's baseline, decompressed (a client without gzip); the ratio is
  the first over the second.

    .venv/bin/python bench/archive.py [--games 100] [--seconds 60] [--rows 100000]
        [--records 2000] [--backends sqlite,postgres] [--skip-lag]
        [--lag-database sqlite|postgres]

Needs REDIS_URL (a Redis it may write to; its own key prefix, removed after) and,
for the PostgreSQL rows, a server at RISK_TEST_POSTGRES_URL (default
postgresql://postgres@127.0.0.1:5432/postgres) where it creates and drops a
database of its own.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import redis
import sqlalchemy as sa

from riskcore.bots import get_bot
from riskcore.simulate import play_game, record_of
from service.application.archived import export_form, info_json
from service.application.lobby import GameInfo, SeatInfo
from service.store.archive import Archive, GameRow, RecordRow, SeatRow
from service.store.database import create_engine, migrate

ROOT = Path(__file__).resolve().parent.parent
RISK = [sys.executable, "-m", "riskcli"]
REDIS_BYTES_PER_EVENT = 166  # docs/benchmarks.md: a game's stream, snapshots and indexes
MODES = ("classic", "classic", "classic", "team", "secret_missions", "two_player")
BOARDS = ("classic", "classic", "middle_earth")


def _bench_workers() -> Any:
    """bench/workers.py, loaded by path under a name of its own (never on sys.path:
    its name would shadow the ``workers`` package)."""
    spec = importlib.util.spec_from_file_location(
        "bench_archive_workers", ROOT / "bench/workers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the projector's lag under load -----------------------------------------------------


def lag(
    redis_url: str, games: int, seconds: float, workers: int, database: str = "sqlite"
) -> dict[str, Any]:
    bench = _bench_workers()
    prefix = f"bench-archive-{uuid.uuid4().hex[:8]}"
    if database == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="risk-archive-bench-"))
        url, drop = f"sqlite:///{folder / 'risk.db'}", None
    else:
        url, drop = _postgres_database()
    try:
        return {"database": database} | _lag(bench, url, prefix, redis_url, games, seconds, workers)
    finally:
        if drop is not None:
            drop()


def _lag(
    bench: Any, url: str, prefix: str, redis_url: str, games: int, seconds: float, workers: int
) -> dict[str, Any]:
    migrate(url)
    os.environ["RISK_DATABASE_URL"] = url
    stack = bench.Stack(redis_url, prefix, workers)
    projector = subprocess.Popen(
        [*RISK, "projector", "--log-level", "WARNING"],
        cwd=ROOT,
        env=stack.env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    store = redis.Redis.from_url(redis_url)
    try:
        _wait_for_projector(store, prefix)
        cpu_before = bench.cpu_seconds(projector.pid), _own_cpu_seconds(projector.pid)
        load = bench.through_workers(stack, store, prefix, games, seconds)
        time.sleep(3)  # the last notifications of the window
        stats = {k.decode(): int(v) for k, v in store.hgetall(f"{prefix}:projector:stats").items()}
        projector_cpu = bench.cpu_seconds(projector.pid) - cpu_before[0]
        summaries_cpu = _own_cpu_seconds(projector.pid) - cpu_before[1]
    finally:
        projector.terminate()
        try:
            projector.wait(60)
        except subprocess.TimeoutExpired:
            projector.kill()
            projector.wait(10)
        stack.stop()
        for key in store.scan_iter(f"{prefix}*", count=1000):
            store.delete(key)
        store.close()
    engine = create_engine(url)
    with engine.connect() as connection:
        size, events, count = connection.execute(
            sa.text("SELECT sum(length(record)), sum(events), count(*) FROM archived_records")
        ).one()
    engine.dispose()
    return {
        "concurrent_games": games,
        "seconds": load["seconds"],
        "commands_per_second": load["commands_per_second"],
        "notifications": stats.get("notifications", 0),
        "batches": stats.get("batches", 0),
        "lag_p50_ms": stats.get("lag_p50_ms"),
        "lag_p99_ms": stats.get("lag_p99_ms"),
        "lag_max_ms": stats.get("lag_max_ms"),
        "records_archived": count,
        "records_archived_by_the_projector": stats.get("records", 0),
        "archive_bytes_per_event": round(size / events, 1) if events else None,
        "redis_bytes_per_event": REDIS_BYTES_PER_EVENT,
        "projector_cpu_seconds": round(projector_cpu, 1),
        "projector_summaries_cpu_seconds": round(summaries_cpu, 1),
        "target_lag_p99_ms": 1000,
    }


def _own_cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` alone (the summaries' process, without its records' child)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for_projector(store: redis.Redis, prefix: str, timeout: float = 120) -> None:
    """Until the projector has made its first round (its heartbeat): the load starts
    then, so the lag measured is the projector's at work, not its start-up's (its
    imports and migration, seconds on a loaded machine, once per deployment)."""
    deadline = time.monotonic() + timeout
    while not store.zcard(f"{prefix}:projector:alive"):
        if time.monotonic() > deadline:
            raise SystemExit("the projector never started")
        time.sleep(0.1)


# -- history and export over a seeded archive --------------------------------------------


def template_record(events: int = 1000) -> tuple[str, int]:
    """A real record of about ``events`` events (a random 3-bot game's)."""
    best: tuple[str, int] | None = None
    for attempt in range(60):
        seed = attempt.to_bytes(32, "big")
        result = play_game([get_bot("random") for _ in range(3)], seed=seed, game_id=f"g{attempt}")
        if result.winner is None:
            continue
        count = len(result.events)
        if best is None or abs(count - events) < abs(best[1] - events):
            best = (record_of(result, seed), count)
        if abs(count - events) < events // 10:
            break
    assert best is not None
    return best


def seed(url: str, rows: int, records: int) -> dict[str, Any]:
    """``rows`` games (3-4 seats of 2,000 names), the newest ``records`` with a record."""
    text, events = template_record()
    packed = gzip.compress(export_form(text).encode(), compresslevel=6, mtime=0)
    rng = random.Random(48)
    names = [f"player{n:04d}" for n in range(2000)]
    engine = create_engine(url)
    archive = Archive(engine)
    started = time.perf_counter()
    base_ms = 1_764_000_000_000
    batch: list[GameRow] = []
    kept: list[RecordRow] = []
    for n in range(rows):
        seats = rng.sample(names, rng.choice((3, 3, 4)))
        winner = rng.randrange(len(seats))
        created = base_ms + n * 60_000
        game_id = f"g{n:07d}"
        info = GameInfo(
            game_id, "finished", rng.choice(BOARDS), {}, None, created,
            tuple(SeatInfo(f"p{i + 1}", "human", name) for i, name in enumerate(seats)),
        )  # fmt: skip
        batch.append(
            GameRow(
                game_id=game_id,
                mode=rng.choice(MODES),
                board=info.board,
                status="finished",
                created_ms=created,
                updated_ms=created,
                version=events,
                head="0" * 64,
                info=info_json(info),
                seats=tuple(
                    SeatRow(f"p{i + 1}", "human", name, result="won" if i == winner else "lost")
                    for i, name in enumerate(seats)
                ),
                winner=f"p{winner + 1}",
                outcome="conquest",
                finished_ms=created + 30_000,
            )
        )
        if n >= rows - records:
            kept.append(RecordRow(game_id, packed, events, len(text)))
        if len(batch) == 2000:
            archive.write(batch, kept, base_ms)
            batch, kept = [], []
    archive.write(batch, kept, base_ms)
    with engine.begin() as connection:
        connection.execute(sa.text("ANALYZE"))
    engine.dispose()
    return {
        "rows": rows,
        "records": records,
        "record_events": events,
        "record_bytes": len(text),
        "record_gzip_bytes": len(packed),
        "bytes_per_event": round(len(packed) / events, 1),
        "seed_seconds": round(time.perf_counter() - started, 1),
        "names": names,
    }


def served(url: str, redis_url: str, work: Any) -> Any:
    """``risk serve`` on the seeded archive while ``work(base_url)`` runs."""
    bench = _bench_workers()
    os.environ["RISK_DATABASE_URL"] = url
    stack = bench.Stack(redis_url, f"bench-archive-{uuid.uuid4().hex[:8]}", 0)
    try:
        return work(stack.url)
    finally:
        stack.stop()


def history(base: str, names: list[str], queries: int) -> dict[str, Any]:
    rng = random.Random(7)
    since = 1_764_000_000_000 + 50_000 * 60_000
    kinds = [
        lambda: {"source": "archive"},
        lambda: {"player": rng.choice(names)},
        lambda: {"player": rng.choice(names), "result": rng.choice(("won", "lost"))},
        lambda: {"mode": rng.choice(MODES)},
        lambda: {"board": "middle_earth"},
        lambda: {"since": since, "until": since + 3_600_000 * 24},
        lambda: {"player": rng.choice(names), "mode": "classic"},
    ]
    times: list[float] = []
    cursor = None
    for n in range(queries + 20):
        query = kinds[n % len(kinds)]()
        if cursor and n % 5 == 0:
            query = {"source": "archive", "cursor": cursor}
        address = f"{base}/v1/games?" + urllib.parse.urlencode(query)
        started = time.perf_counter()
        with urllib.request.urlopen(address, timeout=30) as response:
            body = json.loads(response.read())
        if n >= 20:  # warm-up
            times.append((time.perf_counter() - started) * 1000)
        cursor = body["next_cursor"] or cursor
    times.sort()
    bare = _bare(base, len(times))
    return {
        "queries": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(times[int(0.99 * len(times)) - 1], 2),
        "baseline_healthz_p50_ms": round(statistics.median(bare), 2),
        "baseline_healthz_p99_ms": round(bare[int(0.99 * len(bare)) - 1], 2),
        "target_p99_ms": 50,
    }


def _bare(base: str, count: int) -> list[float]:
    """The same run's baseline: ``GET /healthz``, the server's cheapest answer."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base}/healthz", timeout=30) as response:
            response.read()
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)


def export(base: str, records: int) -> dict[str, Any]:
    def timed(gzipped: bool) -> tuple[float, int]:
        request = urllib.request.Request(f"{base}/v1/games/export")
        if gzipped:
            request.add_header("Accept-Encoding", "gzip")
        started = time.perf_counter()
        size = 0
        with urllib.request.urlopen(request, timeout=600) as response:
            while chunk := response.read(1 << 20):
                size += len(chunk)
        return time.perf_counter() - started, size

    timed(True)  # warm the database's cache
    stored_s, stored_bytes = timed(True)
    plain_s, plain_bytes = timed(False)
    return {
        "records": records,
        "gzip_records_per_second": round(records / stored_s),
        "gzip_mb": round(stored_bytes / 1e6, 1),
        "baseline_plain_records_per_second": round(records / plain_s),
        "plain_mb": round(plain_bytes / 1e6, 1),
        "ratio": round(plain_s / stored_s, 2),
        "target_records_per_second": 2000,
    }


def backend(name: str, rows: int, records: int, queries: int, redis_url: str) -> dict[str, Any]:
    if name == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="risk-archive-bench-"))
        url, drop = f"sqlite:///{folder / 'risk.db'}", None
    else:
        url, drop = _postgres_database()
    try:
        migrate(url)
        seeded = seed(url, rows, records)
        names = seeded.pop("names")
        measured = served(
            url, redis_url, lambda base: (history(base, names, queries), export(base, records))
        )
        return {"seeded": seeded, "history": measured[0], "export": measured[1]}
    finally:
        if drop is not None:
            drop()


def _postgres_database() -> tuple[str, Any]:
    server = os.environ.get(
        "RISK_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    name = f"risk_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(server).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--worker-processes", type=int, default=2)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--records", type=int, default=2_000)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--skip-lag", action="store_true")
    parser.add_argument(
        "--lag-database", default="sqlite", choices=("sqlite", "postgres"),
        help="the projector's database in the lag run",
    )  # fmt: skip
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    result: dict[str, Any] = {"python": sys.version.split()[0]}
    if not args.skip_lag:
        result["lag"] = lag(
            redis_url, args.games, args.seconds, args.worker_processes, args.lag_database
        )
    for name in filter(None, args.backends.split(",")):
        result[name] = backend(name, args.rows, args.records, args.queries, redis_url)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
