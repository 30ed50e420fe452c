"""The relay: turns the event store's outbox into RQ jobs, one per game at a time.

Every append writes one notification to its partition's outbox stream
(``service.store``). The relay reads them with a consumer group, so several
relays share the work and a crashed one's entries are taken over:

* ``XREADGROUP`` hands each entry to one consumer; the entry is acknowledged
  (``XACK``) only after its job is enqueued, so a crash in between means a
  re-delivery, never a loss;
* a game gets a job only if no job holds it (``workers.claims``): while one
  is queued or running, the game's further notifications are coalesced into
  it (the job plays on from the game as it is, and lets go only when the
  game is still where it last looked), so 100 busy games make at most 100
  pending jobs, not one per append;
* ``XAUTOCLAIM`` takes over entries left pending by a dead consumer for
  longer than ``claim_idle_ms`` (5 s: a live relay handles an entry in
  milliseconds, so an entry that old was read by a relay that died);
* an entry that failed ``max_deliveries`` times goes to a dead-letter
  stream (with the error) and is acknowledged, so one poisoned
  notification cannot stall a partition;
* a watchdog covers jobs lost with a killed worker: each notification
  gives the game a lease (``lease_ms``), which its job renews every time
  slice; the job clears it when the game waits for a person or is over (a
  running clock keeps it until 10 s after its deadline, in case the
  deadline job is lost with its worker: ``workers.jobs.start_clock``). For
  a game whose lease ran out the relay looks at the job holding it: one
  still waiting in a queue gets more time; otherwise (its worker died, it
  failed, it was never enqueued, a pop took it from its queue and lost it)
  a new job takes the claim over. Jobs look
  at the game first, so a spare job costs one read;
* Redis losing its data (a restart without persistence, ``FLUSHALL``, a
  failover to a replica that lacks the group) makes reads fail with
  ``NOGROUP`` (``UNBLOCKED`` for a read waiting then): the relay creates
  its groups again (from the start of each outbox, so nothing still there
  is missed) and carries on;
* each relay writes a heartbeat (``KeySpace.relay_heartbeats``) about once
  a second, so ``/readyz`` and ``/metrics`` show whether any relay runs;
* each round it looks at the quick-pairing queue (issue 49) and enqueues its
  sweep when a seeker's wait is over (``workers.pairing_jobs``), so bots
  fill a game within about a second of the wait the seeker chose.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.store.keys import KeySpace
from service.store.pairing import PairingQueue
from service.store.values import Client, Notification
from workers import clock
from workers.claims import Claims, new_job_id
from workers.outbox_groups import ensure_group, read_group, text
from workers.sweep import SWEEP_SECONDS

log = logging.getLogger(__name__)
GROUP = "relay"
# By name, so the relay does not import the engine and bots the jobs need.
ADVANCE_GAME = "workers.jobs.advance_game"
ADVANCE_TOURNAMENT = "workers.jobs.advance_tournament"
SWEEP_GAMES = "workers.jobs.sweep_games"
FILL_PAIRINGS = "workers.pairing_jobs.fill_pairings"  # issue 49
EXPIRE_CHALLENGES = "workers.pairing_jobs.expire_challenges"
# A match older than this without its game: its maker died (service.application.pairing).
STALE_MATCH_MS = 10_000
# How often the running tournaments are advanced again, by one relay of all.
SWEEP_MS = 30_000


@dataclass
class RelayStats:
    enqueued: int = 0
    coalesced: int = 0
    dead_lettered: int = 0
    reclaimed: int = 0
    rescued: int = 0
    regrouped: int = 0


# A job in one of these states is on its way to a worker: its game's lease ran out
# because the queues are long, not because the job was lost.
WAITING = frozenset({JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED})
HEARTBEAT_MS = 1_000
FORGET_HEARTBEATS_MS = 3_600_000  # a relay gone for an hour is dropped from the heartbeats


class Relay:
    def __init__(
        self,
        connection: Client,
        keys: KeySpace,
        queue: Queue,
        *,
        consumer: str | None = None,
        claim_idle_ms: int = 5_000,
        max_deliveries: int = 5,
        lease_ms: int = 5_000,
    ) -> None:
        self.redis = connection
        self.keys = keys
        self.queue = queue
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.claim_idle_ms = claim_idle_ms
        self.max_deliveries = max_deliveries
        self.lease_ms = lease_ms
        self.stats = RelayStats()
        self.claims = Claims(connection, keys)
        self._streams = keys.outboxes()
        self._last_beat_ms = 0
        self.pairing = PairingQueue(connection, keys)

    def ensure_groups(self) -> None:
        """Create the consumer group on every outbox (from the start of the stream)."""
        ensure_group(self.redis, self._streams, GROUP, "0")

    def run_once(self, block_ms: int = 1000, count: int = 100) -> int:
        """Handle what is waiting (blocking up to ``block_ms`` for it); return how many."""
        handled = 0
        for stream, entries in self._read(block_ms, count):
            for entry_id, fields in entries:
                self._handle(text(stream), entry_id, fields)
                handled += 1
        return handled

    def _read(self, block_ms: int, count: int) -> list[Any]:
        return read_group(self.redis, self._streams, GROUP, self.consumer, block_ms, count)

    def reclaim(self) -> int:
        """Take over entries another consumer left pending too long, and retry them."""
        handled = 0
        for stream in self._streams:
            reply: Any = self.redis.xautoclaim(
                stream, GROUP, self.consumer, self.claim_idle_ms, start_id="0-0", count=100
            )
            for entry_id, fields in reply[1]:
                if fields is None:  # deleted meanwhile (trimmed outbox)
                    self.redis.xack(stream, GROUP, entry_id)
                    continue
                self.stats.reclaimed += 1
                self._handle(stream, entry_id, fields)
                handled += 1
        return handled

    def rescue(self) -> int:
        """Re-enqueue games whose lease ran out (their job died with its worker, or
        failed); a game whose job still waits in a queue gets more time instead."""
        now = clock.now_ms()
        expired = self.redis.zrangebyscore(self.keys.worker_leases(), 0, now, start=0, num=100)
        for raw in expired:
            game_id = text(raw)
            self.redis.zadd(self.keys.worker_leases(), {game_id: now + self.lease_ms})
            if self._waiting(self.claims.holder(game_id)):
                continue
            job_id = new_job_id(game_id)
            self.claims.take_over(game_id, job_id)
            self._enqueue_job(game_id, job_id)
            self.stats.rescued += 1
        return len(expired)

    def _waiting(self, job_id: str | None) -> bool:
        """Whether the job holding a game is still on its way to a worker (in any queue:
        a continued job waits in another one than the relay's).

        A job marked queued must also still be in its queue's list: a worker's
        blocking pop can take a job and lose it with its connection (a socket
        timeout shorter than the pop, a worker killed between the two), which
        leaves the job queued by its status forever; waiting for it would stall
        its game for good.
        """
        if job_id is None:
            return False
        connection = self.queue.connection
        try:
            job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        except NoSuchJobError:
            return False
        status = job.get_status(refresh=False)
        if status == JobStatus.QUEUED:
            queue_key = Queue(job.origin, connection=connection).key
            return connection.lpos(queue_key, job_id) is not None
        return status in WAITING

    def beat(self) -> None:
        """Say this relay is alive (at most once per ``HEARTBEAT_MS``)."""
        now = clock.now_ms()
        if now - self._last_beat_ms < HEARTBEAT_MS:
            return
        self._last_beat_ms = now
        beats = self.keys.relay_heartbeats()
        self.redis.zadd(beats, {self.consumer: now})
        self.redis.zremrangebyscore(beats, 0, now - FORGET_HEARTBEATS_MS)

    def run(self, stop: threading.Event, block_ms: int = 500) -> None:
        """Loop until ``stop`` is set: read; every few rounds rescue and reclaim."""
        groups_missing = True
        rounds = 0
        while not stop.is_set():
            try:
                if groups_missing:
                    self.ensure_groups()
                    groups_missing = False
                self.beat()
                self.run_once(block_ms=block_ms)
                self.sweep_pairing()
                rounds += 1
                if rounds % 4 == 0:  # about every 2 s
                    self.rescue()
                    self.reclaim()
                    self.sweep_tournaments()
                    self.sweep_games()
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                # The store or RQ's Redis restarting: wait and retry; what was
                # read stays pending and is reclaimed, never dead-lettered for it.
                log.warning("relay lost Redis: %s", error)
                stop.wait(1.0)
            except ResponseError as error:
                if not _group_lost(error):
                    raise
                log.warning("relay's consumer group is gone (Redis lost its data?): %s", error)
                self.stats.regrouped += 1
                groups_missing = True
                self._last_beat_ms = 0  # the heartbeats went with the data

    def sweep_tournaments(self) -> int:
        """Advance every running tournament again, once per ``SWEEP_MS`` over all relays.

        A tournament moves on when one of its games ends (``advance_tournament``);
        one whose advance failed for good (retries spent in a Redis outage), or
        whose running games an operator deleted, would otherwise wait forever.
        An advance is idempotent and locked, so a sweep that finds nothing to do
        does nothing. Returns how many were enqueued.
        """
        sweep = self.keys.tournament_sweep()
        if not self.redis.set(sweep, self.consumer, nx=True, px=SWEEP_MS):
            return 0
        enqueued = 0
        for raw in self.redis.smembers(self.keys.running_tournaments()):
            tournament_id = text(raw)
            with contextlib.suppress(DuplicateJobError):  # the last sweep's still waits
                self.queue.enqueue(
                    ADVANCE_TOURNAMENT,
                    tournament_id,
                    job_id=f"tournament-sweep-{tournament_id}",
                    unique=True,
                    result_ttl=0,
                    failure_ttl=3600,
                )
                enqueued += 1
        return enqueued

    def sweep_games(self) -> bool:
        """Enqueue ``workers.jobs.sweep_games`` once per ``SWEEP_SECONDS`` over all relays
        (``workers.sweep``: abandoned games ended, bot games no job holds woken), and
        the challenges' expiry (``workers.pairing_jobs``)."""
        lock = self.keys.games_sweep()
        if not self.redis.set(lock, self.consumer, nx=True, px=SWEEP_SECONDS * 1000):
            return False
        with contextlib.suppress(DuplicateJobError):  # the last sweep's still waits
            self.queue.enqueue(
                SWEEP_GAMES, job_id="sweep-games", unique=True, result_ttl=30, failure_ttl=3600
            )
        with contextlib.suppress(DuplicateJobError):  # issue 49: challenges past their expiry
            self.queue.enqueue(
                EXPIRE_CHALLENGES,
                job_id="expire-challenges",
                unique=True,
                result_ttl=30,
                failure_ttl=600,
            )
        return True

    def sweep_pairing(self) -> bool:
        """Enqueue ``workers.pairing_jobs.fill_pairings`` when a seeker's wait is over,
        or a match has waited too long for its game (issue 49): two reads a round."""
        now = clock.now_ms()
        due = self.pairing.next_due_ms()
        matched = self.pairing.oldest_match_ms()
        if (due is None or due > now) and (matched is None or matched > now - STALE_MATCH_MS):
            return False
        with contextlib.suppress(DuplicateJobError):  # the last one's still waits
            self.queue.enqueue(
                FILL_PAIRINGS, job_id="pairing-fill", unique=True, result_ttl=0, failure_ttl=30
            )
        return True

    def _handle(self, stream: str, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        try:
            note = Notification.from_entry(entry_id, fields)
            self._enqueue(note)
        except (RedisConnectionError, RedisTimeoutError):
            raise  # an outage, not a bad notification: ``run`` waits it out
        except Exception as error:
            self._failed(stream, entry_id, fields, error)
            return
        self.redis.xack(stream, GROUP, entry_id)

    def _enqueue(self, note: Notification) -> None:
        # The lease first: if this relay dies between claiming and enqueueing, the
        # watchdog finds a claim whose job never came, and makes it.
        self.redis.zadd(self.keys.worker_leases(), {note.game_id: clock.now_ms() + self.lease_ms})
        job_id = new_job_id(note.game_id)
        if not self.claims.acquire(note.game_id, job_id):
            self.stats.coalesced += 1  # the job holding the game will see this append
            return
        try:
            self._enqueue_job(note.game_id, job_id)
        except Exception:
            # Not enqueued (RQ's Redis away?): free the game again, so that the entry's
            # retry claims it instead of being coalesced into a job that never came.
            with contextlib.suppress(Exception):
                self.claims.drop(note.game_id, job_id)
            raise
        self.stats.enqueued += 1

    def _enqueue_job(self, game_id: str, job_id: str) -> None:
        self.queue.enqueue(
            ADVANCE_GAME,
            game_id,
            None,
            True,  # claimed: the job holds the game (``workers.jobs.advance_game``)
            job_id=job_id,
            result_ttl=60,
            failure_ttl=3600,
        )

    def _failed(
        self, stream: str, entry_id: bytes, fields: dict[bytes, bytes], error: Exception
    ) -> None:
        """Leave the entry pending for a retry, or dead-letter it after too many."""
        log.exception("relay could not handle %s %s", stream, entry_id)
        pending: Any = self.redis.xpending_range(stream, GROUP, entry_id, entry_id, 1)
        deliveries = pending[0]["times_delivered"] if pending else self.max_deliveries
        if deliveries < self.max_deliveries:
            return
        dead = {b"stream": stream.encode(), b"entry": entry_id, b"error": repr(error).encode()}
        self.redis.xadd(self.keys.relay_dead_letters(), {**fields, **dead}, maxlen=100_000)
        self.redis.xack(stream, GROUP, entry_id)
        self.stats.dead_lettered += 1


def _group_lost(error: ResponseError) -> bool:
    """NOGROUP, or UNBLOCKED: a blocked read whose stream was deleted under it."""
    return str(error).startswith(("NOGROUP", "UNBLOCKED"))
