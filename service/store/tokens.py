"""Account tokens in the SQL database, and the revocation counter in Redis (issue 49).

Only a token's SHA-256 is stored (``service.application.auth.hash_token``).
API processes cache lookups; ``RevocationCounter`` is how they learn that a
token was revoked elsewhere: every revocation raises one Redis counter and
publishes that it did; each request reads the counter as its process's
subscription knows it, and empties the cache when it moved.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from redis.exceptions import RedisError
from sqlalchemy.engine import Engine

from service.store.account_tables import accounts, tokens
from service.store.database import sql_door
from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["RevocationCounter", "TokenRow", "TokenStore"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TokenRow:
    id: str
    account_id: str
    name: str | None
    scopes: tuple[str, ...]
    created_ms: int
    last_used_ms: int | None = None
    revoked_ms: int | None = None


@sql_door
class TokenStore:
    """Reads and writes ``tokens``."""

    def __init__(self, engine: Engine, *, migrate_first: Callable[[], bool] | None = None) -> None:
        """``migrate_first``: see ``sql_door`` (the embedded SQLite file's first use)."""
        self._engine = engine
        self.migrate_first = migrate_first

    def add(self, row: TokenRow, token_hash: str) -> None:
        with self._engine.begin() as connection:
            connection.execute(
                tokens.insert().values(
                    id=row.id,
                    account_id=row.account_id,
                    name=row.name,
                    scopes=" ".join(row.scopes),
                    hash=token_hash,
                    created_ms=row.created_ms,
                )
            )

    def live_by_hash(self, token_hash: str) -> TokenRow | None:
        """The unrevoked token of a live account with this hash (None: no such token)."""
        query = (
            tokens.select()
            .join(accounts, accounts.c.id == tokens.c.account_id)
            .where(tokens.c.hash == token_hash)
            .where(tokens.c.revoked_ms.is_(None))
            .where(accounts.c.deleted_ms.is_(None))
        )
        with self._engine.connect() as connection:
            found = connection.execute(query).first()
        return None if found is None else _row(found)

    def of_account(self, account_id: str) -> list[TokenRow]:
        query = (
            tokens.select()
            .where(tokens.c.account_id == account_id)
            .where(tokens.c.revoked_ms.is_(None))
            .order_by(tokens.c.created_ms, tokens.c.id)
        )
        with self._engine.connect() as connection:
            return [_row(r) for r in connection.execute(query)]

    def revoke(self, account_id: str, token_id: str | None, now_ms: int) -> int:
        """Revoke one of the account's tokens (every one for ``None``): how many were live."""
        query = (
            tokens.update()
            .where(tokens.c.account_id == account_id)
            .where(tokens.c.revoked_ms.is_(None))
            .values(revoked_ms=now_ms)
        )
        if token_id is not None:
            query = query.where(tokens.c.id == token_id)
        with self._engine.begin() as connection:
            return int(connection.execute(query).rowcount)

    def used(self, token_id: str, now_ms: int) -> None:
        with self._engine.begin() as connection:
            connection.execute(
                tokens.update().where(tokens.c.id == token_id).values(last_used_ms=now_ms)
            )

    def ping(self) -> None:
        with self._engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))


@door
class RevocationCounter:
    """The Redis counter every revocation raises (``KeySpace.tokens_version``).

    Each revocation also publishes on a channel, and each process subscribes to
    it on its first ``read``: a read then looks at that subscription's socket
    (a poll, no round trip) and reads the counter again only when a message came.
    Every subscriber's socket holds the message before ``bump`` returns (it waits
    for one more answer of Redis), and the revoking process forgets its own copy
    at once, so a revoked token is refused at once as before, without a ``GET``
    a request (a command is one round trip
    to Redis: that ``GET`` was a second, and 15% of a command's CPU). The counter
    is read anyway every 5 s (a message lost: a publish that failed after its
    ``INCR``). Without a subscription (it failed, or its connection broke; tried
    again every 5 s) every read is a ``GET``, as before. ``watch=False``: always
    a ``GET``.
    """

    RESUBSCRIBE_S = 5.0
    REFRESH_S = 5.0  # read anyway this often: a message lost (a publish that failed)

    def __init__(self, client: Client, keys: KeySpace, *, watch: bool = True) -> None:
        self._client = client
        self._key = keys.tokens_version()
        self._channel = f"{self._key}:bumped"
        self._watch = watch
        self._lock = threading.Lock()
        self._pubsub: Any = None
        self._pid = 0
        self._known: int | None = None
        self._read_at = 0.0
        self._retry_at = 0.0

    def read(self) -> int:
        if self._watch:
            with self._lock:
                try:
                    known = self._watched()
                except Exception as error:
                    if self._pubsub is not None or self._retry_at == 0:
                        log.warning("revocations: no subscription (%s); a GET a read", error)
                    self._pubsub, self._known = None, None  # a GET a read until resubscribed
                    known = None
            if known is not None:
                return known
        return self._get()

    def bump(self) -> None:
        self._client.incr(self._key)
        with self._lock:
            self._known = None  # this process: at once, whatever the message's way
        with contextlib.suppress(RedisError, OSError):  # the others then within 5 s
            self._client.publish(self._channel, "1")
            # Redis writes the message to every subscriber's socket before it reads
            # another command: once this answer is back, they all have it.
            self._client.ping()

    def _get(self) -> int:
        return int(self._client.get(self._key) or 0)

    def _watched(self) -> int | None:
        """The counter as the subscription knows it; None without one."""
        if self._pubsub is None or self._pid != os.getpid():  # a forked child: its own
            self._pubsub = None
            if time.monotonic() < self._retry_at:
                return None
            self._retry_at = time.monotonic() + self.RESUBSCRIBE_S
            self._subscribe()
        while (message := self._pubsub.get_message(timeout=0.0)) is not None:
            if message.get("type") == "message":  # (not a resubscription's confirmation)
                self._known = None  # a revocation: read the counter again
        if self._known is None or time.monotonic() - self._read_at >= self.REFRESH_S:
            self._known, self._read_at = self._get(), time.monotonic()
        return self._known

    def _subscribe(self) -> None:
        pubsub = self._client.pubsub()
        pubsub.subscribe(self._channel)
        confirmed = pubsub.get_message(timeout=2.0)  # before reading the counter
        if confirmed is None or confirmed.get("type") != "subscribe":
            pubsub.close()
            raise RedisError("no subscription to the revocations' channel")
        # The client reconnects and subscribes again by itself, and a message sent
        # meanwhile is lost: after a reconnection, read the counter again.
        pubsub.connection.register_connect_callback(self._reconnected)
        self._pubsub, self._pid, self._known = pubsub, os.getpid(), None

    def _reconnected(self, _connection: Any) -> None:
        self._known = None  # under the lock: only ``_watched`` reads the subscription


def _row(found: Any) -> TokenRow:
    return TokenRow(
        found.id,
        found.account_id,
        found.name,
        tuple(found.scopes.split()),
        found.created_ms,
        found.last_used_ms,
        found.revoked_ms,
    )
