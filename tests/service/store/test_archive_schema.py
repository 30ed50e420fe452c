"""The archive's schema (issue 48): the migrations make exactly the tables the code
queries, on SQLite and on PostgreSQL, and migrating again or at once is harmless."""

from __future__ import annotations

import threading
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

import service.store.account_tables
import service.store.challenge_tables
import service.store.webhook_tables  # noqa: F401  (issue 50)
from service.store.archive_tables import metadata
from service.store.database import create_engine, current_revision, migrate, newest_revision


def test_migrations_make_the_tables_the_code_queries(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection)
            assert compare_metadata(context, metadata) == []
        assert current_revision(engine) == newest_revision()
    finally:
        engine.dispose()


def test_migrating_again_changes_nothing(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    try:
        assert current_revision(engine) == newest_revision()
    finally:
        engine.dispose()


def test_processes_starting_at_once_migrate_a_new_sqlite_file_once(tmp_path: Path) -> None:
    """The API's workers and the projector may all start on an empty file together."""
    url = f"sqlite:///{tmp_path / 'new' / 'risk.db'}"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            migrate(url)
        except BaseException as error:  # pragma: no cover - the failure shown
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    engine = create_engine(url)
    try:
        assert current_revision(engine) == newest_revision()
        with engine.connect() as connection:
            mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        assert mode == "wal"
    finally:
        engine.dispose()
