"""The rate limiter: exact at the limit, batched far from it, shared through Redis."""

from __future__ import annotations

import redis as redis_lib
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.keys import KeySpace
from service.ratelimit import Check, RateLimiter
from service.settings import RateLimit


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
