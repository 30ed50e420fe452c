"""Shared fixtures: a real Redis, isolated per test.

Each test process (xdist worker) uses a Redis database of its own, chosen
by lock file so that concurrent runs on one machine never share one (RQ's
key names are fixed), and every test gets a unique key prefix; the
database is emptied before and after each test that asks for Redis.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as redis_lib

DEFAULT_URL = "redis://127.0.0.1:6379/0"


FIRST_DB, LAST_DB = 9, 15  # 0.. are left to whoever else uses the server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A database of its own for this test process, held by a lock file.

    Every test flushes its database, so two processes (xdist workers, or
    two runs on one machine) must never share one: each takes the first
    database whose lock it can get, and keeps the lock until it exits.
    """
    base = os.environ.get("REDIS_URL", DEFAULT_URL)
    url = base.rsplit("/", 1)[0] if base.count("/") > 2 else base
    for db in range(FIRST_DB, LAST_DB + 1):
        lock = open(Path(tempfile.gettempdir()) / f"riskcore-tests-db{db}.lock", "w")  # noqa: SIM115
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        try:
            yield f"{url}/{db}"
        finally:
            lock.close()
        return
    pytest.fail(f"Redis databases {FIRST_DB}-{LAST_DB} are all in use by other test runs")


@pytest.fixture
def redis(redis_url: str) -> Iterator[redis_lib.Redis]:
    client = redis_lib.Redis.from_url(redis_url)
    try:
        client.ping()
    except redis_lib.ConnectionError as error:  # pragma: no cover - environment
        pytest.fail(f"no Redis at {redis_url}: {error}; run scripts/ensure-redis")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture
def key_prefix() -> str:
    return f"test:{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A three-primary Redis Cluster of this test process's own (``tests/redis_cluster.py``)."""
    from tests.redis_cluster import redis_cluster

    try:
        with redis_cluster(tmp_path_factory.mktemp("cluster")) as url:
            yield url
    except FileNotFoundError as error:  # pragma: no cover - environment
        pytest.skip(f"no Redis Cluster: {error}")


# -- SQL (issue 48): the archive's database, SQLite and PostgreSQL (tests/sql.py) --


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.sql import sqlite_template

    return sqlite_template(tmp_path_factory.mktemp("sql"))


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated SQLite database of this test's own."""
    from tests.sql import sqlite_copy

    return sqlite_copy(sqlite_template, tmp_path)


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A migrated PostgreSQL database of this test process's own; skips without a server."""
    from tests.sql import postgres_database, postgres_problem

    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    with postgres_database() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """This process's PostgreSQL database, emptied for the test."""
    from tests.sql import empty

    empty(postgres_database)
    return postgres_database


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs on SQLite and on PostgreSQL."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    return url
