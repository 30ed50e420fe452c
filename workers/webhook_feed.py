"""The webhook feed (issue 50): outbox notifications to webhook deliveries.

A consumer group of its own (``webhooks``) on the outboxes the relay reads,
run by the webhook workers (``risk worker --webhooks``), so the relay and
the game workers do not do any of this work: for each notification of a game
with an account that has a webhook, it describes the change
(``service.application.webhook_events.GameChange``), makes the deliveries
(``Webhooks.emit``) and hands them to its own process's senders, or, when
they are all busy, enqueues a send job on the ``webhooks`` queue for those of
each read (see ``workers.webhooks``). Games without such an account cost one cached look-up,
and their entries are acknowledged a read at a time.

The group starts at the outboxes' end when first made: what happened before
any webhook worker ran is not news. An entry is acknowledged after its
deliveries are written; one that fails stays pending and is taken over
after ``claim_idle_ms`` (a feed that died), then dropped after
``max_deliveries`` tries.

The same loop sweeps the database four times a second for deliveries that are
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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue

from riskcore.model.state import FINISHED
from service.application.clocks import deadline
from service.application.games import GameService
from service.application.lobby import GameInfo
from service.application.webhook_events import GameChange, audience_accounts, events_for
from service.application.webhooks import Webhooks
from service.store.errors import GameNotFound
from service.store.keys import KeySpace
from service.store.values import Client, Notification
from service.store.webhook_version import WebhookVersion
from workers.outbox_groups import ensure_group, read_group, text
from workers.webhooks import DELIVER_MANY, LEASE_MARGIN_S

log = logging.getLogger(__name__)
GROUP = "webhooks"
SWEEP_S = 0.25  # API-made deliveries (a challenge's) wait for the sweep: keep it short
RECLAIM_S = 1.0
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
        hand_off: Callable[[str], bool] | None = None,
    ) -> None:
        """``hand_off`` gives a fresh delivery to this process's senders if one is free
        (``workers.webhooks.hand_off``); without it, or when it refuses, deliveries
        are enqueued."""
        self.redis = connection
        self.keys = keys
        self.queue = queue
        self.webhooks = webhooks
        self.games = GameService(connection, keys)
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.claim_idle_ms = claim_idle_ms
        self.max_deliveries = max_deliveries
        self.hand_off = hand_off
        self._streams = keys.outboxes()
        self._games: dict[str, GameInfo | None] = {}
        self._version = WebhookVersion(connection, keys)
        self._subscribed: set[str] = set()
        self._subscribed_at = 0.0
        self._subscribed_version = -1
        self._swept_at = 0.0
        self._reclaimed_at = 0.0

    def ensure_groups(self) -> None:
        ensure_group(self.redis, self._streams, GROUP, "$")

    def run_once(self, block_ms: int = 500, count: int = 100) -> int:
        """Handle what the outboxes hold for this group; return how many entries.

        A read's deliveries go out in one send job and its entries are acknowledged
        in one ``XACK`` a stream: the outboxes carry every game's notifications,
        and most are of games without webhooks, so a round trip per entry would be
        most of the feed's work."""
        handled = 0
        made: list[tuple[str, int]] = []
        for stream, entries in self._read(block_ms, count):
            done = [e for e, fields in entries if self._handle(text(stream), e, fields, made)]
            if done:
                self.redis.xack(stream, GROUP, *done)
            handled += len(entries)
        self.enqueue_many(made)
        return handled

    def run(self, stop: threading.Event, block_ms: int = 250) -> None:
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
                    self.sweep()  # one indexed query
                if time.monotonic() - self._reclaimed_at >= RECLAIM_S:
                    self._reclaimed_at = time.monotonic()
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
        due = self.webhooks.store.due(int(time.time() * 1000))
        return self.enqueue_many(due, hand_off=False)

    def enqueue(self, delivery_id: str, due_ms: int = 0) -> bool:
        """``enqueue_many`` for one delivery."""
        return self.enqueue_many([(delivery_id, due_ms)]) == 1

    def enqueue_many(self, deliveries: Sequence[tuple[str, int]], hand_off: bool = True) -> int:
        """These deliveries' attempts (each due at its ``due_ms``) to this process's
        free senders (``hand_off``) and the rest in one send job, less those sent
        or enqueued within a sender's lease already (a job lost with its worker, or
        still waiting in a long queue, gets a copy then; the lease makes copies
        harmless); how many were sent or enqueued."""
        if not deliveries:
            return 0
        lease_ms = round((self.webhooks.settings.timeout_s + LEASE_MARGIN_S) * 1000)
        markers = self.redis.pipeline(transaction=False)
        for delivery_id, due_ms in deliveries:
            marker = f"{self.keys.prefix}:webhooks:enqueued:{delivery_id}:{due_ms}"
            markers.set(marker, 1, nx=True, px=lease_ms)
        fresh = [d for (d, _), new in zip(deliveries, markers.execute(), strict=True) if new]
        taken = len(fresh)
        if hand_off and self.hand_off is not None:
            fresh = [d for d in fresh if not self.hand_off(d)]
        if fresh:
            self.queue.enqueue(
                DELIVER_MANY,
                fresh,
                result_ttl=0,
                failure_ttl=3600,
                job_timeout=round(self.webhooks.settings.timeout_s) + 60,
            )
        return taken

    def reclaim(self) -> int:
        """Take over entries another feed left pending for ``claim_idle_ms``."""
        handled = 0
        made: list[tuple[str, int]] = []
        for stream in self._streams:
            reply: Any = self.redis.xautoclaim(
                stream, GROUP, self.consumer, self.claim_idle_ms, start_id="0-0", count=100
            )
            done = []
            for entry_id, fields in reply[1]:
                if fields is None or self._handle(stream, entry_id, fields, made):
                    done.append(entry_id)
                handled += fields is not None
            if done:
                self.redis.xack(stream, GROUP, *done)
        self.enqueue_many(made)
        return handled

    def handle(self, note: Notification) -> list[str]:
        """The deliveries ``note`` made (enqueued already)."""
        made = self._deliveries(note)
        self.enqueue_many(made)
        return [delivery_id for delivery_id, _ in made]

    def _deliveries(self, note: Notification) -> list[tuple[str, int]]:
        """The deliveries ``note`` made, and when each is due (written, not enqueued)."""
        info = self._game(note.game_id)
        if info is None or not self._any_subscribed(audience_accounts(info)):
            return []
        seats = {s.seat: s.account for s in info.seats if s.account}
        change = self._change(note, info, seats)
        wanted = [e for e in events_for(change) if e.account_id in self._subscribed]
        return self.webhooks.emit(wanted)

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
        """The game's setup and seats, if any seat is an account's or an account created
        it (None: no such game, or no account in it). Fixed once the game started, so
        cached."""
        if game_id not in self._games:
            if len(self._games) > 50_000:
                self._games.clear()
            try:
                info: GameInfo | None = self.games.lobby.get(game_id)
            except GameNotFound:
                return None
            if info is not None and not audience_accounts(info):
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

    def _handle(
        self, stream: str, entry_id: bytes, fields: dict[bytes, bytes], made: list[tuple[str, int]]
    ) -> bool:
        """Add the entry's deliveries to ``made``; whether to acknowledge it (not when
        it failed and has tries left: it stays pending, to be taken over)."""
        try:
            made += self._deliveries(Notification.from_entry(entry_id, fields))
        except (RedisConnectionError, RedisTimeoutError):
            raise
        except Exception:
            log.exception("webhook feed could not handle %s %s", stream, entry_id)
            pending: Any = self.redis.xpending_range(stream, GROUP, entry_id, entry_id, 1)
            tries = pending[0]["times_delivered"] if pending else self.max_deliveries
            return bool(tries >= self.max_deliveries)
        return True
