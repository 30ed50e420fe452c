"""Account tokens in the SQL database, and the revocation counter in Redis (issue 49).

Only a token's SHA-256 is stored (``service.application.auth.hash_token``).
API processes cache lookups; ``RevocationCounter`` is how they learn that a
token was revoked elsewhere: every revocation raises one Redis counter, and
each request reads it (one ``GET``) and empties the cache when it moved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from service.store.account_tables import accounts, tokens
from service.store.database import sql_door
from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["RevocationCounter", "TokenRow", "TokenStore"]


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
    """The Redis counter every revocation raises (``KeySpace.tokens_version``)."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._key = keys.tokens_version()

    def read(self) -> int:
        return int(self._client.get(self._key) or 0)

    def bump(self) -> None:
        self._client.incr(self._key)


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
