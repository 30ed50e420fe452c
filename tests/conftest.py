"""Shared fixtures: a real Redis, isolated per test.

Each xdist worker uses its own Redis database (so RQ's fixed key names do
not collide between workers) and every test gets a unique key prefix; the
database is emptied before and after each test that asks for Redis.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis as redis_lib

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def _worker_db(worker_id: str) -> int:
    """Databases 9.. are ours; 0 is left to whoever else uses the server."""
    index = 0 if worker_id in ("master", "") else int(worker_id.removeprefix("gw"))
    return 9 + index


@pytest.fixture(scope="session")
def redis_url(worker_id: str) -> str:
    base = os.environ.get("REDIS_URL", DEFAULT_URL)
    url = base.rsplit("/", 1)[0] if base.count("/") > 2 else base
    return f"{url}/{_worker_db(worker_id)}"


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
