"""Where creators' quotas and storage budgets are kept, and what Redis's memory is.

Two sorted sets per creator (``scope`` "ip" or "token", and its id):

* its active games (``KeySpace.game_quota``): game id (or a ``pending:``
  placeholder, or a tournament's ``tournament:<id>:<k>`` places) -> creation ms;
  ``service.application.quotas`` decides what still counts;
* its creations within the retention horizon (``KeySpace.stored``): one
  member per game created, by time; ``service.application.storage`` decides
  how many a creator may keep.

``memory`` reads Redis's used memory and ``maxmemory`` for the high-water mark
(``StorageBudget``), summed over a cluster's nodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.store.errors import door, translated
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["ActiveGames", "Creations", "memory"]


@door
class ActiveGames:
    """Each creator's active games: the set ``service.application.quotas`` counts."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def key(self, scope: str, ident: str) -> str:
        """The creator's set: the handle the other methods take."""
        return self._keys.game_quota(scope, ident)

    def add(self, key: str, members: Iterable[str], at_ms: int) -> None:
        self._client.zadd(key, dict.fromkeys(members, at_ms))

    def remove(self, key: str, members: Iterable[str]) -> None:
        gone = list(members)
        if gone:
            self._client.zrem(key, *gone)

    def replace(self, keys: Iterable[str], old: Iterable[str], new: dict[str, int]) -> None:
        """In each of ``keys``: ``old`` members out, ``new`` ones (member -> ms) in."""
        gone = list(old)
        pipe = self._client.pipeline(transaction=False)
        for key in keys:
            pipe.zrem(key, *gone)
            pipe.zadd(key, new)  # type: ignore[arg-type]
        pipe.execute()

    def members(self, key: str) -> list[str]:
        return [m.decode() for m in self._client.zrange(key, 0, -1)]

    def added_at(self, key: str, member: str) -> float | None:
        """When ``member`` was added (ms), None if it is gone."""
        score = self._client.zscore(key, member)
        return None if score is None else float(score)


@door
class Creations:
    """Each creator's creations within the retention horizon (``StorageBudget``)."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def key(self, scope: str, ident: str) -> str:
        return self._keys.stored(scope, ident)

    def count_with(self, key: str, members: Iterable[str], now_ms: int, horizon_ms: int) -> int:
        """Add ``members`` at ``now_ms``, forget what is older than the horizon, and
        count what is left, in one round trip."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zremrangebyscore(key, "-inf", now_ms - horizon_ms)
        pipe.zadd(key, dict.fromkeys(members, now_ms))
        pipe.pexpire(key, horizon_ms)
        pipe.zcard(key)
        return int(pipe.execute()[-1])

    def remove(self, key: str, members: Iterable[str]) -> None:
        gone = list(members)
        if gone:
            self._client.zrem(key, *gone)


@translated
def memory(client: Client) -> tuple[int, int]:
    """(used_memory, maxmemory) in bytes, summed over a cluster's nodes."""
    info: Any = client.info("memory")
    nodes = info.values() if info and isinstance(next(iter(info.values())), dict) else [info]
    used = sum(int(node.get("used_memory", 0)) for node in nodes)
    limit = sum(int(node.get("maxmemory", 0)) for node in nodes)
    return used, limit
