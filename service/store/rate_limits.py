"""Where rate-limit counters are kept: one counter per client, scope and window.

A fixed window in Redis: ``INCRBY`` by what a process counted since its
last flush, then ``EXPIRE NX`` one second past the window, in one round trip
(``service.http.ratelimit`` batches the counts and decides what is over).
"""

from __future__ import annotations

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["RateCounters"]


@door
class RateCounters:
    """The counters of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def key(self, scope: str, ident: str, window: int) -> str:
        """The counter of ``ident`` in ``scope`` for window number ``window``."""
        return self._keys.rate_limit(scope, ident, window)

    def add(self, key: str, amount: int, window_seconds: int) -> int:
        """Add ``amount`` to the counter; its total. StoreUnavailable if Redis is away."""
        pipe = self._client.pipeline(transaction=False)
        pipe.incrby(key, amount)
        pipe.expire(key, window_seconds + 1, nx=True)
        total, _ = pipe.execute()
        return int(total)
