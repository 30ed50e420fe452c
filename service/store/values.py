"""What the event store takes and gives: events, heads, snapshots, outbox entries.

The values of ``service.store.event_store``'s interface, apart from the store
itself, so the application can name them without the store's machinery;
``new_events`` chains payloads into an append's batch. ``Client`` is the type
of the Redis client the store runs on (one Redis or a Redis Cluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import redis
from redis.cluster import RedisCluster

from riskcore.audit.chain import chain

__all__ = [
    "AppendResult",
    "Client",
    "Head",
    "NewEvent",
    "Notification",
    "Snapshot",
    "StoredEvent",
    "Tail",
    "new_events",
]

Client = redis.Redis | RedisCluster


# Named tuples, not dataclasses: a load builds thousands of StoredEvents and
# tuple construction is several times cheaper; they are just as immutable.
class NewEvent(NamedTuple):
    """An event to append: its canonical payload and its chain hash."""

    payload: bytes
    hash: bytes


class StoredEvent(NamedTuple):
    """An event as read back, with both ends of its chain link."""

    version: int
    payload: bytes
    hash: bytes
    prev: bytes


class AppendResult(NamedTuple):
    """Versions written (or written by the original call, when ``replayed``)."""

    first_version: int
    last_version: int
    head_hash: bytes
    replayed: bool


class Head(NamedTuple):
    """A game's version and the hash the next event must follow."""

    version: int
    hash: bytes


class Snapshot(NamedTuple):
    """Encoded state after ``version`` events."""

    version: int
    data: bytes


class Tail(NamedTuple):
    """What a load needs: the newest valid snapshot and the events after it."""

    snapshot: Snapshot | None
    events: list[StoredEvent]
    head_hash: bytes


class Notification(NamedTuple):
    """One outbox entry: ``game_id`` moved from ``first_version - 1`` to ``last_version``."""

    id: str
    game_id: str
    first_version: int
    last_version: int
    kind: str

    @classmethod
    def from_entry(cls, entry_id: bytes, fields: dict[bytes, bytes]) -> Notification:
        """Parse an outbox stream entry as returned by XRANGE or XREADGROUP.

        append.lua writes one field, ``n``: ``first last game kind``; entries
        written before hold the fields ``g``, ``f``, ``l`` and ``k`` (optional).
        """
        packed = fields.get(b"n")
        if packed is not None:
            first, last, game, kind = packed.decode().split(" ", 3)
            return cls(entry_id.decode(), game, int(first), int(last), kind)
        return cls(
            id=entry_id.decode(),
            game_id=fields[b"g"].decode(),
            first_version=int(fields[b"f"]),
            last_version=int(fields[b"l"]),
            kind=fields.get(b"k", b"").decode(),
        )


def new_events(
    prev: bytes, payloads: Sequence[bytes], hashed: Sequence[bytes] | None = None
) -> list[NewEvent]:
    """Chain ``payloads`` after the event hashing to ``prev``, ready to append.

    ``hashed`` are the bytes each hash covers when they are not the payload
    (a format-2 event with secrets: ``riskcore.audit.record.hashed_bytes``).
    """
    hashes = chain(prev, payloads if hashed is None else hashed)
    return [NewEvent(p, h) for p, h in zip(payloads, hashes, strict=True)]
