"""The archive in SQL: games' summary rows, their seats, and finished games' records.

The projector (``workers.projector``) writes here; the API reads finished
games from here once Redis no longer has them
(``service.application.archived``), and lists and exports games with the
history's filters. The store deals in plain rows: it never decodes a record
(each is kept as one gzip member, served as is).

Writes are idempotent, so a notification handled twice changes nothing:

* a game's row is updated only by a summary of a newer version
  (an older one, from a slower consumer, is dropped by the ``WHERE``);
* a seat's row is final once it has a result (the game finished);
* a record is inserted once (``ON CONFLICT DO NOTHING``): a finished game's
  record never changes.

Every listing is ordered newest first by ``(created_ms, game_id)``, and pages
with the last row's pair as the cursor (``"<ms, 15 digits>:<game id>"``, the
lobby's form), so paging is stable while games are added.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from service.store.archive_tables import (
    UNRECORDED,
    archived_games,
    archived_records,
    archived_seats,
)
from service.store.errors import StoreUnavailable

__all__ = [
    "Archive",
    "ArchiveUnavailable",
    "ArchivedGame",
    "Filters",
    "GameRow",
    "RecordRow",
    "SeatRow",
]
P = ParamSpec("P")
R = TypeVar("R")

EXPORT_PAGE = 200  # records fetched per query while an export streams


class ArchiveUnavailable(StoreUnavailable):
    """The SQL database could not be reached, or has no archive yet (not migrated).

    Only reads that need the archive fail with it (503 ``archive_unavailable``):
    live games are in Redis and never wait for the database."""

    code = "archive_unavailable"


def _translated(method: Callable[P, R]) -> Callable[P, R]:
    """The driver's failures (connection refused, no such table) as ArchiveUnavailable."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except _FAILURES as error:
            archive = args[0]
            assert isinstance(archive, Archive)
            if not archive.migrated_now():
                raise ArchiveUnavailable(f"archive unavailable: {_first_line(error)}") from error
        try:  # the embedded database, migrated just now: once more
            return method(*args, **kwargs)
        except _FAILURES as error:
            raise ArchiveUnavailable(f"archive unavailable: {_first_line(error)}") from error

    return wrapper


_FAILURES = (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.InterfaceError)


