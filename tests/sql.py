"""SQL databases for tests (issue 48): a migrated SQLite file per test, and a
PostgreSQL database per test process.

SQLite: the schema is migrated once per process into a template file, which
each test copies (a copy is a millisecond; a migration a few hundred).
PostgreSQL: each test process creates a database of its own on the server
(``RISK_TEST_POSTGRES_URL``, default ``postgresql://postgres@127.0.0.1:5432/postgres``),
migrates it once, empties its tables before each test, and drops it at the
end, so concurrent runs on one machine never meet. Databases of test processes
that died without dropping theirs are dropped at the next start.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from service.store.database import create_engine, migrate

SERVER_URL = os.environ.get(
    "RISK_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
PREFIX = "risk_test_"


def sqlite_template(folder: Path) -> Path:
    """A migrated SQLite file to copy."""
    path = folder / "template.db"
    migrate(f"sqlite:///{path}")
    return path


def sqlite_copy(template: Path, folder: Path) -> str:
    """A fresh, migrated SQLite database in ``folder``: its URL."""
    path = folder / "archive.db"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def postgres_problem() -> str | None:
    """Why there is no PostgreSQL to test on (None: there is one)."""
    engine = create_engine(SERVER_URL, connect_args={"connect_timeout": 2})
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as error:
        return (
            f"no PostgreSQL at {make_url(SERVER_URL).render_as_string(hide_password=True)} "
            f"({str(error.orig).strip().splitlines()[0]}); run scripts/ensure-postgres"
        )
    finally:
        engine.dispose()
    return None


@contextmanager
def postgres_database(revision: str = "heads") -> Iterator[str]:
    """A new PostgreSQL database of this process's own, migrated to ``revision``: its URL."""
    name = f"{PREFIX}{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(SERVER_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            _drop_orphans(connection)
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        url = make_url(SERVER_URL).set(database=name).render_as_string(hide_password=False)
        migrate(url, revision)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _drop_orphans(connection: sa.Connection) -> None:
    """Drop the databases of test processes that are no longer alive."""
    rows = connection.execute(
        sa.text("SELECT datname FROM pg_database WHERE datname LIKE :p"), {"p": f"{PREFIX}%"}
    )
    for (name,) in rows.all():
        pid = name[len(PREFIX) :].split("_")[0]
        if pid.isdigit() and not _alive(int(pid)):
            with suppress(sa.exc.DBAPIError):
                connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def empty(url: str) -> None:
    """Delete every row of every table but Alembic's (a test's clean start)."""
    engine = create_engine(url, pool_size=1)
    try:
        with engine.begin() as connection:
            names = [n for n in sa.inspect(connection).get_table_names() if n != "alembic_version"]
            if names:
                quoted = ", ".join(f'"{n}"' for n in names)
                connection.execute(sa.text(f"TRUNCATE {quoted} CASCADE"))
    finally:
        engine.dispose()
