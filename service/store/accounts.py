"""Accounts in the SQL database (issue 49): create, find, rename on deletion.

Names are unique regardless of case: ``name_key`` (the lower-cased name)
has a unique index, so two people registering "Ada" and "ada" at once
cannot both win; the loser gets ``NameTaken``. A deleted account keeps its
row (seats and ratings point at it) under a replaced name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from service.store.account_tables import accounts
from service.store.database import sql_door

__all__ = ["AccountRow", "AccountStore", "NameTaken"]


class NameTaken(Exception):
    """Another account has this name (compared without case)."""


@dataclass(frozen=True, slots=True)
class AccountRow:
    id: str
    name: str
    kind: str  # human | bot
    level: str | None
    created_ms: int
    deleted_ms: int | None = None


@sql_door
class AccountStore:
    """Reads and writes ``accounts``."""

    def __init__(self, engine: Engine, *, migrate_first: Callable[[], bool] | None = None) -> None:
        """``migrate_first``: see ``sql_door`` (the embedded SQLite file's first use)."""
        self._engine = engine
        self.migrate_first = migrate_first

    def create(self, row: AccountRow, subject: str | None = None) -> AccountRow:
        values = _values(row) | {"subject": subject}
        try:
            with self._engine.begin() as connection:
                connection.execute(accounts.insert().values(**values))
        except sa.exc.IntegrityError:
            raise NameTaken(row.name) from None
        return row

    def by_id(self, account_id: str) -> AccountRow | None:
        return self._one(accounts.c.id == account_id)

    def by_name(self, name: str) -> AccountRow | None:
        return self._one(accounts.c.name_key == name.lower())

    def by_subject(self, subject: str) -> AccountRow | None:
        return self._one(accounts.c.subject == subject)

    def many(self, account_ids: list[str]) -> dict[str, AccountRow]:
        if not account_ids:
            return {}
        with self._engine.connect() as connection:
            rows = connection.execute(accounts.select().where(accounts.c.id.in_(account_ids)))
            return {r.id: _row(r) for r in rows}

    def delete(self, account_id: str, replaced_name: str, now_ms: int) -> None:
        """Keep the row, drop the name (and the OIDC subject): records stay, the person goes."""
        with self._engine.begin() as connection:
            connection.execute(
                accounts.update()
                .where(accounts.c.id == account_id)
                .values(
                    name=replaced_name,
                    name_key=replaced_name.lower(),
                    subject=None,
                    deleted_ms=now_ms,
                )
            )

    def _one(self, where: Any) -> AccountRow | None:
        with self._engine.connect() as connection:
            found = connection.execute(accounts.select().where(where)).first()
        return None if found is None else _row(found)


def _values(row: AccountRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "name_key": row.name.lower(),
        "kind": row.kind,
        "level": row.level,
        "created_ms": row.created_ms,
        "deleted_ms": row.deleted_ms,
    }


def _row(found: Any) -> AccountRow:
    return AccountRow(
        found.id, found.name, found.kind, found.level, found.created_ms, found.deleted_ms
    )
