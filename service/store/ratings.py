"""Ratings per account and mode, and the log of rated results (issue 49).

``rated_games`` is the log (one row per rated game, its seats' accounts and
who won); ``ratings`` the table the log makes, written in the same
transaction as the log's row, so a game is rated exactly once even when two
processes catch up at once (the second insert of the log row fails and its
transaction, ratings included, rolls back). ``FinishedQueue`` is the Redis
list of rated games that finished and wait to be rated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from service.store.account_tables import accounts, rated_games, ratings
from service.store.database import sql_door
from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["FinishedQueue", "RatedGame", "RatingRow", "RatingStore"]


@dataclass(frozen=True, slots=True)
class RatingRow:
    account_id: str
    mode: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A rated result: the accounts of a finished game's seats, and which won."""

    game_id: str
    mode: str
    finished_ms: int
    seats: tuple[tuple[str, bool], ...]  # (account id, won)


@sql_door
class RatingStore:
    def __init__(self, engine: Engine, *, migrate_first: Callable[[], bool] | None = None) -> None:
        """``migrate_first``: see ``sql_door`` (the embedded SQLite file's first use)."""
        self._engine = engine
        self.migrate_first = migrate_first

    def of(self, mode: str, account_ids: Iterable[str]) -> dict[str, RatingRow]:
        ids = list(account_ids)
        query = ratings.select().where(ratings.c.mode == mode, ratings.c.account_id.in_(ids))
        with self._engine.connect() as connection:
            return {r.account_id: _row(r) for r in connection.execute(query)}

    def of_account(self, account_id: str) -> list[RatingRow]:
        query = ratings.select().where(ratings.c.account_id == account_id).order_by(ratings.c.mode)
        with self._engine.connect() as connection:
            return [_row(r) for r in connection.execute(query)]

    def top(self, mode: str, limit: int) -> list[tuple[RatingRow, str, str]]:
        """The best ``limit`` ratings of ``mode`` by ordinal: (rating, name, kind)."""
        query = (
            sa.select(ratings, accounts.c.name, accounts.c.kind)
            .join(accounts, accounts.c.id == ratings.c.account_id)
            .where(ratings.c.mode == mode, accounts.c.deleted_ms.is_(None))
            .order_by(ratings.c.ordinal.desc(), accounts.c.name_key)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return [(_row(r), r.name, r.kind) for r in connection.execute(query)]

    def record(self, game: RatedGame, updated: Mapping[str, RatingRow]) -> bool:
        """Log ``game`` and write its new ratings at once; False if it was rated before."""
        try:
            with self._engine.begin() as connection:
                connection.execute(rated_games.insert().values(**_game_values(game)))
                _write(connection, updated.values())
        except sa.exc.IntegrityError:
            return False
        return True

    def log(self) -> list[RatedGame]:
        """Every rated result, in the order rated."""
        query = rated_games.select().order_by(rated_games.c.finished_ms, rated_games.c.game_id)
        with self._engine.connect() as connection:
            return [_game(r) for r in connection.execute(query)]

    def replace_all(self, rows: Iterable[RatingRow]) -> None:
        """The ratings table becomes exactly ``rows`` (a rebuild)."""
        with self._engine.begin() as connection:
            connection.execute(ratings.delete())
            _write(connection, rows)


@door
class FinishedQueue:
    """Rated games that finished, waiting to be rated (``KeySpace.rated_finished``)."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._key = keys.rated_finished()

    def take(self, count: int) -> list[str]:
        """Up to ``count`` game ids, removed at once (two processes never take one id)."""
        taken = self._client.lpop(self._key, count)
        return [m.decode() for m in taken or []]

    def length(self) -> int:
        return int(self._client.llen(self._key))


def _write(connection: Connection, rows: Iterable[RatingRow]) -> None:
    for row in rows:
        key = (ratings.c.account_id == row.account_id) & (ratings.c.mode == row.mode)
        connection.execute(ratings.delete().where(key))
        connection.execute(ratings.insert().values(**_values(row)))


def _values(row: RatingRow) -> dict[str, Any]:
    return {
        "account_id": row.account_id,
        "mode": row.mode,
        "mu": row.mu,
        "sigma": row.sigma,
        "ordinal": row.ordinal,
        "games": row.games,
        "provisional": row.provisional,
    }


def _row(found: Any) -> RatingRow:
    return RatingRow(
        found.account_id,
        found.mode,
        found.mu,
        found.sigma,
        found.ordinal,
        found.games,
        bool(found.provisional),
    )


def _game_values(game: RatedGame) -> dict[str, Any]:
    seats = [{"account": a, "won": w} for a, w in game.seats]
    return {
        "game_id": game.game_id,
        "mode": game.mode,
        "finished_ms": game.finished_ms,
        "seats": json.dumps(seats),
    }


def _game(found: Any) -> RatedGame:
    seats = tuple((s["account"], bool(s["won"])) for s in json.loads(found.seats))
    return RatedGame(found.game_id, found.mode, found.finished_ms, seats)
