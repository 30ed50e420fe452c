"""Consumer groups on the outboxes, shared by their three readers.

The relay (bot turns and clocks), the projector (the archive) and the webhook
feed each read every outbox through a consumer group of their own; creating
the group and the blocking read (one command for every outbox, or one per
outbox on Redis Cluster, whose slots one command cannot span) are the same
for all three, so they live here once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import ResponseError

from service.store.values import Client

__all__ = ["ensure_group", "read_group", "text"]


def ensure_group(client: Client, streams: Sequence[str], group: str, start: str) -> None:
    """``group`` on every stream, reading from ``start`` ("0": all, "$": new entries)."""
    for stream in streams:
        try:
            client.xgroup_create(stream, group, id=start, mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise


def read_group(
    client: Client, streams: Sequence[str], group: str, consumer: str, block_ms: int, count: int
) -> list[Any]:
    """New entries for ``consumer``: one blocking read of every stream; on Redis Cluster
    one read per stream, then a short nap when none had anything."""
    if not isinstance(client, RedisCluster):
        wanted = dict.fromkeys(streams, ">")
        return client.xreadgroup(group, consumer, wanted, count=count, block=block_ms) or []
    replies: list[Any] = []
    for stream in streams:
        replies += client.xreadgroup(group, consumer, {stream: ">"}, count=count) or []
    if not replies:
        time.sleep(min(block_ms, 50) / 1000)
    return replies


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
