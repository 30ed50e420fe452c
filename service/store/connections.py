"""Redis clients, made in one place from the settings.

Two roles, which may be one server or two:

* the **game store** (``REDIS_URL``): events, outboxes, snapshots, the
  lobby, clocks, rate limits. One Redis, or a Redis Cluster with
  ``RISK_REDIS_CLUSTER=1``: every script and transaction of the store
  touches one hash-tagged slot (``service.store.keys``), so it runs unchanged on
  a cluster, and the URL may name any of its nodes.
* **RQ's queues** (``RISK_QUEUE_URL``, default the store's URL): RQ moves
  jobs between keys of different names in one transaction, which a
  cluster refuses, so its queues need one plain Redis. With a clustered
  store, ``RISK_QUEUE_URL`` must name one (``Settings`` checks).
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service.settings import Settings
from service.store.values import Client

__all__ = ["queue_client", "quick_retry", "store_client", "url_clients"]


def store_client(settings: Settings, **options: Any) -> Client:
    """A client of the game store: ``RedisCluster`` when the settings say so."""
    if settings.redis_cluster:
        return RedisCluster.from_url(settings.redis_url, **options)
    return redis.Redis.from_url(settings.redis_url, **options)


def quick_retry() -> Retry:
    """Reconnect a dropped connection at once (the store relies on it), but give up
    within ~0.1 s: a request then answers 503 with Retry-After instead of hanging
    for the client library's default ~3 s while Redis is down."""
    return Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.05), 3)


def queue_client(settings: Settings, **options: Any) -> redis.Redis:
    """A client of the Redis that holds RQ's queues (never a cluster)."""
    return redis.Redis.from_url(settings.queue_redis_url, **options)


def url_clients(url: str) -> tuple[redis.Redis, redis.Redis]:
    """A plain Redis's two clients: one for commands, one with a timeout longer than
    a long-poll's for blocking reads (``service.application.games.GameService.from_url``)."""
    client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    waits = redis.Redis.from_url(url, socket_timeout=60, socket_connect_timeout=5)
    return client, waits
