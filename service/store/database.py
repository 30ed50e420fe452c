"""The SQL database (``RISK_DATABASE_URL``): engines, and migrating its schema.

Redis holds the live games; the archive of finished ones, and the history
that lists them, live in SQL (``service.store.archive``). One URL names the
database: a SQLite file by default (``sqlite:///.data/risk.db``, so ``make
run`` needs no server), PostgreSQL in deployments
(``postgresql://user@host/db``; the psycopg 3 driver is chosen for a bare
``postgresql://``).

SQLite is opened in WAL mode (readers never wait for the projector's
writes) with foreign keys on and a busy timeout, so the API's processes and
the projector share one file. PostgreSQL gets a small pool per process,
pre-pinged so a database that restarted is reconnected instead of failing
the next request.

The stores on this database (accounts, tokens, ratings) are ``sql_door``
classes: what the layers above meet is ``DatabaseUnavailable``, never a
driver's error (the archive translates its own: ``ArchiveUnavailable``).

``migrate(url)`` brings the schema to the newest Alembic revision
(``service/store/migrations``, shipped with the package). It is safe to run
from several processes at once: PostgreSQL serialises it with an advisory
lock, SQLite with a lock file beside the database.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine, make_url

from service.store.errors import DatabaseUnavailable

__all__ = [
    "MIGRATIONS",
    "SQL_FAILURES",
    "create_engine",
    "current_revision",
    "migrate",
    "newest_revision",
    "sql_door",
]
T = TypeVar("T")
# What the driver raises while the database is away, or before it is migrated
# (no such table): retrying later can succeed.
SQL_FAILURES = (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.InterfaceError)

MIGRATIONS = Path(__file__).with_name("migrations")
# Every migration runs under this PostgreSQL advisory lock (any constant of our own).
MIGRATION_LOCK = 4_804_804


def create_engine(url: str, *, pool_size: int = 5, **options: Any) -> Engine:
    """An engine for ``url``: SQLite with WAL and foreign keys, PostgreSQL pooled."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        _make_parent(parsed.database)
        engine = sa.create_engine(
            parsed, connect_args={"timeout": 30, "check_same_thread": False}, **options
        )
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return sa.create_engine(
        parsed,
        pool_size=pool_size,
        max_overflow=pool_size * 2,
        pool_pre_ping=True,
        pool_recycle=1800,
        **options,
    )


def _make_parent(database: str | None) -> None:
    """A SQLite file's folder (``.data/``) is made on first use; ``:memory:`` has none."""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; WAL keeps order
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def migrate(url: str, revision: str = "heads") -> None:
    """Upgrade the database at ``url`` to ``revision`` (default: every newest head)."""
    engine = create_engine(url, pool_size=1)
    try:
        with _migration_lock(engine), engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(sa.text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
            config = _config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        engine.dispose()


def current_revision(engine: Engine) -> tuple[str, ...]:
    """The revisions the database is at (() before its first migration)."""
    with engine.connect() as connection:
        return tuple(MigrationContext.configure(connection).get_current_heads())


def newest_revision() -> tuple[str, ...]:
    """The revisions this code's migrations end at."""
    return tuple(ScriptDirectory.from_config(_config()).get_heads())


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@contextlib.contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """For a SQLite file, a lock file beside it: two first starts must not both
    create the tables (SQLite's DDL is not serialised by Alembic)."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def sql_door(cls: type[T]) -> type[T]:
    """The door of a store on the SQL database: every public method raises
    ``DatabaseUnavailable`` for the driver's failures. A store whose
    ``migrate_first`` (a callable, or None) migrates the embedded SQLite file
    once (``Archive.migrated_now``) retries its method after that migration."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and callable(member) and not isinstance(member, type):
            setattr(cls, name, _sql_translated(member))
    return cls


def _sql_translated(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(store: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(store, *args, **kwargs)
        except SQL_FAILURES as error:
            migrate_first = getattr(store, "migrate_first", None)
            if migrate_first is None or not migrate_first():
                raise DatabaseUnavailable(f"database unavailable: {_first_line(error)}") from error
        try:  # the embedded database, migrated just now: once more
            return method(store, *args, **kwargs)
        except SQL_FAILURES as error:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(error)}") from error

    return wrapper


def _first_line(error: sa.exc.DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig else str(error)
