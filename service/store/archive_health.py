"""The archive's health for ``/readyz`` and ``/metrics`` (issue 48).

Read at scrape time from Redis and the database, so any API process reports
it whichever projector processes exist:

* ``lag_seconds``: the age of the oldest notification the projector has not
  yet committed to the archive (pending in its group, or not read at all),
  over every outbox; 0 when it has caught up. This is the figure to alert
  on: how far behind the archive is, whether the projector is slow, stopped
  or cut off from the database;
* ``projectors_alive``: projectors that made a round in the last 10 s;
* the projector's own figures (``KeySpace.projector_stats``): percentiles of
  its recent commit lag, games and records archived;
* ``database``: whether the archive answers (``SELECT 1``).

The archive never makes the API unready: live games are in Redis.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import sqlalchemy as sa
from prometheus_client import CollectorRegistry, Gauge, generate_latest
from redis.exceptions import ResponseError

from service.store.archive import Archive
from service.store.errors import translated
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["ArchiveHealth", "archive_health", "render"]

GROUP = "projector"  # workers.projector's consumer group
ALIVE_SECONDS = 10


@dataclass(frozen=True)
class ArchiveHealth:
    database: str  # "ok" or "unavailable"
    projectors_alive: int
    lag_seconds: float | None  # None: no projector group yet (none ever ran)
    projected_lag_p50_ms: int
    projected_lag_p99_ms: int
    games_archived: int
    records_archived: int

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@translated
def archive_health(store: Client, keys: KeySpace, archive: Archive) -> ArchiveHealth:
    now_ms = time.time() * 1000
    alive = store.zcount(keys.projector_heartbeats(), now_ms - ALIVE_SECONDS * 1000, "+inf")
    stats = {_text(k): int(v) for k, v in (store.hgetall(keys.projector_stats()) or {}).items()}
    oldest = _oldest_unprojected_ms(store, keys)
    return ArchiveHealth(
        database=_database(archive),
        projectors_alive=int(alive),
        lag_seconds=None if oldest is None else round(max(0.0, now_ms - oldest) / 1000, 3),
        projected_lag_p50_ms=stats.get("lag_p50_ms", 0),
        projected_lag_p99_ms=stats.get("lag_p99_ms", 0),
        games_archived=stats.get("games", 0),
        records_archived=stats.get("records", 0),
    )


def _database(archive: Archive) -> str:
    try:
        with archive.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except sa.exc.DBAPIError:
        return "unavailable"
    return "ok"


def _oldest_unprojected_ms(store: Client, keys: KeySpace) -> float | None:
    """When the oldest notification not yet projected was written (now: none is
    waiting); None when no outbox has the projector's group."""
    oldest: float | None = None
    grouped = False
    now = time.time() * 1000
    for stream in keys.outboxes():
        try:
            groups: Any = store.xinfo_groups(stream)
        except ResponseError:  # no such stream yet
            continue
        group = next((g for g in groups if _text(g["name"]) == GROUP), None)
        if group is None:
            continue
        grouped = True
        pending: Any = store.xpending(stream, GROUP)
        first_pending = pending["min"] if pending and pending["pending"] else None
        unread: Any = store.xrange(stream, f"({_text(group['last-delivered-id'])}", "+", count=1)
        candidates = [_ms(first_pending)] if first_pending else []
        candidates += [_ms(unread[0][0])] if unread else []
        if candidates:
            oldest = min([*candidates, oldest if oldest is not None else now])
    if not grouped:
        return None
    return now if oldest is None else oldest


def _ms(entry_id: bytes | str) -> float:
    return float(_text(entry_id).split("-", 1)[0])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@translated
def render(store: Client, keys: KeySpace, archive: Archive) -> bytes:
    """The archive's gauges for ``/metrics``."""
    health = archive_health(store, keys, archive)
    registry = CollectorRegistry()
    figures = [
        (
            "risk_archive_lag_seconds",
            "Age of the oldest notification not yet in the archive (NaN: no projector yet)",
            float("nan") if health.lag_seconds is None else health.lag_seconds,
        ),
        (
            "risk_projectors_alive",
            "Projectors that made a round in the last 10 s",
            health.projectors_alive,
        ),
        ("risk_archive_up", "1 if the archive's database answers", health.database == "ok"),
        (
            "risk_projector_lag_p50_seconds",
            "The projector's median commit lag, recent",
            health.projected_lag_p50_ms / 1000,
        ),
        (
            "risk_projector_lag_p99_seconds",
            "The projector's 99th percentile commit lag, recent",
            health.projected_lag_p99_ms / 1000,
        ),
        (
            "risk_archive_records",
            "Records the projector has archived (since its stats began)",
            health.records_archived,
        ),
    ]
    for name, text, value in figures:
        Gauge(name, text, registry=registry).set(float(value))
    return generate_latest(registry)
