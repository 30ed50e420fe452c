"""The event store: one Redis stream per game, appended by one Lua script.

The store is generic over bytes. It never decodes an event: a payload is
the codec's canonical encoding, and the caller hashes it with
``riskcore.audit.chain`` (``new_events`` does that). What the store guarantees,
against one Redis or a Redis Cluster:

* no lost update: an append names the version it was decided at
  (``expected_version``) and is refused with ``VersionConflict`` otherwise;
* no gap, no duplicate: entry ids are ``<version>-0``, written by the
  script from the stored version, so ``XADD`` itself refuses a reused id;
* no half-written batch: the whole append (events, version, head hash,
  idempotency record, seed, outbox notification) is one script that checks
  every argument before its first write;
* safe retries: an idempotency key replays the original result; an append
  without one that the Redis client re-sends after a dropped connection
  (redis-py retries them) is sent as a re-send, which replays if its own
  events are stored, so it cannot apply a batch twice nor report a false
  conflict (on Redis Cluster, whose client re-sends unseen, a private
  idempotency key does that);
* a hash chain: each entry stores its hash and payload in one field ``e``
  (32 bytes of hash, then the payload; entries written before 2026-12-03
  hold them as ``p`` and ``h``, and are read as such). The previous hash is
  *not* stored again: it is the previous entry's hash, so reads fetch one
  extra entry to fill ``StoredEvent.prev``. That keeps an event near 160
  bytes of Redis memory instead of 210+ (bench/store.py);
* loading in bounded time: snapshots every ``snapshot_every`` events,
  stamped with the codec/rules version, so a load is one snapshot plus at
  most that many events.

The client must return bytes (``decode_responses=False``): payloads and
hashes are binary. Blocking reads (``wait``) hold a pooled connection for
their timeout, so the client's ``socket_timeout`` must be longer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

from redis.cluster import RedisCluster
from redis.exceptions import OutOfMemoryError

from riskcore.audit.chain import GENESIS, HASH_SIZE, verify_chain
from service.store.errors import (
    REDIS_OUTAGES,
    AppendOutcomeUnknown,
    ChainMismatch,
    GameNotFound,
    IdempotencyMismatch,
    InvalidArgument,
    MalformedAppend,
    StoreFull,
    VersionConflict,
    translated,
)
from service.store.idempotency import PRIVATE_KEY, batch_fingerprint, private_key, read_record
from service.store.keys import GameKeys, KeySpace
from service.store.scripts import HeldConnectionScript, register
from service.store.values import (
    AppendResult,
    Client,
    Head,
    NewEvent,
    Notification,
    Snapshot,
    StoredEvent,
    Tail,
)

__all__ = ["MAX_BATCH", "EventStore"]

S = TypeVar("S")

# Events one append takes at most: one command's batch goes whole, and a blitz, the
# longest command, fights at most the rule option ``blitz_battles`` (≤ 5,000) battles,
# each an event.
MAX_BATCH = 10_000


MAX_SEED = 1024
MAX_KIND = 256
MAX_FINGERPRINT = 64


class EventStore:
    """Append and read game event streams; see the module docstring for the guarantees."""

    def __init__(
        self,
        client: Client,
        keys: KeySpace | None = None,
        *,
        idempotency_ttl_seconds: float = 24 * 3600,
        auto_key_ttl_seconds: float = 60,
        snapshot_every: int = 100,
        outbox_maxlen: int | None = 100_000,
        max_batch: int = MAX_BATCH,
        max_payload_bytes: int = 64 * 1024,
    ) -> None:
        if getattr(client.get_encoder(), "decode_responses", False):
            raise InvalidArgument("the event store needs a client with decode_responses=False")
        if snapshot_every < 1:
            raise InvalidArgument(f"snapshot_every must be positive: {snapshot_every!r}")
        self._client = client
        self.keys = keys or KeySpace()
        self.snapshot_every = snapshot_every
        self._ttl_ms = _positive_ms(idempotency_ttl_seconds, "idempotency_ttl_seconds")
        self._auto_ttl_ms = int(auto_key_ttl_seconds * 1000)
        self._outbox_maxlen = outbox_maxlen or 0
        self._max_batch = max_batch
        self._max_payload = max_payload_bytes
        self._private_records = isinstance(client, RedisCluster)
        ttls = f"'{self._outbox_maxlen}', '{self._ttl_ms}', '{max(self._auto_ttl_ms, 0)}'"
        self._append = HeldConnectionScript(
            client, "append.lua", f"local MAXLEN, KEYED_TTL, PRIVATE_TTL = {ttls}\n"
        )
        self._snapshot = register(client, "snapshot.lua")
        self._delete = register(client, "delete.lua")

    # -- appending -----------------------------------------------------------

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        prev: bytes,
        idempotency_key: str | None = None,
        fingerprint: bytes | None = None,
        seed: bytes | None = None,
        kind: str = "",
        hashed: Sequence[bytes] | None = None,
    ) -> AppendResult:
        """Append ``events`` after version ``expected_version``, whose hash is ``prev``.

        ``hashed``: the bytes each event's hash covers, where they are not its
        payload (``new_events``); they are checked, not stored.

        ``fingerprint`` identifies the request behind an idempotency key; it
        defaults to a digest of the batch. Callers that re-run ``decide`` on
        a retry (new timestamps, so new payloads) must pass a digest of the
        command instead, or the retry is refused as IdempotencyMismatch.
        ``seed`` is stored (apart from the stream) by the first append only.
        ``kind`` travels in the outbox notification (say, whose turn is next).
        """
        keys = self.keys.game(game_id)
        self._check_batch(expected_version, events, prev, seed, kind, hashed)
        if fingerprint is not None and (
            type(fingerprint) is not bytes or not 0 < len(fingerprint) <= MAX_FINGERPRINT
        ):
            raise MalformedAppend(
                f"fingerprint must be 1..{MAX_FINGERPRINT} bytes: {fingerprint!r:.80}"
            )
        key, record_key, mode, resend = self._idempotency(keys, idempotency_key)
        if record_key is not None:
            mode += fingerprint or batch_fingerprint(expected_version, events)
        tail: list[Any] = [f"{game_id} {kind}"]
        for version, (payload, digest) in enumerate(events, expected_version + 1):
            tail += (version, digest + payload)
        script_keys = [keys.events, keys.meta, keys.outbox]
        if expected_version == 0:  # only the first append writes the index and the seed
            script_keys.append(keys.games)
            if seed is not None:  # the seed's key only with a seed (append.lua)
                script_keys.append(keys.seed)
                tail.append(seed)
        if record_key is not None:
            script_keys.append(record_key)
        try:
            reply = self._append(
                script_keys,
                [prev + mode, *tail],
                None if resend is None else [prev + resend, *tail],
            )
        except REDIS_OUTAGES as error:
            reported = key or (None if resend is None else private_key())
            raise AppendOutcomeUnknown(game_id, reported, error) from error
        except OutOfMemoryError as error:  # refused before the script's first write
            raise StoreFull(f"game {game_id!r}: Redis refused the append: {error}") from error
        if reply == 0:  # appended: the versions and the head are the batch's own
            last = expected_version + len(events)
            return AppendResult(expected_version + 1, last, events[-1][1], False)
        return _append_result(reply, game_id, expected_version, prev, key)

    def _check_batch(
        self,
        expected_version: int,
        events: Sequence[NewEvent],
        prev: bytes,
        seed: bytes | None,
        kind: str,
        hashed: Sequence[bytes] | None = None,
    ) -> None:
        """Refuse what the script would refuse, with a precise message and no round trip."""
        if type(expected_version) is not int or expected_version < 0:
            raise MalformedAppend(f"expected_version must be an int >= 0: {expected_version!r}")
        if not 0 < len(events) <= self._max_batch:
            raise MalformedAppend(f"a batch holds 1..{self._max_batch} events, not {len(events)}")
        if type(prev) is not bytes or len(prev) != HASH_SIZE:
            raise MalformedAppend(f"prev must be a {HASH_SIZE}-byte hash: {prev!r}")
        for index, event in enumerate(events):
            payload = event[0]
            if type(payload) is not bytes or not 0 < len(payload) <= self._max_payload:
                raise MalformedAppend(
                    f"event {index}: payload must be 1..{self._max_payload} bytes: {payload!r:.80}"
                )
        if hashed is not None and len(hashed) != len(events):
            raise MalformedAppend(f"{len(hashed)} hashed byte strings for {len(events)} events")
        covered = events if hashed is None else zip(hashed, (e[1] for e in events), strict=True)
        broken = verify_chain(prev, covered)
        if broken is not None:
            bad = events[broken][1]
            raise MalformedAppend(f"event {broken}: hash {bad!r} is not SHA-256(prev || payload)")
        if seed is not None:
            if type(seed) is not bytes or not 0 < len(seed) <= MAX_SEED:
                # The message never shows the seed: it stays secret until the game ends.
                raise MalformedAppend(f"seed must be bytes, 1..{MAX_SEED} long")
            if expected_version != 0:
                raise MalformedAppend("a seed is stored by the first append only")
        if type(kind) is not str or len(kind.encode()) > MAX_KIND:
            raise MalformedAppend(f"kind must be a str of at most {MAX_KIND} bytes: {kind!r:.60}")

    @translated
    def original_append(
        self, game_id: str, idempotency_key: str, fingerprint: bytes
    ) -> AppendResult | None:
        """What the append made with ``idempotency_key`` wrote, read without writing.

        For a caller that can no longer re-decide a retried request (the game
        moved on): it still gets the original result, as the append script
        would have returned it. None if the key made no append in this game
        (a record left by an earlier game of the same id carries another
        epoch); IdempotencyMismatch if it was made for another request.
        """
        keys = self.keys.game(game_id)
        record_key = keys.idempotency(idempotency_key)
        pipe = self._client.pipeline(transaction=False)
        pipe.get(record_key)
        pipe.hget(keys.meta, "e")
        record, current_epoch = pipe.execute(raise_on_error=False)
        if isinstance(current_epoch, Exception):
            raise current_epoch
        stored = read_record(self._client, record_key, record)
        if stored is None:
            return None
        fingerprint_stored, epoch, first, last, head = stored
        if epoch != current_epoch:
            return None
        if fingerprint_stored != fingerprint:
            raise IdempotencyMismatch(game_id, idempotency_key)
        return AppendResult(int(first), int(last), head, True)

    def _idempotency(
        self, keys: GameKeys, key: str | None
    ) -> tuple[str | None, str | None, bytes, bytes | None]:
        """The key to report, its record's Redis key (None: no record), the script's
        record mode (append.lua), and the mode of a re-send (None: as the first send).

        Without a caller's key, a standalone Redis gets no record at all: the held
        connection re-sends a dropped append in mode ``r``, which a version conflict
        turns into a replay if the batch's own events are stored. A Redis Cluster
        client re-sends by itself, unseen, so there the store's private key
        keeps a record. A caller's key of the private form is a caller retrying an
        append whose outcome it was told is unknown: a re-send.
        """
        if key is not None:
            if PRIVATE_KEY.fullmatch(key) and not self._private_records:
                return key, None, b"r", None
            return key, keys.idempotency(key), b"k", None
        if self._auto_ttl_ms <= 0:
            return None, None, b"n", None
        if self._private_records:
            key = private_key()
            return key, keys.idempotency(key), b"p", None
        return None, None, b"n", b"r"

    # -- reading -------------------------------------------------------------

    @translated
    def read(
        self, game_id: str, start: int = 1, stop: int | None = None, count: int | None = None
    ) -> list[StoredEvent]:
        """Events ``start..stop`` (inclusive), at most ``count`` of them; [] past the end."""
        return self._read(self.keys.game(game_id), game_id, start, stop, count)[1]

    @property
    def client(self) -> Client:
        """The Redis client (for records kept beside a game, e.g. its exported record)."""
        return self._client

    def iter_events(self, game_id: str, start: int = 1, page: int = 1000) -> Iterator[StoredEvent]:
        """Every event from ``start`` on, fetched ``page`` at a time."""
        while True:
            events = self.read(game_id, start, count=page)
            yield from events
            if len(events) < page:
                return
            start = events[-1].version + 1

    def _read(
        self, keys: GameKeys, game_id: str, start: int, stop: int | None, count: int | None
    ) -> tuple[bytes, list[StoredEvent]]:
        """(hash before ``start``, events): the entry before ``start`` is read for its hash."""
        _check_range(start, stop, count)
        low = max(start - 1, 1)
        fetch = None if count is None else count + (start > 1)
        high = "+" if stop is None else f"{stop}-0"
        entries = self._client.xrange(keys.events, f"{low}-0", high, count=fetch)
        if not entries:
            self._require(keys, game_id)
            return GENESIS, []
        return _decode(entries, start)

    @translated
    def ends(self, game_ids: Sequence[str]) -> dict[str, tuple[StoredEvent, StoredEvent]]:
        """Each game's first and last events, in one round trip for them all (a game
        without events is left out): what a summary of many games at once reads
        (``workers.archiving``) instead of every event between."""
        pipe = self._client.pipeline(transaction=False)
        for game_id in game_ids:
            events = self.keys.game(game_id).events
            pipe.xrange(events, "-", "+", count=1)
            pipe.xrevrange(events, "+", "-", count=2)  # the last and, for its prev, the one before
        replies = pipe.execute()
        found: dict[str, tuple[StoredEvent, StoredEvent]] = {}
        for n, game_id in enumerate(game_ids):
            first, newest = replies[2 * n], replies[2 * n + 1]
            if first and newest:
                last = _decode(newest[::-1], int(newest[0][0][:-2]))[1][0]
                found[game_id] = (_decode(first, 1)[1][0], last)
        return found

    @translated
    def version(self, game_id: str) -> int:
        """Number of events stored for ``game_id``."""
        return self.head(game_id).version

    @translated
    def head(self, game_id: str) -> Head:
        """Version and head hash, read together so they always match."""
        keys = self.keys.game(game_id)
        version, head = self._client.hmget(keys.meta, ["v", "h"])
        if version is None:
            raise GameNotFound(game_id)
        return Head(int(version), cast(bytes, head))

    @translated
    def exists(self, game_id: str) -> bool:
        """Whether any event of ``game_id`` is stored."""
        return bool(self._client.exists(self.keys.game(game_id).meta))

    @translated
    def wait(
        self, game_id: str, after_version: int, timeout_seconds: float, count: int | None = None
    ) -> list[StoredEvent]:
        """Events after ``after_version``, blocking up to ``timeout_seconds`` until one exists.

        Returns at once when events are already there; [] on timeout. A game
        that does not exist yet is waited for, not refused: long-polling a
        game that is being created is legitimate.
        """
        keys = self.keys.game(game_id)
        if type(after_version) is not int or after_version < 0:
            raise InvalidArgument(f"after_version must be an int >= 0: {after_version!r}")
        block_ms = max(1, int(timeout_seconds * 1000))
        ready = self._client.xread({keys.events: f"{after_version}-0"}, count=1, block=block_ms)
        if not ready:
            return []
        return self._read(keys, game_id, after_version + 1, None, count)[1]

    @translated
    def seed(self, game_id: str) -> bytes | None:
        """The secret server seed: for the server only, never part of a stream read."""
        keys = self.keys.game(game_id)
        seed = cast(bytes | None, self._client.get(keys.seed))
        if seed is None:
            self._require(keys, game_id)
        return seed

    @translated
    def list_games(self) -> list[str]:
        """Every stored game id, oldest first (by creation time, then id)."""
        pipe = self._client.pipeline(transaction=False)
        for index in self.keys.game_indexes():
            pipe.zrange(index, 0, -1, withscores=True)
        found = [(score, gid) for rows in pipe.execute() for gid, score in rows]
        return [gid.decode() for _, gid in sorted(found)]

    @translated
    def delete_game(self, game_id: str) -> bool:
        """Operator action: remove a game and everything about it. True if it existed."""
        keys = self.keys.game(game_id)
        script_keys = [keys.events, keys.meta, keys.seed, keys.snapshot, keys.games]
        return bool(self._delete(keys=script_keys, args=[game_id]))

    @translated
    def notifications(
        self, partition: int, after: str = "0-0", count: int | None = None
    ) -> list[Notification]:
        """Outbox entries of ``partition`` after entry id ``after`` (for tools and tests;
        the relay reads the same stream through a consumer group)."""
        entries = self._client.xrange(self.keys.outbox(partition), f"({after}", "+", count=count)
        return [
            Notification.from_entry(entry_id, fields) for entry_id, fields in cast(Any, entries)
        ]

    def _require(self, keys: GameKeys, game_id: str) -> None:
        if not self._client.exists(keys.meta):
            raise GameNotFound(game_id)

    # -- snapshots -----------------------------------------------------------

    def should_snapshot(self, old_version: int, new_version: int) -> bool:
        """Whether an append from ``old_version`` to ``new_version`` crossed a multiple
        of ``snapshot_every`` (batches can jump over the exact multiple)."""
        return new_version // self.snapshot_every > old_version // self.snapshot_every

    @translated
    def save_snapshot(self, game_id: str, version: int, data: bytes, stamp: str) -> bool:
        """Store ``data`` as the state after ``version`` unless a newer one with the
        same stamp is stored. True if written. Snapshots are a cache: losing one
        only costs a longer load."""
        keys = self.keys.game(game_id)
        if type(version) is not int or version < 1:
            raise InvalidArgument(f"snapshot version must be an int >= 1: {version!r}")
        if not stamp:
            raise InvalidArgument("a snapshot needs a stamp (codec/rules version)")
        outcome = self._snapshot(keys=[keys.snapshot, keys.meta], args=[version, stamp, data])
        if outcome == -1:
            raise GameNotFound(game_id)
        if outcome == -2:
            raise InvalidArgument(f"game {game_id!r} has no version {version} to snapshot yet")
        return bool(outcome == 1)

    @translated
    def load_snapshot(self, game_id: str, stamp: str) -> Snapshot | None:
        """The stored snapshot, or None if there is none or it has another stamp."""
        keys = self.keys.game(game_id)
        version, stored_stamp, data = self._client.hmget(keys.snapshot, ["v", "s", "d"])
        if version is None or stored_stamp != stamp.encode():
            return None
        return Snapshot(int(version), cast(bytes, data))

    @translated
    def events_after_snapshot(self, game_id: str, stamp: str, page: int = 1000) -> Tail:
        """The newest valid snapshot and every event after it (all events if none)."""
        keys = self.keys.game(game_id)
        snapshot = self.load_snapshot(game_id, stamp)
        start = snapshot.version + 1 if snapshot else 1
        head, events = self._read(keys, game_id, start, None, page)
        if len(events) == page:
            events += self.iter_events(game_id, events[-1].version + 1, page)
        return Tail(snapshot, events, events[-1].hash if events else head)

    def load(
        self,
        game_id: str,
        *,
        stamp: str,
        initial: S,
        fold: Callable[[S, StoredEvent], S],
        decode_snapshot: Callable[[bytes], S],
    ) -> tuple[Head, S]:
        """State of ``game_id`` = newest valid snapshot + ``fold`` over the events after it.

        Returns the head too, so the caller can decide and append at once.
        """
        snapshot, events, head_hash = self.events_after_snapshot(game_id, stamp)
        state = decode_snapshot(snapshot.data) if snapshot else initial
        version = snapshot.version if snapshot else 0
        for event in events:
            state = fold(state, event)
            version = event.version
        return Head(version, head_hash), state


def _append_result(
    reply: list[Any], game_id: str, expected: int, prev: bytes, key: str | None
) -> AppendResult:
    status = reply[0]
    if status == b"ok":
        return AppendResult(int(reply[1]), int(reply[2]), reply[3], reply[4] == 1)
    if status == b"conflict":
        raise VersionConflict(game_id, expected, int(reply[1]))
    if status == b"chain":
        raise ChainMismatch(game_id, prev, reply[1])
    if status == b"idempotency":
        raise IdempotencyMismatch(game_id, key or "")
    raise MalformedAppend(f"game {game_id!r}: {reply[1].decode()}")


def _decode(entries: list[Any], start: int) -> tuple[bytes, list[StoredEvent]]:
    """Build StoredEvents, taking each prev from the entry before it."""
    prev = GENESIS
    events: list[StoredEvent] = []
    for entry_id, fields in entries:
        version = int(entry_id[:-2])  # ids are always b"<version>-0"
        packed = fields.get(b"e")
        if packed is None:  # an entry written before 2026-12-03: fields p and h
            digest, payload = fields[b"h"], fields[b"p"]
        else:
            digest, payload = packed[:HASH_SIZE], packed[HASH_SIZE:]
        if version >= start:
            events.append(StoredEvent(version, payload, digest, prev))
        prev = digest
    before = events[0].prev if events else prev
    return before, events


def _check_range(start: int, stop: int | None, count: int | None) -> None:
    if type(start) is not int or start < 1:
        raise InvalidArgument(f"start must be an int >= 1: {start!r}")
    if stop is not None and (type(stop) is not int or stop < 0):
        raise InvalidArgument(f"stop must be an int >= 0: {stop!r}")
    if count is not None and (type(count) is not int or count < 1):
        raise InvalidArgument(f"count must be an int >= 1: {count!r}")


def _positive_ms(seconds: float, name: str) -> int:
    milliseconds = int(seconds * 1000)
    if milliseconds < 1:
        raise InvalidArgument(f"{name} must be at least 1 ms: {seconds!r}")
    return milliseconds
