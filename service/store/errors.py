"""Errors raised by the event store.

One tree, rooted in ``StoreError``; each class has a stable ``code`` that
the API maps to a problem type, and a message naming the offending value::

    StoreError
    ├── InvalidArgument (ValueError)      bad input; retrying cannot help
    │   ├── InvalidName                   game id, idempotency key, key prefix
    │   └── MalformedAppend               empty batch, bad hash, seed too late, ...
    ├── AppendRejected                    well-formed, refused by the stored state
    │   ├── VersionConflict               .current_version: reload and decide again
    │   ├── ChainMismatch                 .head_hash: prev does not follow the head
    │   └── IdempotencyMismatch           .key: the key was used for another request
    ├── GameNotFound                      .game_id
    └── StoreUnavailable                  Redis unreachable or full
        ├── DatabaseUnavailable           the SQL database (accounts) unreachable
        ├── StoreFull                     maxmemory reached: nothing was written
        └── AppendOutcomeUnknown          .idempotency_key: retry with it to find out

Rejections are separate from bad input because the caller reacts
differently: a conflict means "someone else moved first, reload", a bad
argument means a bug. ``AppendOutcomeUnknown`` exists because a dropped
connection cannot tell whether the script ran; retrying with the key it
carries is always safe and returns the original result if it did.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from redis import exceptions as _redis

__all__ = [
    "REDIS_FULL",
    "REDIS_OUTAGES",
    "AppendOutcomeUnknown",
    "AppendRejected",
    "ChainMismatch",
    "DatabaseUnavailable",
    "GameNotFound",
    "IdempotencyMismatch",
    "InvalidArgument",
    "InvalidName",
    "MalformedAppend",
    "StoreError",
    "StoreFull",
    "StoreUnavailable",
    "VersionConflict",
    "door",
    "gauges",
    "translated",
]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class StoreError(Exception):
    """Base of every error the event store raises on purpose."""

    code = "store_error"


class InvalidArgument(StoreError, ValueError):
    """An argument no stored state could make acceptable."""

    code = "invalid_argument"


class InvalidName(InvalidArgument):
    """A game id, idempotency key or key prefix that cannot become a Redis key."""

    code = "invalid_name"


class MalformedAppend(InvalidArgument):
    """An append whose batch or options are invalid; nothing was written."""

    code = "malformed_append"


class AppendRejected(StoreError):
    """A well-formed append refused because of what is already stored."""

    code = "append_rejected"


class VersionConflict(AppendRejected):
    """The game is not at the expected version (lost-update protection)."""

    code = "version_conflict"

    def __init__(self, game_id: str, expected: int, current_version: int) -> None:
        super().__init__(
            f"game {game_id!r} is at version {current_version}, not the expected {expected}"
        )
        self.game_id = game_id
        self.expected = expected
        self.current_version = current_version


class ChainMismatch(AppendRejected):
    """The batch's first ``prev`` is not the stored head hash."""

    code = "chain_mismatch"

    def __init__(self, game_id: str, prev: bytes, head_hash: bytes) -> None:
        super().__init__(
            f"game {game_id!r}: batch follows {prev.hex()!r} but the head is {head_hash.hex()!r}"
        )
        self.game_id = game_id
        self.prev = prev
        self.head_hash = head_hash


class IdempotencyMismatch(AppendRejected):
    """The idempotency key was already used with a different request."""

    code = "idempotency_mismatch"

    def __init__(self, game_id: str, key: str) -> None:
        super().__init__(f"game {game_id!r}: idempotency key {key!r} was used for another request")
        self.game_id = game_id
        self.key = key


class GameNotFound(StoreError):
    """No game with this id is stored."""

    code = "game_not_found"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class StoreUnavailable(StoreError):
    """Redis could not be reached (after the client's own retries) or refused writes."""

    code = "store_unavailable"


class DatabaseUnavailable(StoreUnavailable):
    """The SQL database (accounts, tokens, ratings: issue 49) could not be reached, or
    has no tables yet (not migrated); its doors (``service.store.database.sql_door``)
    raise it in place of the driver's errors."""

    code = "database_unavailable"


class StoreFull(StoreUnavailable):
    """Redis is at maxmemory with ``noeviction``: the write was refused whole."""

    code = "store_full"


class AppendOutcomeUnknown(StoreUnavailable):
    """The connection failed during an append: it may or may not have happened."""

    code = "append_outcome_unknown"

    def __init__(self, game_id: str, idempotency_key: str | None, cause: BaseException) -> None:
        advice = (
            f"retry with idempotency key {idempotency_key!r}"
            if idempotency_key
            else "reload the game to find out"
        )
        super().__init__(f"game {game_id!r}: append outcome unknown ({cause}); {advice}")
        self.game_id = game_id
        self.idempotency_key = idempotency_key


# What a Redis (or a Redis Cluster) raises while it is away or changing hands:
# retrying later can succeed, so these are 503s and waited out, never 500s or
# crashes. A cluster mid-failover answers CLUSTERDOWN, TRYAGAIN or READONLY, or
# has no node for a slot (RedisClusterException); a restarting Redis LOADING
# (BusyLoadingError, a ConnectionError).
REDIS_OUTAGES: tuple[type[Exception], ...] = (
    _redis.ConnectionError,
    _redis.TimeoutError,
    _redis.ClusterError,
    _redis.TryAgainError,
    _redis.ReadOnlyError,
    _redis.RedisClusterException,
)
# What a Redis at maxmemory with ``noeviction`` raises: the write was refused whole.
REDIS_FULL: type[Exception] = _redis.OutOfMemoryError


def translated(method: Callable[P, R]) -> Callable[P, R]:
    """Turn the client's connection failures into the store's own errors: what the
    layers above catch is ``StoreUnavailable`` (or ``StoreFull``), never a Redis class."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except REDIS_OUTAGES as error:
            raise StoreUnavailable(f"Redis unavailable: {error}") from error
        except _redis.OutOfMemoryError as error:
            raise StoreFull(f"Redis refused the write: {error}") from error

    return wrapper


def door(cls: type[T]) -> type[T]:
    """``translated`` on every public method of a store class: the door of one stored thing.

    A generator's failures surface when it is iterated, past the wrapper; such
    methods translate inside themselves where it matters.
    """
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and callable(member) and not isinstance(member, type):
            setattr(cls, name, translated(member))
    return cls


def gauges(read: Callable[P, R]) -> Callable[P, R]:
    """For figures read at scrape time (``/metrics``, ``/readyz``): any Redis error,
    not only an outage, comes out as ``StoreUnavailable``, so the caller shows the
    rest without these figures instead of failing the scrape."""

    @functools.wraps(read)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return read(*args, **kwargs)
        except _redis.RedisError as error:
            raise StoreUnavailable(f"Redis unavailable: {error}") from error

    return wrapper
