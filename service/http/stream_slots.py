"""A cap on the event streams and waiting long-polls one client address holds open.

Waiting clients are cheap on an asynchronous worker (``riskcli.http_workers``)
but not free: each holds a socket, a Redis connection while it waits, and
a little memory. So one address may hold at most ``limit`` of them at once,
on every process and node together: each open wait is a member of a sorted
set per address in Redis (``service.store.stream_slots``) whose score is when its
lease runs out. A stream renews its lease at every keep-alive and gives it
back when it ends; a process that dies leaves leases that simply run out.
Taking a slot is one pipelined round trip (drop expired leases, add ours,
count); over the limit, ours is removed again, so concurrent openers can
be refused a little early but never let in past the limit.

When Redis cannot be reached the cap lets the client through, as the rate
limiter does: the wait itself will meet the outage.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

from service.store.errors import StoreFull, StoreUnavailable
from service.store.keys import KeySpace
from service.store.stream_slots import StreamLeases
from service.store.values import Client

__all__ = ["StreamSlot", "StreamSlots", "TooManyStreams"]

log = logging.getLogger(__name__)


class TooManyStreams(Exception):
    """The address already holds ``limit`` open streams and long-polls."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} open event streams and long-polls per client address")
        self.limit = limit


class StreamSlot:
    """One held slot: ``renew`` at each keep-alive, ``release`` when done (idempotent)."""

    def __init__(
        self, leases: StreamLeases | None, key: str, member: str, lease_ms: int, key_ms: int
    ) -> None:
        self._leases = leases
        self._key = key
        self._member = member
        self._lease_ms = lease_ms
        self._key_ms = key_ms

    def renew(self, now_ms: int) -> None:
        leases = self._leases
        if leases is None:
            return
        until = now_ms + self._lease_ms
        _quietly(lambda: leases.renew(self._key, self._member, until, self._key_ms))

    def release(self) -> None:
        leases, self._leases = self._leases, None
        if leases is not None:
            _quietly(lambda: leases.release(self._key, self._member))


_UNCOUNTED = StreamSlot(None, "", "", 0, 0)  # the cap is off, or Redis did not answer


class StreamSlots:
    def __init__(
        self,
        client: Client,
        keys: KeySpace,
        limit: int,
        longest_lease: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``limit`` 0 turns the cap off; no lease is longer than ``longest_lease`` s
        (the set itself expires that long after its last use)."""
        self._leases = StreamLeases(client, keys)
        self.limit = limit
        self._key_ms = max(1000, int(longest_lease * 1000))
        self._clock = clock

    def take(self, address: str, lease_seconds: float) -> StreamSlot:
        """A slot for ``address`` held for ``lease_seconds`` unless renewed; TooManyStreams."""
        if not self.limit:
            return _UNCOUNTED
        key = self._leases.key(address)
        member = secrets.token_hex(8)
        now = int(self._clock() * 1000)
        lease = min(self._key_ms, max(1000, int(lease_seconds * 1000)))
        try:
            held = self._leases.take(key, member, now, now + lease, self._key_ms)
        except StoreFull:  # refused whole: a 503, as a full Redis is everywhere
            raise
        except StoreUnavailable as error:
            log.warning("stream cap skipped, Redis unavailable: %s", error)
            return _UNCOUNTED
        slot = StreamSlot(self._leases, key, member, lease, self._key_ms)
        if held > self.limit:
            slot.release()
            raise TooManyStreams(self.limit)
        return slot

    def now_ms(self) -> int:
        return int(self._clock() * 1000)


def _quietly(call: Callable[[], object]) -> None:
    try:
        call()
    except StoreFull:  # refused whole: a 503, as a full Redis is everywhere
        raise
    except StoreUnavailable as error:
        log.warning("stream cap not updated, Redis unavailable: %s", error)
