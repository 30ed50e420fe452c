"""Rate limits on Redis: a fixed-window counter per client and scope, counted in batches.

Why not flask-limiter: the need is "N requests per window per token and
per address, shared by every process", which is a counter per client and
window in Redis (``INCRBY`` + ``EXPIRE NX``, keys from ``service.store.keys``).
A fixed window lets a client burst up to twice the limit across a window
boundary; for abuse protection (the only purpose here) that is acceptable.

Counting in batches: a Redis round trip per request would be a third of
the work of a command (bench/api.py), so each process counts locally and
adds its count to Redis every ``limit // 50`` requests of a client (at
least every request for small limits), and on every request once the
client is within a batch of its limit, where the answer must be exact.
A client spread over P processes may so exceed its limit by at most about
P x 2 %, never more; a single process is exact at the limit.

What a request costs (0 or 1) is decided after it is answered
(``service.http.request_cost``): ``over`` checks before a request whether its
client has already used its limit, and ``hit`` then counts the cost. A
client whose requests cost nothing is never refused; one over its limit is
refused everything until the window ends. ``quota`` says where a client
stands, for the ``RateLimit-*`` headers.

When Redis cannot be reached the limiter lets the request through: the
request will meet the same outage where it needs Redis, and endpoints that
do not (odds, maps) keep working.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from service.settings import RateLimit
from service.store.errors import StoreFull, StoreUnavailable
from service.store.keys import KeySpace
from service.store.rate_limits import RateCounters
from service.store.values import Client

__all__ = ["Check", "Quota", "RateLimiter"]

log = logging.getLogger(__name__)
BATCH_SHARE = 50  # flush every limit/50 requests: at most 2 % over per extra process
MAX_TRACKED = 50_000


class Check(NamedTuple):
    """One limit to apply: ``scope`` ("token", "ip") and the client's id in it."""

    scope: str
    ident: str
    limit: RateLimit


class Quota(NamedTuple):
    """Where one client stands in one scope: for the ``RateLimit-*`` headers."""

    scope: str
    limit: int
    window: int
    remaining: int
    reset: int  # seconds until the window ends


@dataclass(slots=True)
class _Count:
    """One client's window in this process: the last total Redis told us, and ours since."""

    known: int = 0
    pending: int = 0


class RateLimiter:
    def __init__(
        self, client: Client, keys: KeySpace, clock: Callable[[], float] = time.time
    ) -> None:
        self._counters = RateCounters(client, keys)
        self._clock = clock
        self._counts: dict[str, _Count] = {}
        self._lock = threading.Lock()

    def hit(self, checks: Sequence[Check], cost: int = 1) -> tuple[str, int] | None:
        """Count ``cost`` against every check; (scope, Retry-After s) if one is over."""
        now = self._clock()
        for check in checks:
            if not check.limit.enabled:
                continue
            window = int(now // check.limit.window)
            key = self._counters.key(check.scope, check.ident, window)
            total = self._count(key, check, cost)
            if total > check.limit.limit:
                reset = (window + 1) * check.limit.window
                return check.scope, max(1, math.ceil(reset - now))
        return None

    def over(self, checks: Sequence[Check]) -> tuple[str, int] | None:
        """(scope, Retry-After s) if the client has used up a limit already; counts nothing.

        What this process knows is exact near the limit (every request is
        added to Redis there), so no round trip is needed.
        """
        now = self._clock()
        for quota in self._quotas(checks, now):
            if quota.remaining <= 0:
                return quota.scope, quota.reset
        return None

    def quota(self, checks: Sequence[Check]) -> Quota | None:
        """The enabled limit with the least left (None when every limit is off)."""
        quotas = self._quotas(checks, self._clock())
        return min(quotas, key=lambda q: q.remaining) if quotas else None

    def _quotas(self, checks: Sequence[Check], now: float) -> list[Quota]:
        quotas = []
        for check in checks:
            limit = check.limit
            if not limit.enabled:
                continue
            window = int(now // limit.window)
            key = self._counters.key(check.scope, check.ident, window)
            with self._lock:
                count = self._counts.get(key)
                used = count.known + count.pending if count else 0
            reset = max(1, math.ceil((window + 1) * limit.window - now))
            quotas.append(Quota(check.scope, limit.limit, limit.window, limit.limit - used, reset))
        return quotas

    def _count(self, key: str, check: Check, cost: int = 1) -> int:
        """This request counted; the client's total as well as this process knows it."""
        limit = check.limit.limit
        batch = max(1, limit // BATCH_SHARE)
        with self._lock:
            count = self._counts.setdefault(key, _Count())
            count.pending += cost
            if count.pending < batch and count.known + count.pending + batch <= limit:
                return count.known + count.pending
            if not count.pending:
                return count.known
            pending, count.pending = count.pending, 0
        known = self._flush(key, pending, check.limit.window)
        with self._lock:
            count.known = max(count.known, known)
            self._forget_old()
            return count.known + count.pending

    def _flush(self, key: str, pending: int, window: int) -> int:
        try:
            return self._counters.add(key, pending, window)
        except StoreFull:  # refused whole: a 503, as a full Redis is everywhere
            raise
        except StoreUnavailable as error:
            log.warning("rate limiter skipped, Redis unavailable: %s", error)
            return 0

    def _forget_old(self) -> None:
        """Bound memory: past many clients, keep only counts not yet added to Redis.

        A dropped count only means its client's next request asks Redis
        for the total again.
        """
        if len(self._counts) > MAX_TRACKED:
            self._counts = {key: c for key, c in self._counts.items() if c.pending}
