"""The projector: the event store's outbox, projected into the SQL archive (issue 48).

A consumer group of its own (``projector``) on every outbox, beside the
relay's: the relay turns notifications into bot jobs, the projector into
archive rows. Each round:

* reads up to ``count`` notifications at once (``XREADGROUP COUNT``), and
  coalesces those of one game: a busy game's hundred appends make one row;
* builds each game's summary row from Redis as it is now
  (``workers.archiving.Summaries``: both ends of every game's stream in one
  round trip, the games' setups kept; no fold), writes the lot in one
  transaction (``Archive.write``: idempotent upserts, an older version never
  overwrites a newer one), rates the rated games that finished
  (``PlayerRatings.rate``, issue 49: idempotent per game, oldest first), then
  acknowledges the entries (with the figures, one round trip);
* then, with what time is left in the round (or in a process of its own:
  ``risk projector``), archives the records of the
  finished games whose row has no record yet (``archive_records``): each
  verified as ``risk verify`` would and compressed (``checked_record``). What
  is left to do is read from the archive itself, so it survives any crash,
  and a record's verification (the costly part) never holds up the summaries;
* a crash before a summary's commit leaves its entries pending, to be read
  again (``XREADGROUP`` from ``0`` for its own, ``XAUTOCLAIM`` for another
  consumer's after ``claim_idle_ms``); a crash after the commit and before the
  acknowledgement makes a repeat that changes nothing. So kill -9 at any
  point loses nothing and doubles nothing;
* the database away (``ArchiveUnavailable``) or Redis away: the entries stay
  pending, the projector waits a second and reads them again: it catches up
  when they are back. Redis losing its data (``NOGROUP``) makes it create
  its groups again, from the start of each outbox.

A record that does not verify is never archived: its game's row is, and the
game goes to a dead-letter stream with the reason. The lag (the age of each
notification when its summary was committed) is kept as percentiles since
the projector started in ``KeySpace.projector_stats``; ``/metrics`` and
``/readyz`` also show the age of the oldest notification not yet projected
(``service.http.archive_health``).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.application.errors import GameNotStarted
from service.application.games import GameService
from service.application.player_ratings import PlayerRatings, result_from_row
from service.store.archive import Archive, ArchiveUnavailable, GameRow, RecordRow
from service.store.errors import GameNotFound, StoreUnavailable
from service.store.values import Client, Notification
from workers.archiving import RecordRefused, Summaries, checked_record
from workers.outbox_groups import ensure_group, text

log = logging.getLogger(__name__)
GROUP = "projector"
HEARTBEAT_MS = 1_000
RECLAIM_MS = 5_000  # how often what a dead consumer left is looked for (one round trip)
PRUNE_MS = 600_000  # RISK_ARCHIVE_DAYS is applied every ten minutes


@dataclass(frozen=True, slots=True)
class Entry:
    stream: str
    entry_id: str
    fields: dict[bytes, bytes]

    @property
    def ms(self) -> int:
        """When the notification was written (its stream id's time part)."""
        return int(self.entry_id.split("-", 1)[0])


@dataclass
class ProjectorStats:
    notifications: int = 0
    games: int = 0
    records: int = 0
    batches: int = 0
    gone: int = 0  # games deleted (or expired) before they were projected
    refused: int = 0  # records that did not verify
    regrouped: int = 0
    lags: LagHistogram = field(default_factory=lambda: LagHistogram())


class LagHistogram:
    """Each notification's lag (written to committed), in 10 ms buckets up to a
    minute, since the projector started: percentiles without keeping every figure."""

    BUCKET_MS = 10
    BUCKETS = 6_000

    def __init__(self) -> None:
        self.counts = [0] * (self.BUCKETS + 1)  # the last: a minute or more
        self.total = 0
        self.max_ms = 0

    def add(self, lag_ms: int) -> None:
        self.counts[min(max(lag_ms, 0) // self.BUCKET_MS, self.BUCKETS)] += 1
        self.total += 1
        self.max_ms = max(self.max_ms, lag_ms)

    def percentile(self, share: float) -> int:
        """The upper edge of the bucket holding the ``share`` quantile (0: none yet)."""
        wanted, seen = share * self.total, 0
        for bucket, count in enumerate(self.counts):
            seen += count
            if count and seen >= wanted:
                return min((bucket + 1) * self.BUCKET_MS, self.max_ms)
        return 0


class Projector:
    def __init__(
        self,
        connection: Client,
        service: GameService,
        archive: Archive,
        *,
        consumer: str | None = None,
        count: int = 500,
        claim_idle_ms: int = 10_000,
        archive_days: float = 0.0,
        ratings: PlayerRatings | None = None,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        """``consumer`` defaults to the host's name, so a restarted projector reads
        what it had read and not acknowledged first, without waiting.
        ``archive_days`` (RISK_ARCHIVE_DAYS): games finished longer ago are dropped
        from the archive, once every ``PRUNE_MS``; 0 keeps them for ever.
        ``ratings``: the players' ratings (issue 49) that rated games change."""
        self.redis = connection
        self.service = service
        self.keys = service.keys
        self.archive = archive
        self.ratings = ratings
        self.consumer = consumer or f"{socket.gethostname()}-projector"
        self.count = count
        self.claim_idle_ms = claim_idle_ms
        self.now_ms = now_ms
        self.archive_days = archive_days
        self._last_prune_ms = 0
        self.stats = ProjectorStats()
        self.summaries = Summaries(service)
        self._streams = self.keys.outboxes()
        self._own_pending = True  # first read this consumer's unacknowledged entries
        self._set_aside: set[str] = set()  # finished games whose record cannot be archived
        self._last_beat_ms = 0

    def ensure_groups(self) -> None:
        """The consumer group on every outbox, from the start of each stream."""
        ensure_group(self.redis, self._streams, GROUP, "0")

    def run_once(self, block_ms: int = 200) -> int:
        """Project one batch (blocking up to ``block_ms`` for it); how many notifications."""
        entries = self._read(block_ms)
        if entries:
            self.project(entries)
        return len(entries)

    def reclaim(self) -> int:
        """Project entries another consumer read and left unacknowledged (it died)."""
        pipe = self.redis.pipeline(transaction=False)  # one round trip for every outbox
        for stream in self._streams:
            pipe.xautoclaim(
                stream, GROUP, self.consumer, self.claim_idle_ms, start_id="0-0", count=self.count
            )
        replies: list[Any] = pipe.execute()
        entries = [
            entry
            for stream, reply in zip(self._streams, replies, strict=True)
            for entry in _entries(stream, reply[1])
        ]
        if entries:
            self.project(entries)
        return len(entries)

    def project(self, entries: Sequence[Entry]) -> None:
        """Archive the summaries of the games ``entries`` name, in one transaction; then
        acknowledge them. Finished games' records follow (``archive_records``)."""
        game_ids = list(
            dict.fromkeys(
                Notification.from_entry(entry.entry_id.encode(), entry.fields).game_id
                for entry in entries
                if entry.fields  # an entry trimmed from the outbox meanwhile has none
            )
        )
        games = self._summaries(game_ids)
        self.archive.write(games, [], self.now_ms())
        committed = self.now_ms()
        self._rate(games)
        for entry in entries:
            self.stats.lags.add(committed - entry.ms)
        self.stats.notifications += len(entries)
        self.stats.games += len(games)
        self.stats.batches += 1
        self._acknowledge(entries)

    def _rate(self, games: Sequence[GameRow]) -> None:
        """Rated games that finished change their accounts' ratings, oldest first. After
        the archive's commit and before the acknowledgement: a crash in between makes a
        repeat, which ``rate`` ignores (a game is rated once)."""
        if self.ratings is None:
            return
        results = [r for r in map(result_from_row, games) if r is not None]
        for result in sorted(results, key=lambda r: (r.finished_ms, r.game_id)):
            self.ratings.rate(result)

    def _summaries(self, game_ids: list[str]) -> list[GameRow]:
        games = self.summaries.rows(game_ids)
        self.stats.gone += len(game_ids) - len(games)
        return games

    def archive_records(self, budget_seconds: float = 0.5, batch: int = 16) -> int:
        """Build, verify and archive the records of finished games whose summary is
        archived and record is not, for up to ``budget_seconds``; how many.

        What is left to do is read from the archive itself (finished rows without
        a record), so it survives any crash; a record that does not verify, or a
        game Redis no longer has, is set aside for this process's life (and the
        former dead-lettered): ``risk archive backfill`` tries again.
        """
        started = time.monotonic()
        done = 0
        while time.monotonic() - started < budget_seconds:
            waiting = [
                g
                for g in self.archive.unrecorded(batch + len(self._set_aside))
                if g not in self._set_aside
            ]
            if not waiting:
                break
            for game_id in waiting[:batch]:
                record = self._record(game_id)
                if record is not None:
                    self.archive.write([], [record], self.now_ms())
                    done += 1
                    self.stats.records += 1
                if time.monotonic() - started >= budget_seconds:
                    break
        if done:  # counted where it is done (the records may be another process's)
            self.redis.hincrby(self.keys.projector_stats(), "records", done)
        return done

    def _record(self, game_id: str) -> RecordRow | None:
        try:
            return checked_record(self.service, game_id)
        except RecordRefused as error:
            log.error("%s", error)
            self.stats.refused += 1
            self._set_aside.add(game_id)
            dead = {"game": game_id, "error": error.reason}
            self.redis.xadd(self.keys.projector_dead_letters(), dead, maxlen=10_000)
        except (GameNotFound, GameNotStarted):
            log.warning("projector: game %s finished but is gone from Redis: no record", game_id)
            self._set_aside.add(game_id)
        return None

    def _read(self, block_ms: int) -> list[Entry]:
        """This consumer's pending entries first (after a restart or an outage), then
        new ones."""
        if self._own_pending:
            entries = self._read_from("0", None)
            if entries:
                return entries
            self._own_pending = False
        return self._read_from(">", block_ms)

    def _read_from(self, start: str, block_ms: int | None) -> list[Entry]:
        replies: list[Any] = []
        if isinstance(self.redis, RedisCluster):  # one outbox per command
            for stream in self._streams:
                replies += (
                    self.redis.xreadgroup(GROUP, self.consumer, {stream: start}, self.count) or []
                )
            if not replies and block_ms:
                time.sleep(min(block_ms, 50) / 1000)
        else:
            streams = dict.fromkeys(self._streams, start)
            replies = (
                self.redis.xreadgroup(GROUP, self.consumer, streams, self.count, block_ms) or []
            )
        return [e for stream, found in replies for e in _entries(text(stream), found)]

    def _acknowledge(self, entries: Sequence[Entry]) -> None:
        """The entries acknowledged and the figures published, in one round trip (each
        costs the next batch's notifications the wait for it)."""
        by_stream: dict[str, list[str]] = {}
        for entry in entries:
            by_stream.setdefault(entry.stream, []).append(entry.entry_id)
        pipe = self.redis.pipeline(transaction=False)
        for stream, ids in by_stream.items():
            pipe.xack(stream, GROUP, *ids)
        pipe.hset(self.keys.projector_stats(), mapping=self._figures())
        pipe.execute()

    def _figures(self) -> dict[str, int]:
        """The lag percentiles and counts, for ``bench/archive.py`` and operators."""
        stats = self.stats
        return {
            "lag_p50_ms": stats.lags.percentile(0.5),
            "lag_p99_ms": stats.lags.percentile(0.99),
            "lag_max_ms": stats.lags.max_ms,
            "notifications": stats.notifications,
            "games": stats.games,
            "batches": stats.batches,
            "refused": stats.refused,
            "gone": stats.gone,
        }

    def prune(self) -> int:
        """Drop games finished more than ``archive_days`` ago (at most once per
        ``PRUNE_MS``); how many were dropped."""
        now = self.now_ms()
        if self.archive_days <= 0 or now - self._last_prune_ms < PRUNE_MS:
            return 0
        self._last_prune_ms = now
        dropped = self.archive.prune(now - round(self.archive_days * 86_400_000))
        if dropped:
            log.info("projector dropped %d archived games past RISK_ARCHIVE_DAYS", dropped)
        return dropped

    def beat(self) -> None:
        """Say this projector is alive (at most once per ``HEARTBEAT_MS``)."""
        now = self.now_ms()
        if now - self._last_beat_ms < HEARTBEAT_MS:
            return
        self._last_beat_ms = now
        beats = self.keys.projector_heartbeats()
        self.redis.zadd(beats, {self.consumer: now})
        self.redis.zremrangebyscore(beats, 0, now - 3_600_000)

    def run(self, stop: threading.Event, block_ms: int = 200, *, records: bool = True) -> None:
        """Loop until ``stop``: read and project; every ``RECLAIM_MS`` take over what a
        dead consumer left. An outage of Redis or of the database is waited out.
        ``records=False``: the records are another process's (``run_records``)."""
        groups_missing = True
        last_reclaim_ms = self.now_ms()
        while not stop.is_set():
            try:
                if groups_missing:
                    self.ensure_groups()
                    groups_missing = False
                self.beat()
                read = self.run_once(block_ms)
                if records:
                    self.archive_records(0.2 if read else 1.0)
                if self.now_ms() - last_reclaim_ms >= RECLAIM_MS:
                    last_reclaim_ms = self.now_ms()
                    self.reclaim()
                    self.prune()
            except (ArchiveUnavailable, StoreUnavailable) as error:  # DatabaseUnavailable too
                self._wait(stop, "projector: %s; retrying", error)
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                self._wait(stop, "projector lost Redis: %s; retrying", error)
            except ResponseError as error:
                if not str(error).startswith(("NOGROUP", "UNBLOCKED")):
                    raise
                log.warning("projector's consumer group is gone (Redis lost its data?)")
                self.stats.regrouped += 1
                groups_missing = True
                self._last_beat_ms = 0

    def run_records(self, stop: threading.Event) -> None:
        """Loop until ``stop``: archive the records the archive lacks (``risk projector``
        runs this in a process of its own, so that verifying records, the costly part,
        takes no time from the summaries). Outages are waited out."""
        while not stop.is_set():
            try:
                if not self.archive_records(budget_seconds=2.0):
                    stop.wait(0.2)
            except (ArchiveUnavailable, StoreUnavailable) as error:
                self._wait(stop, "projector's records: %s; retrying", error)
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                self._wait(stop, "projector's records lost Redis: %s; retrying", error)

    def _wait(self, stop: threading.Event, message: str, error: Exception) -> None:
        """What was read stays pending: read again (from ``0``) once this is over."""
        log.warning(message, error)
        self._own_pending = True
        stop.wait(1.0)


def _entries(stream: str, found: Any) -> list[Entry]:
    return [
        Entry(stream, text(entry_id), fields or {})
        for entry_id, fields in found
        if entry_id is not None
    ]