def _first_line(error: sa.exc.DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig else str(error)


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: str
    kind: str
    name: str | None = None
    bot: str | None = None
    level: str | None = None
    account_id: str | None = None
    result: str | None = None  # "won" or "lost" once the game has finished


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game's summary, as of ``version``; ``info`` is its public info as JSON."""

    game_id: str
    mode: str
    board: str
    status: str
    created_ms: int
    updated_ms: int
    version: int
    head: str
    info: str
    seats: tuple[SeatRow, ...] = ()
    winner: str | None = None
    outcome: str | None = None
    tournament: str | None = None
    parent: str | None = None
    finished_ms: int | None = None


@dataclass(frozen=True, slots=True)
class RecordRow:
    game_id: str
    record: bytes  # one gzip member
    events: int
    size: int  # uncompressed bytes


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """What the read side needs of one archived game."""

    row: GameRow
    record: bytes | None  # gzip; None until the game has finished and been checked


@dataclass(frozen=True, slots=True)
class Filters:
    """The history's selection; ``result`` ("won"/"lost") needs ``player``."""

    player: str | None = None
    account: str | None = None
    mode: str | None = None
    board: str | None = None
    status: str | None = None
    result: str | None = None
    since: int | None = None  # created at or after (Unix ms)
    until: int | None = None  # created before (Unix ms)
    finished: bool = False  # only games with a record (the export)


class Archive:
    """The archive's reads and writes on one engine (``service.store.database``)."""

    def __init__(self, engine: Engine, *, migrate_on_first_use: bool = False) -> None:
        """``migrate_on_first_use``: an embedded SQLite file is migrated the first
        time a query finds its tables missing (``make run``, a fresh checkout);
        PostgreSQL is migrated by ``risk archive migrate`` or a server's start."""
        self.engine = engine
        self._dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._may_migrate = migrate_on_first_use

    def migrated_now(self) -> bool:
        """Migrate the database if this archive may (once); True if it did."""
        if not self._may_migrate:
            return False
        self._may_migrate = False
        from service.store.database import migrate

        migrate(self.engine.url.render_as_string(hide_password=False))
        return True

    # -- writing -------------------------------------------------------------------

    @_translated
    def write(self, games: Sequence[GameRow], records: Sequence[RecordRow], now_ms: int) -> None:
        """Upsert ``games`` (and their seats) and insert ``records``, in one transaction."""
        with self.engine.begin() as connection:
            if games:
                connection.execute(self._upsert_games, [_game_values(g) for g in games])
                seats = [_seat_values(g, s) for g in games for s in g.seats]
                if seats:
                    connection.execute(self._upsert_seats, seats)
            if records:
                rows = [asdict(r) | {"archived_ms": now_ms} for r in records]
                connection.execute(self._insert_records, rows)
                recorded = archived_games.c.game_id.in_([r.game_id for r in records])
                connection.execute(sa.update(archived_games).where(recorded).values(recorded=True))

    # The statements are built once: building one (its ``excluded`` columns, its
    # cache key) cost more than the projector's whole batch of rows took to write.

    @functools.cached_property
    def _insert_records(self) -> Any:
        return self._dialect.insert(archived_records).on_conflict_do_nothing()

    @functools.cached_property
    def _upsert_games(self) -> Any:
        insert = self._dialect.insert(archived_games)
        columns = [c.name for c in archived_games.columns if c.name not in ("game_id", "recorded")]
        return insert.on_conflict_do_update(
            index_elements=["game_id"],
            set_={name: insert.excluded[name] for name in columns},
            where=archived_games.c.version < insert.excluded.version,
        )

    @functools.cached_property
    def _upsert_seats(self) -> Any:
        insert = self._dialect.insert(archived_seats)
        columns = [c.name for c in archived_seats.columns if c.name not in ("game_id", "seat")]
        return insert.on_conflict_do_update(
            index_elements=["game_id", "seat"],
            set_={name: insert.excluded[name] for name in columns},
            where=archived_seats.c.result.is_(None),
        )

    @_translated
    def rename_account(self, account_id: str, name: str) -> list[str]:
        """The seats of a deleted account (issue 49) listed under ``name`` from now on,
        in the seats' rows and the games' info: the history by the old name no longer
        finds them. The records are not touched (their hash chain covers the names
        they were played under). Returns the games' ids."""
        seats, games = archived_seats.c, archived_games.c
        with self.engine.begin() as connection:
            ids = list(
                connection.execute(sa.select(seats.game_id).where(seats.account_id == account_id))
                .scalars()
                .all()
            )
            connection.execute(
                archived_seats.update().where(seats.account_id == account_id).values(name=name)
            )
            for game_id in ids:
                info = connection.execute(
                    sa.select(games.info).where(games.game_id == game_id)
                ).scalar_one_or_none()
                if info is not None:
                    renamed = _renamed(info, account_id, name)
                    connection.execute(
                        archived_games.update().where(games.game_id == game_id).values(info=renamed)
                    )
        return ids

    @_translated
    def prune(self, finished_before_ms: int) -> int:
        """Drop games finished before ``finished_before_ms`` (RISK_ARCHIVE_DAYS)."""
        with self.engine.begin() as connection:
            result = connection.execute(
                sa.delete(archived_games).where(archived_games.c.finished_ms < finished_before_ms)
            )
        return int(result.rowcount or 0)

    # -- reading -------------------------------------------------------------------

    @_translated
    def recorded(self, game_ids: Iterable[str]) -> set[str]:
        """Which of ``game_ids`` have their record archived."""
        ids = list(game_ids)
        if not ids:
            return set()
        query = sa.select(archived_records.c.game_id).where(archived_records.c.game_id.in_(ids))
        with self.engine.connect() as connection:
            return set(connection.execute(query).scalars())

    @_translated
    def unrecorded(self, limit: int) -> list[str]:
        """Finished games whose record is not archived yet, oldest end first: a look-up in
        the partial index of exactly those (migration 0004)."""
        with self.engine.connect() as connection:
            return list(connection.execute(self.unrecorded_query(limit)).scalars())

    def unrecorded_query(self, limit: int) -> sa.Select[Any]:
        """``unrecorded``'s query. SQLite is told to use the index (``INDEXED BY``, which
        fails rather than read the table another way): without statistics its planner
        takes the status index and reads every finished game."""
        table = "archived_games"
        if self.engine.dialect.name == "sqlite":
            table += " INDEXED BY ix_archived_games_unrecorded"
        return (
            sa.select(sa.column("game_id"))
            .select_from(sa.text(table))
            .where(UNRECORDED)
            .order_by(sa.column("finished_ms"))
            .limit(limit)
        )

    @_translated
    def get(self, game_id: str) -> ArchivedGame | None:
        """One game with its seats and record; None if it is not archived."""
        query = (
            sa.select(archived_games, archived_records.c.record)
            .outerjoin(archived_records, archived_records.c.game_id == archived_games.c.game_id)
            .where(archived_games.c.game_id == game_id)
        )
        with self.engine.connect() as connection:
            found = connection.execute(query).mappings().first()
            if found is None:
                return None
            seats = connection.execute(
                sa.select(archived_seats)
                .where(archived_seats.c.game_id == game_id)
                .order_by(archived_seats.c.seat)
            )
            row = _game_row(found, tuple(_seat_row(s) for s in seats.mappings()))
        return ArchivedGame(row, found["record"])

    @_translated
    def page(
        self, filters: Filters, limit: int, cursor: str | None = None
    ) -> tuple[list[GameRow], str | None]:
        """Up to ``limit`` games newest first, after ``cursor``; and the next cursor."""
        query = _selection(filters, cursor, whole=True).limit(limit + 1)
        with self.engine.connect() as connection:
            found = connection.execute(query).all()
            more = len(found) > limit
            rows = _with_seats(connection, found[:limit])
        last = rows[-1] if more and rows else None
        return rows, (f"{last.created_ms:015d}:{last.game_id}" if last else None)

    def records(self, filters: Filters, limit: int | None = None) -> Iterator[tuple[str, bytes]]:
        """(game id, gzip record) of the finished games selected, newest first, fetched
        ``EXPORT_PAGE`` at a time so that an export of many streams in constant memory."""
        selection = Filters(**(asdict(filters) | {"finished": True}))
        cursor: str | None = None
        left = limit
        while left is None or left > 0:
            size = EXPORT_PAGE if left is None else min(EXPORT_PAGE, left)
            batch = self._page_of_records(selection, cursor, size)
            for game_id, created_ms, record in batch:
                yield game_id, record
                cursor = f"{created_ms:015d}:{game_id}"
            if len(batch) < size:
                return
            if left is not None:
                left -= len(batch)

    @_translated
    def _page_of_records(self, filters: Filters, cursor: str | None, size: int) -> list[Any]:
        with self.engine.connect() as connection:
            return list(connection.execute(_records_query(filters, cursor, size)).all())

    @_translated
    def count(self) -> int:
        with self.engine.connect() as connection:
            total = connection.execute(sa.select(sa.func.count()).select_from(archived_games))
            return int(total.scalar_one())


def _selection(filters: Filters, cursor: str | None, *, whole: bool = False) -> sa.Select[Any]:
    """The ids (``whole``: the rows) of the selected games, newest first (the seats'
    index when by player)."""
    games = archived_games.c
    if filters.player is not None or filters.account is not None:
        seats = archived_seats.c
        key = (seats.created_ms, seats.game_id)
        query = sa.select(*_GAME_SELECT) if whole else sa.select(seats.game_id)
        query = query.where(*_seat_matches(archived_seats, filters), _first_match(filters))
        others = _game_conditions(filters)
        if others or whole:
            query = query.select_from(archived_seats).join(
                archived_games, games.game_id == seats.game_id
            )
            query = query.where(*others)
    else:
        key = (games.created_ms, games.game_id)
        query = sa.select(*_GAME_SELECT) if whole else sa.select(games.game_id)
        query = query.where(*_game_conditions(filters))
    if filters.since is not None:
        query = query.where(key[0] >= filters.since)
    if filters.until is not None:
        query = query.where(key[0] < filters.until)
    if filters.finished:
        query = query.where(sa.exists().where(archived_records.c.game_id == key[1]))
    if cursor is not None:
        created, _, game_id = cursor.partition(":")
        query = query.where(sa.tuple_(*key) < sa.tuple_(int(created), game_id))
    return query.order_by(key[0].desc(), key[1].desc())


def _seat_matches(seats: sa.FromClause, filters: Filters) -> list[Any]:
    """The conditions on a seat of the player (by name or account) and its result."""
    conditions = []
    if filters.player is not None:
        conditions.append(seats.c.name == filters.player)
    if filters.account is not None:
        conditions.append(seats.c.account_id == filters.account)
    if filters.result is not None:
        conditions.append(seats.c.result == filters.result)
    return conditions


def _first_match(filters: Filters) -> Any:
    """No matching seat before this one in its game: a game where the player holds two
    seats (an account's, or two seats of one name, as two bots of a level are) is listed
    once. A probe of the primary key per row, so the seats' index still orders the scan."""
    earlier = archived_seats.alias("earlier")
    return ~sa.exists().where(
        earlier.c.game_id == archived_seats.c.game_id,
        earlier.c.seat < archived_seats.c.seat,
        *_seat_matches(earlier, filters),
    )


def _game_conditions(filters: Filters) -> list[Any]:
    games = archived_games.c
    return [
        column == value
        for column, value in (
            (games.mode, filters.mode),
            (games.board, filters.board),
            (games.status, filters.status),
        )
        if value is not None
    ]


def _records_query(filters: Filters, cursor: str | None, size: int) -> sa.Select[Any]:
    ids = _selection(filters, cursor).limit(size).subquery()
    return (
        sa.select(archived_games.c.game_id, archived_games.c.created_ms, archived_records.c.record)
        .join(ids, ids.c.game_id == archived_games.c.game_id)
        .join(archived_records, archived_records.c.game_id == archived_games.c.game_id)
        .order_by(archived_games.c.created_ms.desc(), archived_games.c.game_id.desc())
    )


def _with_seats(connection: sa.Connection, found: Sequence[Any]) -> list[GameRow]:
    """Rows of ``_GAME_SELECT``, with their seats (one query for all)."""
    if not found:
        return []
    ids = [row[0] for row in found]
    seats: dict[str, list[SeatRow]] = {}
    query = sa.select(*_SEAT_SELECT).where(archived_seats.c.game_id.in_(ids))
    for game_id, *values in connection.execute(query.order_by(archived_seats.c.seat)):
        seats.setdefault(game_id, []).append(SeatRow(*values))
    return [
        GameRow(**dict(zip(_GAME_FIELDS, row, strict=True)), seats=tuple(seats.get(row[0], ())))
        for row in found
    ]


def _renamed(info: str, account_id: str, name: str) -> str:
    """A game's info (``service.application.archived.info_json``) with the account's
    seats named ``name``."""
    data = json.loads(info)
    for _seat, record in data["seats"]:
        if record.get("account") == account_id:
            record["name"] = name
    return json.dumps(data, sort_keys=True)


def _game_values(game: GameRow) -> dict[str, Any]:
    values = {name: getattr(game, name) for name in _GAME_COLUMNS}
    return values | {"seat_count": len(game.seats)}


def _seat_values(game: GameRow, seat: SeatRow) -> dict[str, Any]:
    values = {name: getattr(seat, name) for name in _SEAT_FIELDS}  # asdict deep-copies
    return values | {"game_id": game.game_id, "created_ms": game.created_ms}


def _game_row(found: Any, seats: tuple[SeatRow, ...]) -> GameRow:
    return GameRow(**{name: found[name] for name in _GAME_COLUMNS}, seats=seats)


def _seat_row(found: Any) -> SeatRow:
    return SeatRow(**{name: found[name] for name in _SEAT_COLUMNS})


_GAME_COLUMNS = tuple(
    c.name for c in archived_games.columns if c.name not in ("seat_count", "recorded")
)
_SEAT_COLUMNS = tuple(
    c.name for c in archived_seats.columns if c.name not in ("game_id", "created_ms")
)
# In GameRow's and SeatRow's field order, for positional rows.
_GAME_FIELDS = [f for f in GameRow.__dataclass_fields__ if f != "seats"]
_GAME_SELECT = [archived_games.c[f] for f in _GAME_FIELDS]
_SEAT_FIELDS = tuple(SeatRow.__dataclass_fields__)
_SEAT_SELECT = [
    archived_seats.c.game_id,
    *(archived_seats.c[f] for f in SeatRow.__dataclass_fields__),
]
