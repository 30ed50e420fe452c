"""Where the leases of open event streams and long-polls are kept, per client address.

A sorted set per address (``KeySpace.stream_slots``): member a lease's id,
score when it runs out; the set itself expires after its last use. Taking a
lease is one pipelined round trip (drop the expired ones, add ours, count);
``service.http.stream_slots`` decides how many an address may hold.
"""

from __future__ import annotations

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["StreamLeases"]


@door
class StreamLeases:
    """The sorted sets of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def key(self, address: str) -> str:
        return self._keys.stream_slots(address)

    def take(self, key: str, lease: str, now_ms: int, until_ms: int, keep_ms: int) -> int:
        """Hold ``lease`` until ``until_ms``; how many leases the set holds with it."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zremrangebyscore(key, "-inf", now_ms)
        pipe.zadd(key, {lease: until_ms})
        pipe.zcard(key)
        pipe.pexpire(key, keep_ms)
        return int(pipe.execute()[2])

    def renew(self, key: str, lease: str, until_ms: int, keep_ms: int) -> None:
        """Hold ``lease`` (if still held) until ``until_ms``."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zadd(key, {lease: until_ms}, xx=True)
        pipe.pexpire(key, keep_ms)
        pipe.execute()

    def release(self, key: str, lease: str) -> None:
        self._client.zrem(key, lease)
