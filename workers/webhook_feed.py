"""The webhook feed (issue 50): outbox notifications to webhook deliveries.

A consumer group of its own (``webhooks``) on the outboxes the relay reads,
run by the webhook workers (``risk worker --webhooks``), so the relay and
the game workers do not do any of this work: for each notification of a game
with an account that has a webhook, it describes the change
(``service.application.webhook_events.GameChange``), makes the deliveries
(``Webhooks.emit``) and enqueues a send job on the ``webhooks`` queue for
each. Games without such an account cost one cached look-up.

The group starts at the outboxes' end when first made: what happened before
any webhook worker ran is not news. An entry is acknowledged after its
deliveries are written; one that fails stays pending and is taken over
after ``claim_idle_ms`` (a feed that died), then dropped after
``max_deliveries`` tries.

The same loop sweeps the database once a second for deliveries that are
due (retries, redeliveries, challenges made by the API, and deliveries
whose sender died mid-send once their lease ran out) and enqueues them.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue

from riskcore.model.state import FINISHED
from service.application.clocks import deadline
from service.application.games import GameService
from service.application.lobby import GameInfo
from service.application.webhook_events import GameChange, events_for
from service.application.webhooks import Webhooks
from service.store.errors import GameNotFound
from service.store.keys import KeySpace
from service.store.values import Client, Notification
from service.store.webhook_version import WebhookVersion
from workers.outbox_groups import ensure_group, read_group, text
from workers.webhooks import DELIVER, LEASE_MARGIN_S

log = logging.getLogger(__name__)
GROUP = "webhooks"
SWEEP_S = 1.0
SUBSCRIBED_S = 2.0  # how long the set of accounts with webhooks is cached
ACTING_TTL_S = 7 * 24 * 3600


class WebhookFeed:
    """Reads the outboxes as group ``webhooks``; see the module docstring."""

    def __init__(
        self,
        connection: Client,
        keys: KeySpace,
        queue: Queue,
        webhooks: Webhooks,
        *,
        consumer: str | None = None,
        claim_idle_ms: int = 30_000,
        max_deliveries: int = 5,
    ) -> None:
        self.redis = connection
        self.keys = keys
        self.queue = queue
        self.webhooks = webhooks
        self.games = GameService(connection, keys)
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.claim_idle_ms = claim_idle_ms
        self.max_deliveries = max_deliveries
        self._streams = keys.outboxes()
        self._games: dict[str, GameInfo | None] = {}
        self._version = WebhookVersion(connection, keys)
        self._subscribed: set[str] = set()
        self._subscribed_at = 0.0
        self._subscribed_version = -1
        self._swept_at = 0.0

    def ensure_groups(self) -> None:
        ensure_group(self.redis, self._streams, GROUP, "$")

    def run_once(self, block_ms: int = 500, count: int = 100) -> int:
        """Handle what the outboxes hold for this group; return how many entries."""
        handled = 0
        for stream, entries in self._read(block_ms, count):
            for entry_id, fields in entries:
                self._handle(text(stream), entry_id, fields)
                handled += 1
        return handled

    def run(self, stop: threading.Event, block_ms: int = 500) -> None:
        """Read, sweep and take over until ``stop``; Redis outages are waited out."""
        groups_missing = True
        while not stop.is_set():
            try:
                if groups_missing:
                    self.ensure_groups()
                    groups_missing = False
                self.run_once(block_ms)
                if time.monotonic() - self._swept_at >= SWEEP_S:
                    self._swept_at = time.monotonic()
                    self.sweep()
                    self.reclaim()
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                log.warning("webhook feed lost Redis: %s", error)
                stop.wait(1.0)
            except ResponseError as error:
                if not str(error).startswith(("NOGROUP", "UNBLOCKED")):
                    raise
                groups_missing = True

    def sweep(self) -> int:
        """Enqueue the deliveries that are due and held by no sender."""
        now = int(time.time() * 1000)
        return sum(self.enqueue(d, due) for d, due in self.webhooks.store.due(now))

    def enqueue(self, delivery_id: str, due_ms: int = 0) -> bool:
        """A send job for the delivery's attempt due at ``due_ms``, unless one was
        enqueued for it within a sender's lease (a job lost with its worker, or still
        waiting in a long queue, gets a copy then; the lease makes copies harmless)."""
        marker = f"{self.keys.prefix}:webhooks:enqueued:{delivery_id}:{due_ms}"
        lease_ms = round((self.webhooks.settings.timeout_s + LEASE_MARGIN_S) * 1000)
        if not self.redis.set(marker, 1, nx=True, px=lease_ms):
            return False
        self.queue.enqueue(
            DELIVER,
            delivery_id,
            result_ttl=0,
            failure_ttl=3600,
            job_timeout=round(self.webhooks.settings.timeout_s) + 60,
        )
        return True

    def reclaim(self) -> int:
        """Take over entries another feed left pending for ``claim_idle_ms``."""
        handled = 0
        for stream in self._streams:
            reply: Any = self.redis.xautoclaim(
                stream, GROUP, self.consumer, self.claim_idle_ms, start_id="0-0", count=100
            )
            for entry_id, fields in reply[1]:
                if fields is None:
                    self.redis.xack(stream, GROUP, entry_id)
                    continue
                self._handle(stream, entry_id, fields)
                handled += 1
        return handled

    def handle(self, note: Notification) -> list[str]:
        """The deliveries ``note`` made (enqueued already)."""
        info = self._game(note.game_id)
        seats = {} if info is None else {s.seat: s.account for s in info.seats if s.account}
        if info is None or not self._any_subscribed(seats.values()):
            return []
        change = self._change(note, info, seats)
        wanted = [e for e in events_for(change) if e.account_id in self._subscribed]
        made = self.webhooks.emit(wanted)
        for delivery_id, due_ms in made:
            self.enqueue(delivery_id, due_ms)
        return [delivery_id for delivery_id, _ in made]

    def _change(self, note: Notification, info: GameInfo, seats: dict[str, str]) -> GameChange:
        acting = note.kind or None
        key = f"{self.keys.prefix}:webhooks:acting:{note.game_id}"
        before = self.redis.set(key, note.kind, ex=ACTING_TTL_S, get=True)
        turned = acting is not None and acting in seats and text(before or b"-") != note.kind
        winners: tuple[str, ...] | None = None
        clock_deadline: str | None = None
        if acting is None or (turned and info.clock):
            state = self.games.load(note.game_id).state
            if acting is None and state.phase == FINISHED:
                winners = state.winners or ((state.winner,) if state.winner else ())
            if turned and info.clock:
                found = deadline(self.redis, self.keys, note.game_id, state)
                clock_deadline = None if found is None else found["at"]
        return GameChange(
            info,
            note.first_version,
            note.last_version,
            acting if turned else None,
            winners,
            clock_deadline,
            self.webhooks.settings.public_url,
        )

    def _game(self, game_id: str) -> GameInfo | None:
        """The game's setup and seats, if any seat is an account's (None: no such game,
        or no account in it). Fixed once the game started, so cached."""
        if game_id not in self._games:
            if len(self._games) > 50_000:
                self._games.clear()
            try:
                info: GameInfo | None = self.games.lobby.get(game_id)
            except GameNotFound:
                return None
            if info is not None and not any(s.account for s in info.seats):
                info = None
            self._games[game_id] = info
        return self._games[game_id]

    def _any_subscribed(self, accounts: Iterable[str]) -> bool:
        """Whether one of ``accounts`` has an enabled endpoint: the set is read again
        every 2 s, and at once when an endpoint was registered since."""
        wanted = list(accounts)
        if not wanted:
            return False
        stale = time.monotonic() - self._subscribed_at >= SUBSCRIBED_S
        if not stale and not any(a in self._subscribed for a in wanted):
            stale = self._version.read() != self._subscribed_version
        if stale:
            self._subscribed_version = self._version.read()
            self._subscribed = self.webhooks.store.accounts_subscribed()
            self._subscribed_at = time.monotonic()
        return any(a in self._subscribed for a in wanted)

    def _read(self, block_ms: int, count: int) -> list[Any]:
        return read_group(self.redis, self._streams, GROUP, self.consumer, block_ms, count)

    def _handle(self, stream: str, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        try:
            self.handle(Notification.from_entry(entry_id, fields))
        except (RedisConnectionError, RedisTimeoutError):
            raise
        except Exception:
            log.exception("webhook feed could not handle %s %s", stream, entry_id)
            pending: Any = self.redis.xpending_range(stream, GROUP, entry_id, entry_id, 1)
            tries = pending[0]["times_delivered"] if pending else self.max_deliveries
            if tries < self.max_deliveries:
                return
        self.redis.xack(stream, GROUP, entry_id)
