"""Worker-side figures for ``/metrics`` and ``/readyz``: queues, failures, worker health.

Read from the job queues and the game store (``service.store.queues`` names
the queues), so they live with the store; the HTTP edge only serves them.

Read from Redis at scrape time (a few O(log n) calls), so any API process can
report them whichever worker processes exist. Queue and registry names are
RQ's own, so rq-dashboard shows the same queues (``<prefix>.games``,
``<prefix>.clocks``). Worker health (``WorkerHealth``): relays seen lately
(their heartbeats), whether a deadline scheduler holds the clocks' lock,
deadlines overdue (still in the scheduled registry well after they were
due: no scheduler moves them), and jobs that gave up for good.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Gauge, generate_latest
from redis import Redis
from rq import Queue
from rq.scheduler import RQScheduler

from service.store.errors import gauges
from service.store.keys import KeySpace
from service.store.queues import CLOCKS_QUEUE, WORKER_QUEUES
from service.store.values import Client

__all__ = ["QUEUES", "WorkerHealth", "render", "worker_health"]

QUEUES = WORKER_QUEUES  # the games workers' and the costly workers' (issue 54)
RELAY_ALIVE_SECONDS = 10  # a relay beats about every second
OVERDUE_SECONDS = 5  # a scheduler moves a due job within ~1.5 s


@dataclass(frozen=True)
class WorkerHealth:
    relays_alive: int
    relay_last_seen_seconds: float | None  # since the newest heartbeat; None: never seen
    scheduler_up: bool
    clocks_overdue: int
    clock_overdue_seconds: float  # how late the most overdue deadline is; 0 if none
    job_dead_letters: int

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@gauges
def worker_health(queues: Redis, store: Client, keys: KeySpace) -> WorkerHealth:
    """What ``/readyz`` shows and ``/metrics`` exports about relays, scheduler and clocks."""
    now = time.time()
    beats = keys.relay_heartbeats()
    alive = store.zcount(beats, (now - RELAY_ALIVE_SECONDS) * 1000, "+inf")
    newest: Any = store.zrange(beats, -1, -1, withscores=True)
    clocks = Queue(f"{keys.rq_prefix()}{CLOCKS_QUEUE}", connection=queues)
    scheduled = clocks.scheduled_job_registry.key
    overdue = queues.zcount(scheduled, 0, now - OVERDUE_SECONDS)
    oldest: Any = queues.zrange(scheduled, 0, 0, withscores=True)
    return WorkerHealth(
        relays_alive=int(alive),
        relay_last_seen_seconds=round(now - newest[0][1] / 1000, 3) if newest else None,
        scheduler_up=bool(queues.exists(RQScheduler.get_locking_key(clocks.name))),
        clocks_overdue=int(overdue),
        clock_overdue_seconds=max(0.0, round(now - oldest[0][1], 3)) if overdue else 0.0,
        job_dead_letters=int(store.xlen(keys.job_dead_letters())),
    )


@gauges
def render(queues: Redis, store: Client, keys: KeySpace) -> bytes:
    """RQ's queue gauges (from RQ's Redis) and the relay's (from the game store)."""
    registry = CollectorRegistry()
    depth = Gauge("risk_queue_jobs", "Jobs waiting in a queue", ["queue"], registry=registry)
    failed = Gauge(
        "risk_queue_failed_jobs", "Jobs in a queue's failed registry", ["queue"], registry=registry
    )
    scheduled = Gauge(
        "risk_queue_scheduled_jobs",
        "Jobs scheduled for later (deadlines)",
        ["queue"],
        registry=registry,
    )
    for name in QUEUES:
        queue = Queue(f"{keys.rq_prefix()}{name}", connection=queues)
        depth.labels(name).set(queue.count)
        failed.labels(name).set(queue.failed_job_registry.count)
        scheduled.labels(name).set(queue.scheduled_job_registry.count)
    Gauge(
        "risk_relay_dead_letters", "Outbox notifications the relay gave up on", registry=registry
    ).set(store.xlen(keys.relay_dead_letters()))
    Gauge(
        "risk_games_awaiting_worker",
        "Games a worker must still act in, or whose clock runs (leases)",
        registry=registry,
    ).set(store.zcard(keys.worker_leases()))
    _health_gauges(registry, worker_health(queues, store, keys))
    return generate_latest(registry)


def _health_gauges(registry: CollectorRegistry, health: WorkerHealth) -> None:
    figures = [
        ("risk_relays_alive", "Relays that beat in the last 10 s", health.relays_alive),
        (
            "risk_relay_last_seen_seconds",
            "Seconds since the newest relay heartbeat (NaN: none ever)",
            float("nan")
            if health.relay_last_seen_seconds is None
            else health.relay_last_seen_seconds,
        ),
        (
            "risk_scheduler_up",
            "1 if a deadline scheduler holds the clocks' lock",
            health.scheduler_up,
        ),
        (
            "risk_clocks_overdue",
            "Deadlines still waiting for a scheduler 5 s after they were due",
            health.clocks_overdue,
        ),
        (
            "risk_clock_overdue_seconds",
            "How late the most overdue deadline is (0: none)",
            health.clock_overdue_seconds,
        ),
        (
            "risk_job_dead_letters",
            "Jobs that gave up for good (idempotency mismatch)",
            health.job_dead_letters,
        ),
    ]
    for name, text, value in figures:
        Gauge(name, text, registry=registry).set(float(value))
