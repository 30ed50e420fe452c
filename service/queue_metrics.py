"""Worker-side figures for ``/metrics``: queue depths, failures, relay health.

Read from Redis at scrape time (a few O(1) calls), so any API process can
report them whichever worker processes exist. Queue and registry names are
RQ's own, so rq-dashboard shows the same queues (``<prefix>.games``,
``<prefix>.clocks``).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Gauge, generate_latest
from redis import Redis
from rq import Queue

from service.keys import KeySpace
from service.store import Client

QUEUES = ("games", "clocks")


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
        "risk_games_awaiting_worker", "Games a worker must still act in (leases)", registry=registry
    ).set(store.zcard(keys.worker_leases()))
    return generate_latest(registry)
