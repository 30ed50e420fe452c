"""The rate limiter: exact at the limit, batched far from it, shared through Redis;
what a request costs (progress in a game is free)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import pytest
import redis as redis_lib
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.http import app as app_module
from service.http.ratelimit import Check, RateLimiter
from service.settings import RateLimit, Settings
from service.store.keys import KeySpace
from tests.service.api_helpers import ApiClient


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def allowed(limiter: RateLimiter, check: Check, times: int) -> int:
    return sum(limiter.hit([check]) is None for _ in range(times))


def test_a_single_process_allows_exactly_the_limit(redis: redis_lib.Redis, key_prefix: str) -> None:
    limiter = RateLimiter(redis, KeySpace(key_prefix), Clock(600_030.0))
    check = Check("token", "abc", RateLimit(500, 60))
    assert allowed(limiter, check, 500) == 500
    assert limiter.hit([check]) == ("token", 30)


def test_far_from_the_limit_redis_is_told_in_batches(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    clock = Clock()
    keys = KeySpace(key_prefix)
    limiter = RateLimiter(redis, keys, clock)
    check = Check("ip", "10.0.0.1", RateLimit(1000, 60))  # batches of 20
    allowed(limiter, check, 119)
    stored = int(redis.get(keys.rate_limit("ip", "10.0.0.1", int(clock.now // 60))) or 0)
    assert stored == 100  # five batches of 20; the 19 since are still local


def test_processes_share_the_count_and_overshoot_by_at_most_a_batch_each(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    clock = Clock()
    first, second = (RateLimiter(redis, KeySpace(key_prefix), clock) for _ in range(2))
    check = Check("token", "shared", RateLimit(1000, 60))
    admitted = sum(allowed(limiter, check, 1) for _ in range(700) for limiter in (first, second))
    assert 1000 <= admitted <= 1000 + 2 * 20


def test_a_new_window_starts_from_zero(redis: redis_lib.Redis, key_prefix: str) -> None:
    clock = Clock(600.0)
    limiter = RateLimiter(redis, KeySpace(key_prefix), clock)
    check = Check("ip", "10.0.0.2", RateLimit(3, 60))
    assert allowed(limiter, check, 5) == 3
    clock.now += 59
    assert limiter.hit([check]) == ("ip", 1)
    clock.now += 1
    assert allowed(limiter, check, 5) == 3


def test_disabled_limits_and_an_unreachable_redis_let_requests_through(key_prefix: str) -> None:
    nowhere = redis_lib.Redis(port=1, retry=Retry(NoBackoff(), 0))
    limiter = RateLimiter(nowhere, KeySpace(key_prefix), Clock())
    assert allowed(limiter, Check("ip", "x", RateLimit(1, 60)), 3) == 3
    assert allowed(limiter, Check("ip", "y", RateLimit(0, 1)), 3) == 3
    nowhere.close()


# -- what a request costs (service.http.request_cost), through the app ----------------------


@pytest.fixture
def limited_api(monkeypatch: pytest.MonkeyPatch) -> Callable[[Settings, int], ApiClient]:
    """An app whose limiter's clock stands still: these tests count what requests
    cost, and a window that ended mid-test (one run in a few dozen, at a minute's
    edge) would hand the client a fresh quota."""
    stopped = Clock(600_001.0)
    monkeypatch.setattr(app_module, "RateLimiter", partial(RateLimiter, clock=stopped))

    def build(settings: Settings, per_minute: int) -> ApiClient:
        limits = RateLimit(per_minute, 60)
        app = app_module.create_app(replace(settings, rate_token=limits, rate_ip=limits))
        return ApiClient(app.test_client())

    return build


def test_playing_at_full_speed_costs_nothing_while_repeats_are_limited(
    settings: Settings, limited_api: Callable[[Settings, int], ApiClient]
) -> None:
    """Legal actions, a command, the events: 300 requests at a limit of 20 a minute."""
    api = limited_api(settings, 20)
    game, tokens = api.create(3)  # costs 1
    since = 0
    for _ in range(100):
        page = api.get(f"/v1/games/{game}/events", query_string={"since": since, "wait": 1})
        assert page.status_code == 200, page.json
        since = page.json["version"]
        token = tokens[api.get(f"/v1/games/{game}").json["current"]]
        legal = api.get(f"/v1/games/{game}/legal-actions", token=token)
        assert legal.status_code == 200, legal.json
        sent = api.command(game, token, legal.json["actions"][0]["command"])
        assert sent.status_code == 200, sent.json
    assert int(sent.headers["RateLimit-Remaining"]) >= 19 - 3  # the first look of each seat
    assert sent.headers["RateLimit-Limit"] == "20"
    assert sent.headers["RateLimit-Policy"] == "20;w=60"


def test_loops_that_bring_nothing_new_meet_the_limit(
    settings: Settings, limited_api: Callable[[Settings, int], ApiClient]
) -> None:
    for repeat in (
        lambda api, game, token: api.get(f"/v1/games/{game}/events?since=0"),  # no wait
        lambda api, game, token: api.get(f"/v1/games/{game}", token=token),
        lambda api, game, token: api.get(f"/v1/games/{game}/legal-actions", token=token),
        lambda api, game, token: api.command(game, token, {"type": "end_phase"}),  # refused
    ):
        api = limited_api(settings, 10)
        game, tokens = api.create(3)
        answers = [repeat(api, game, tokens["p1"]).status_code for _ in range(15)]
        assert 429 in answers[9:12] and answers[-1] == 429, answers


def test_a_long_poll_that_waited_for_nothing_is_free(
    settings: Settings, limited_api: Callable[[Settings, int], ApiClient]
) -> None:
    api = limited_api(settings, 3)
    game, _ = api.create(3)  # 1
    version = api.get(f"/v1/games/{game}/events").json["version"]  # free: new events
    for _ in range(4):
        waited = api.get(f"/v1/games/{game}/events", query_string={"since": version, "wait": 0.2})
        assert waited.status_code == 200 and waited.json["events"] == []
    assert waited.headers["RateLimit-Remaining"] == "2"
