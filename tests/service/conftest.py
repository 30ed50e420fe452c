"""Fixtures for the API tests: an app on the test Redis database and key prefix."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis as redis_lib
from flask import Flask

from service.application.games import GameService
from service.http.app import create_app
from service.settings import RateLimit, Settings
from tests.service.api_helpers import ApiClient

OFF = RateLimit(0, 1)


@pytest.fixture
def settings(redis_url: str, key_prefix: str, sqlite_url: str) -> Settings:
    """Rate limits and game quotas off (tests that need them turn them on), short
    event streams, and a migrated archive database of the test's own (issue 48)."""
    return Settings(
        redis_url=redis_url,
        key_prefix=key_prefix,
        database_url=sqlite_url,
        admin_token="admin-secret",
        rate_token=OFF,
        rate_ip=OFF,
        token_guesses_game=OFF,
        rate_guess=OFF,
        games_per_address=0,
        sse_keepalive_seconds=0.2,
        sse_max_seconds=2,
    )


@pytest.fixture
def app(settings: Settings, redis: redis_lib.Redis) -> Iterator[Flask]:
    app = create_app(settings)
    yield app
    risk = app.extensions["risk"]
    risk.offload.close()
    risk.redis.close()
    risk.archive.engine.dispose()


@pytest.fixture
def api(app: Flask) -> ApiClient:
    return ApiClient(app.test_client())


@pytest.fixture
def service(app: Flask) -> GameService:
    """The app's own application service (same process cache)."""
    games: GameService = app.extensions["risk"].games
    return games
