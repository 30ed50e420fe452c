"""Rate limits on Redis: a fixed-window counter per client and scope.

Why not flask-limiter: the whole need is "N requests per window per token
and per address, shared by every process", which is one ``INCR`` and one
``EXPIRE NX`` per limit, sent in one pipeline round trip. A fixed window
lets a client burst up to twice the limit across a window boundary; for
abuse protection (the only purpose here) that is acceptable and costs no
script. Keys come from ``service.keys`` and expire a second after their
window.

When Redis cannot be reached the limiter lets the request through: the
request will meet the same outage where it needs Redis, and endpoints that
do not (odds, maps) keep working.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import redis

from service.keys import KeySpace
from service.settings import RateLimit
from service.store import Client

__all__ = ["Check", "RateLimiter"]

log = logging.getLogger(__name__)


class Check(NamedTuple):
    """One limit to apply: ``scope`` ("token", "ip") and the client's id in it."""

    scope: str
    ident: str
    limit: RateLimit


class RateLimiter:
    def __init__(self, client: Client, keys: KeySpace, clock: Callable[[], float] = time.time):
        self._client = client
        self._keys = keys
        self._clock = clock

    def hit(self, checks: Sequence[Check]) -> tuple[str, int] | None:
        """Count one request against every check; (scope, Retry-After s) if one is over."""
        active = [c for c in checks if c.limit.enabled]
        if not active:
            return None
        now = self._clock()
        windows = [int(now // c.limit.window) for c in active]
        pipe = self._client.pipeline(transaction=False)
        for check, window in zip(active, windows, strict=True):
            key = self._keys.rate_limit(check.scope, check.ident, window)
            pipe.incr(key)
            pipe.expire(key, check.limit.window + 1, nx=True)
        try:
            replies = pipe.execute()
        except (redis.ConnectionError, redis.TimeoutError) as error:
            log.warning("rate limiter skipped, Redis unavailable: %s", error)
            return None
        for index, (check, window) in enumerate(zip(active, windows, strict=True)):
            if replies[2 * index] > check.limit.limit:
                reset = (window + 1) * check.limit.window
                return check.scope, max(1, math.ceil(reset - now))
        return None
