"""The event store's contract, against a real Redis.

The expected-version x idempotency matrix, batch atomicity, malformed input,
paging, blocking reads, seeds, the outbox and game lifecycle.
"""

from __future__ import annotations

import threading
import time

import pytest
import redis as redis_lib

from riskcore.audit.chain import GENESIS, chain, event_hash, verify_chain
from riskcore.model.options import MAX_BLITZ_BATTLES
from service.store.errors import (
    ChainMismatch,
    GameNotFound,
    IdempotencyMismatch,
    InvalidArgument,
    MalformedAppend,
    StoreError,
    VersionConflict,
)
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import AppendResult, NewEvent, StoredEvent, new_events

GAME = "game-1"


@pytest.fixture
def store(redis: redis_lib.Redis, key_prefix: str) -> EventStore:
    return EventStore(redis, KeySpace(key_prefix))


def body(tag: str, size: int = 1) -> list[bytes]:
    return [b'{"n":%d,"tag":"%s"}' % (n, tag.encode()) for n in range(size)]


def grow(store: EventStore, game: str, count: int, size: int = 1) -> None:
    """Append ``count`` batches of ``size`` events the way a well-behaved caller does."""
    for n in range(count):
        head = store.head(game) if store.exists(game) else None
        version, prev = (head.version, head.hash) if head else (0, GENESIS)
        store.append(game, version, new_events(prev, body(f"grow{n}", size)), prev=prev)


def outbox_for(store: EventStore, game: str) -> list[tuple[int, int]]:
    notes = store.notifications(store.keys.partition(game))
    return [(n.first_version, n.last_version) for n in notes if n.game_id == game]


def check_record(store: EventStore, game: str) -> list[StoredEvent]:
    """The stored record is gap-free from 1 and its chain verifies."""
    events = store.read(game)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert verify_chain(GENESIS, [(e.payload, e.hash) for e in events]) is None
    assert all(e.prev == (events[i - 1].hash if i else GENESIS) for i, e in enumerate(events))
    return events


# -- the expected-version x idempotency matrix ---------------------------------

STARTS = {"new": 0, "existing": 2}
OFFSETS = {"matching": 0, "stale": -1, "ahead": +1}
# (start, expected, attempt) -> outcome of the last call. "retry" re-sends the
# first call unchanged; "other_body" re-sends its key with different events.
MATRIX = [
    ("new", "matching", "first", "ok"),
    ("new", "matching", "retry", "replayed"),
    ("new", "matching", "other_body", "idempotency"),
    ("new", "ahead", "first", "conflict"),
    ("new", "ahead", "retry", "conflict"),
    ("new", "ahead", "other_body", "conflict"),
    ("existing", "matching", "first", "ok"),
    ("existing", "matching", "retry", "replayed"),
    ("existing", "matching", "other_body", "idempotency"),
    ("existing", "stale", "first", "conflict"),
    ("existing", "stale", "retry", "conflict"),
    ("existing", "stale", "other_body", "conflict"),
    ("existing", "ahead", "first", "conflict"),
    ("existing", "ahead", "retry", "conflict"),
    ("existing", "ahead", "other_body", "conflict"),
]


@pytest.mark.parametrize(("start", "expected", "attempt", "outcome"), MATRIX)
def test_expected_version_by_idempotency_matrix(
    store: EventStore, start: str, expected: str, attempt: str, outcome: str
) -> None:
    grow(store, GAME, STARTS[start])
    version = STARTS[start]
    prev = store.head(GAME).hash if version else GENESIS
    target = version + OFFSETS[expected]
    first = new_events(prev, body("first", 2))
    calls = [first] if attempt == "first" else [first, first]
    if attempt == "other_body":
        calls[1] = new_events(prev, body("other", 2))
    results: list[object] = []
    for events in calls:
        try:
            results.append(store.append(GAME, target, events, prev=prev, idempotency_key="k"))
        except StoreError as error:
            results.append(error)
    check_outcome(results, outcome, version)
    written = 2 if outcome in ("ok", "replayed", "idempotency") else 0
    events = check_record(store, GAME) if version + written else []
    assert len(events) == version + written
    assert [e.payload for e in events[version:]] == [e.payload for e in first][:written]
    assert len(outbox_for(store, GAME)) == STARTS[start] + (written > 0)


def check_outcome(results: list[object], outcome: str, version: int) -> None:
    last = results[-1]
    if outcome == "idempotency":
        assert isinstance(last, IdempotencyMismatch) and last.key == "k", last
    elif outcome == "conflict":
        assert isinstance(last, VersionConflict) and last.current_version == version, last
    else:
        assert isinstance(last, AppendResult), last
        assert (last.first_version, last.last_version) == (version + 1, version + 2)
        assert last.replayed == (outcome == "replayed")
        assert last._replace(replayed=False) == results[0]


def test_a_retry_replays_even_after_the_game_moved_on(store: EventStore) -> None:
    events = new_events(GENESIS, body("mine"))
    original = store.append(GAME, 0, events, prev=GENESIS, idempotency_key="once")
    grow(store, GAME, 3)
    again = store.append(GAME, 0, events, prev=GENESIS, idempotency_key="once")
    assert again == original._replace(replayed=True)
    assert store.version(GAME) == 4


def test_idempotency_keys_are_scoped_to_their_game(store: EventStore) -> None:
    store.append("a", 0, new_events(GENESIS, body("a")), prev=GENESIS, idempotency_key="k")
    result = store.append("b", 0, new_events(GENESIS, body("b")), prev=GENESIS, idempotency_key="k")
    assert not result.replayed


def test_a_caller_fingerprint_lets_a_re_decided_retry_replay(store: EventStore) -> None:
    """Re-running decide on retry gives new timestamps; the command digest still matches."""
    first = new_events(GENESIS, [b'{"at":1}'])
    retried = new_events(GENESIS, [b'{"at":2}'])
    kwargs = {"prev": GENESIS, "idempotency_key": "cmd", "fingerprint": b"digest-of-command"}
    original = store.append(GAME, 0, first, **kwargs)
    assert store.append(GAME, 0, retried, **kwargs).replayed
    assert [e.payload for e in store.read(GAME)] == [b'{"at":1}']
    assert original.last_version == 1


def test_the_original_append_of_a_key_is_read_without_writing(store: EventStore) -> None:
    """What a caller that can no longer re-decide a retry answers with (GameService)."""
    kwargs = {"prev": GENESIS, "idempotency_key": "cmd", "fingerprint": b"digest-of-command"}
    original = store.append(GAME, 0, new_events(GENESIS, body("mine", 2)), **kwargs)
    grow(store, GAME, 2)
    found = store.original_append(GAME, "cmd", b"digest-of-command")
    assert found == original._replace(replayed=True)
    assert store.original_append(GAME, "other", b"digest-of-command") is None
    with pytest.raises(IdempotencyMismatch):
        store.original_append(GAME, "cmd", b"another-command")
    assert store.version(GAME) == 4


def test_a_recreated_game_has_no_original_append_of_the_deleted_games_keys(
    store: EventStore,
) -> None:
    kwargs = {"prev": GENESIS, "idempotency_key": "k", "fingerprint": b"digest"}
    store.append(GAME, 0, new_events(GENESIS, body("old")), **kwargs)
    store.delete_game(GAME)
    store.append(GAME, 0, new_events(GENESIS, body("new")), prev=GENESIS)
    assert store.original_append(GAME, "k", b"digest") is None


def _as_hash_record(redis: redis_lib.Redis, key: str) -> None:
    """Rewrite a record the way the append script wrote them before they were strings."""
    stored = redis.get(key)
    assert stored is not None
    epoch, first, last, fingerprint = stored[32:].split(b" ", 3)
    ttl = redis.pttl(key)
    redis.delete(key)
    mapping = {"r": fingerprint, "e": epoch, "f": first, "l": last, "h": stored[:32]}
    redis.hset(key, mapping=mapping)
    redis.pexpire(key, ttl)


def test_entries_of_the_older_two_field_format_stay_readable_and_appendable(
    store: EventStore, redis: redis_lib.Redis
) -> None:
    """Entries written before 2026-12-03 hold payload and hash as fields p and h; a game
    stored so reads the same, takes appends on top (whose entries hold one field, e),
    and a re-send whose last event is such an entry replays."""
    older = new_events(GENESIS, body("older", 3))
    keys = store.keys.game(GAME)
    for version, event in enumerate(older, 1):
        redis.xadd(keys.events, {"p": event.payload, "h": event.hash}, id=f"{version}-0")
    redis.hset(keys.meta, mapping={"v": 3, "h": older[-1].hash, "e": "1-0"})
    newer = new_events(older[-1].hash, body("newer", 2))
    store.append(GAME, 3, newer, prev=older[-1].hash)
    events = check_record(store, GAME)
    assert [e.payload for e in events] == [e.payload for e in [*older, *newer]]
    assert store.read(GAME, 3, 4)[0].prev == older[1].hash
    assert [set(fields) for _, fields in redis.xrange(keys.events)] == [{b"p", b"h"}] * 3 + [
        {b"e"}
    ] * 2
    resend = [older[1].hash + b"r", GAME.encode() + b" ", b"3", older[2].hash + older[2].payload]
    assert store._append([keys.events, keys.meta, keys.outbox], resend) == [
        b"ok",
        3,
        3,
        older[2].hash,
        1,
    ]


def test_an_idempotency_record_of_the_older_hash_format_still_replays(
    store: EventStore, redis: redis_lib.Redis
) -> None:
    """Records live 24 h: those written as hashes before the string format keep working."""
    kwargs = {"prev": GENESIS, "idempotency_key": "cmd", "fingerprint": b"digest of\x00 a command"}
    original = store.append(GAME, 0, new_events(GENESIS, body("mine", 2)), **kwargs)
    _as_hash_record(redis, store.keys.game(GAME).idempotency("cmd"))
    assert redis.type(store.keys.game(GAME).idempotency("cmd")) == b"hash"
    grow(store, GAME, 2)
    replayed = original._replace(replayed=True)
    assert store.append(GAME, 0, new_events(GENESIS, body("again", 2)), **kwargs) == replayed
    assert store.original_append(GAME, "cmd", b"digest of\x00 a command") == replayed
    with pytest.raises(IdempotencyMismatch):
        store.append(GAME, 0, new_events(GENESIS, body("x")), **kwargs | {"fingerprint": b"o"})
    with pytest.raises(IdempotencyMismatch):
        store.original_append(GAME, "cmd", b"another command")
    assert store.version(GAME) == 4


def test_an_idempotency_record_is_one_string(store: EventStore, redis: redis_lib.Redis) -> None:
    store.append(GAME, 0, new_events(GENESIS, body("x")), prev=GENESIS, idempotency_key="k")
    assert redis.type(store.keys.game(GAME).idempotency("k")) == b"string"


def test_idempotency_records_expire(redis: redis_lib.Redis, key_prefix: str) -> None:
    store = EventStore(redis, KeySpace(key_prefix), idempotency_ttl_seconds=3600)
    store.append(GAME, 0, new_events(GENESIS, body("x")), prev=GENESIS, idempotency_key="k")
    ttl = redis.pttl(store.keys.game(GAME).idempotency("k"))
    assert 3_500_000 < ttl <= 3_600_000


# -- rejections ---------------------------------------------------------------


def test_conflict_carries_the_current_version(store: EventStore) -> None:
    grow(store, GAME, 3)
    with pytest.raises(VersionConflict) as info:
        store.append(GAME, 1, new_events(GENESIS, body("late")), prev=GENESIS)
    assert (info.value.current_version, info.value.expected) == (3, 1)
    assert info.value.code == "version_conflict"


def test_a_batch_that_does_not_follow_the_head_is_refused(store: EventStore) -> None:
    grow(store, GAME, 2)
    head = store.head(GAME)
    wrong = event_hash(GENESIS, b"forged")
    with pytest.raises(ChainMismatch) as info:
        store.append(GAME, 2, new_events(wrong, body("x")), prev=wrong)
    assert info.value.head_hash == head.hash
    with pytest.raises(ChainMismatch):  # a new game must start from GENESIS
        store.append("fresh", 0, new_events(wrong, body("x")), prev=wrong)
    assert store.version(GAME) == 2
    assert not store.exists("fresh")


# -- batch atomicity and malformed input --------------------------------------


def test_a_batch_is_written_whole_with_one_notification(store: EventStore) -> None:
    result = store.append(GAME, 0, new_events(GENESIS, body("b", 5)), prev=GENESIS, kind="p2")
    assert (result.first_version, result.last_version) == (1, 5)
    assert len(check_record(store, GAME)) == 5
    notes = store.notifications(store.keys.partition(GAME))
    assert [(n.game_id, n.first_version, n.last_version, n.kind) for n in notes] == [
        (GAME, 1, 5, "p2")
    ]


def test_the_longest_blitz_a_game_may_fight_fits_one_append(store: EventStore) -> None:
    """A command is appended in one piece; a blitz is the longest one, bounded by the
    rule option ``blitz_battles`` (docs/rules.md, "Blitz"): its most battles, one event
    each, with a conquest's and an elimination's events after them, go in at once."""
    size = MAX_BLITZ_BATTLES + 16
    result = store.append(GAME, 0, new_events(GENESIS, body("blitz", size)), prev=GENESIS)
    assert result.last_version == size == store.version(GAME)


def _good() -> list[NewEvent]:
    return new_events(GENESIS, body("ok", 3))


MALFORMED = {
    "empty batch": ({"events": []}, "1..10000 events"),
    "hash of another payload": (
        {"events": [*_good()[:2], NewEvent(b"other", _good()[2].hash)]},
        "event 2",
    ),
    "hex prev": ({"prev": GENESIS.hex().encode()}, "32-byte hash"),
    "str payload": ({"events": [NewEvent("{}", GENESIS)]}, "payload"),  # type: ignore[arg-type]
    "empty payload": ({"events": [NewEvent(b"", event_hash(GENESIS, b""))]}, "payload"),
    "negative version": ({"expected_version": -1}, "expected_version"),
    "bool version": ({"expected_version": True}, "expected_version"),
    "seed after the first append": ({"expected_version": 3, "seed": b"s"}, "first append"),
    "oversized kind": ({"kind": "k" * 300}, "kind"),
    "empty fingerprint": ({"fingerprint": b""}, "fingerprint"),
    "too large batch": ({"events": new_events(GENESIS, body("x", 10_001))}, "1..10000"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_appends_are_refused_before_anything_is_written(
    store: EventStore, redis: redis_lib.Redis, case: str
) -> None:
    overrides, message = MALFORMED[case]
    call = {"expected_version": 0, "events": _good(), "prev": GENESIS} | overrides
    with pytest.raises(MalformedAppend, match=message):
        store.append(GAME, **call)
    assert redis.dbsize() == 0


SCRIPT_MALFORMED = {
    "no events": lambda a: a[:2],
    "a version without its event": lambda a: a[:-1],
    "a seed without its key": lambda a: [*a, b"seed"],
    "a hash without a payload in the last event": lambda a: [*a[:-1], a[-1][:32]],
    "a short hash and payload in the last event": lambda a: [*a[:-1], a[-1][:20]],
    "no payload in the middle": lambda a: [*a[:5], a[5][:32], *a[6:]],
    "non-numeric version": lambda a: [*a[:2], b"1e0", *a[3:]],
    "a version with a leading zero": lambda a: [*a[:2], b"01", *a[3:]],
    "an event out of sequence": lambda a: [*a[:4], b"3", *a[5:]],
    "a non-numeric event version": lambda a: [*a[:4], b"2.0", *a[5:]],
    "short prev": lambda a: [b"x" + a[0][32:], *a[1:]],
    "no prev": lambda a: [a[0][32:], *a[1:]],
    "seed after the first append": lambda a: [
        a[0],
        a[1],
        b"2",
        a[3],
        b"3",
        a[5],
        b"4",
        a[7],
        b"seed",
    ],
    "an unknown record mode": lambda a: [GENESIS + b"xfp", *a[1:]],
    "a caller's key without a fingerprint": lambda a: [GENESIS + b"k", *a[1:]],
    "no record mode with a fingerprint": lambda a: [GENESIS + b"nfp", *a[1:]],
    "no game id before the kind": lambda a: [a[0], b" p2", *a[2:]],
    "no space between game id and kind": lambda a: [a[0], GAME.encode(), *a[2:]],
}


def _script_call(store: EventStore) -> tuple[list[str], list[bytes]]:
    """A first append of three events with a caller's key, built by hand as another
    client would (append.lua says what each argument is)."""
    keys = store.keys.game(GAME)
    args: list[bytes] = [GENESIS + b"kfp", GAME.encode() + b" "]
    for version, event in enumerate(_good(), 1):
        args += (b"%d" % version, event.hash + event.payload)
    return [keys.events, keys.meta, keys.outbox, keys.games, keys.idempotency("k")], args


@pytest.mark.parametrize("case", SCRIPT_MALFORMED, ids=list(SCRIPT_MALFORMED))
def test_the_script_itself_refuses_malformed_calls_before_writing(
    store: EventStore, redis: redis_lib.Redis, case: str
) -> None:
    """Another client could call the script directly: it must not trust the Python checks."""
    script_keys, args = _script_call(store)
    reply = store._append(script_keys, SCRIPT_MALFORMED[case](args))
    assert reply[0] == b"malformed"
    assert redis.dbsize() == 0


SCRIPT_KEYS_MALFORMED = {
    "3 keys": lambda k, _seed: k[:3],
    "no record key": lambda k, _seed: k[:4],
    "a seed key without a seed": lambda k, seed: [*k[:4], seed, k[4]],
}


@pytest.mark.parametrize("case", SCRIPT_KEYS_MALFORMED, ids=list(SCRIPT_KEYS_MALFORMED))
def test_the_script_refuses_a_first_append_without_its_index_seed_and_record_keys(
    store: EventStore, redis: redis_lib.Redis, case: str
) -> None:
    script_keys, args = _script_call(store)
    seed_key = store.keys.game(GAME).seed
    keys = SCRIPT_KEYS_MALFORMED[case](script_keys, seed_key)
    assert store._append(keys, args)[0] == b"malformed"
    assert redis.dbsize() == 0


def test_the_script_accepts_the_unmangled_call(store: EventStore) -> None:
    """The control for the tests above: the same hand-built call succeeds, and a
    second run of it is a replay of the first."""
    script_keys, args = _script_call(store)
    assert store._append(script_keys, args) == 0
    assert store._append(script_keys, args) == [b"ok", 1, 3, _good()[-1].hash, 1]


def test_a_client_decoding_responses_is_refused(redis_url: str) -> None:
    client = redis_lib.Redis.from_url(redis_url, decode_responses=True)
    with pytest.raises(InvalidArgument, match="decode_responses"):
        EventStore(client)
    client.close()


# -- reads and paging ------------------------------------------------------------


def test_paging_reads_fill_prev_across_page_boundaries(store: EventStore) -> None:
    grow(store, GAME, 5, size=5)
    everything = check_record(store, GAME)
    assert len(everything) == 25
    pages, start = [], 1
    while page := store.read(GAME, start, count=10):
        pages.append(page)
        start = page[-1].version + 1
    assert [len(p) for p in pages] == [10, 10, 5]
    assert [e for p in pages for e in p] == everything
    assert pages[1][0].prev == pages[0][-1].hash
    assert list(store.iter_events(GAME, page=7)) == everything
    assert list(store.iter_events(GAME, start=24, page=1)) == everything[23:]


@pytest.mark.parametrize(
    ("start", "stop", "count", "versions"),
    [(1, 1, None, [1]), (3, 6, None, [3, 4, 5, 6]), (3, 6, 2, [3, 4]), (10, None, None, [10]),
     (11, None, None, []), (50, None, 5, []), (6, 3, None, [])],
)  # fmt: skip
def test_read_ranges(
    store: EventStore, start: int, stop: int | None, count: int | None, versions: list[int]
) -> None:
    grow(store, GAME, 10)
    everything = store.read(GAME)
    events = store.read(GAME, start, stop, count)
    assert [e.version for e in events] == versions
    assert events == everything[start - 1 : start - 1 + len(versions)]


@pytest.mark.parametrize(("start", "count"), [(0, None), (1, 0), ("1", None)])
def test_bad_read_ranges_are_refused(store: EventStore, start: int, count: int | None) -> None:
    grow(store, GAME, 1)
    with pytest.raises(InvalidArgument):
        store.read(GAME, start, count=count)


def test_missing_games_are_reported(store: EventStore) -> None:
    for call in (store.read, store.version, store.head, store.seed):
        with pytest.raises(GameNotFound, match="nope"):
            call("nope")
    assert not store.exists("nope")


def test_head_tracks_the_last_event(store: EventStore) -> None:
    payloads = body("h", 4)
    store.append(GAME, 0, new_events(GENESIS, payloads), prev=GENESIS)
    assert store.head(GAME) == (4, chain(GENESIS, payloads)[-1])
    assert store.version(GAME) == 4


# -- blocking reads ----------------------------------------------------------------


def test_wait_returns_at_once_when_events_exist(store: EventStore) -> None:
    grow(store, GAME, 3)
    began = time.monotonic()
    events = store.wait(GAME, 1, timeout_seconds=30)
    assert time.monotonic() - began < 5
    assert [e.version for e in events] == [2, 3]
    assert events[0].prev == store.read(GAME, 1, 1)[0].hash


def test_wait_wakes_when_another_client_appends(store: EventStore) -> None:
    grow(store, GAME, 2)
    head = store.head(GAME)
    later = new_events(head.hash, body("later", 2))
    timer = threading.Timer(0.2, store.append, (GAME, 2, later), {"prev": head.hash})
    timer.start()
    began = time.monotonic()
    events = store.wait(GAME, 2, timeout_seconds=30)
    timer.join()
    assert time.monotonic() - began < 10
    assert [(e.version, e.payload) for e in events] == [(3, later[0][0]), (4, later[1][0])]
    assert events[0].prev == head.hash


def test_wait_times_out_with_nothing(store: EventStore) -> None:
    grow(store, GAME, 2)
    began = time.monotonic()
    assert store.wait(GAME, 2, timeout_seconds=0.2) == []
    assert time.monotonic() - began >= 0.15


def test_wait_can_follow_a_game_being_created(store: EventStore) -> None:
    timer = threading.Timer(0.2, grow, (store, "newborn", 1))
    timer.start()
    events = store.wait("newborn", 0, timeout_seconds=30)
    timer.join()
    assert [e.version for e in events] == [1]


# -- seeds, outbox, lifecycle --------------------------------------------------------


def test_the_seed_is_stored_apart_and_never_read_with_events(
    store: EventStore, redis: redis_lib.Redis
) -> None:
    secret = b"server-seed-0123456789abcdef"
    store.append(GAME, 0, new_events(GENESIS, body("s", 2)), prev=GENESIS, seed=secret)
    assert store.seed(GAME) == secret
    raw = redis.xrange(store.keys.game(GAME).events)
    assert all(set(fields) == {b"e"} for _, fields in raw)
    assert not any(secret in value for _, fields in raw for value in fields.values())
    assert all(secret not in e.payload for e in store.read(GAME))
    grow(store, "no-seed", 1)
    assert store.seed("no-seed") is None


def test_every_append_notifies_its_partition_outbox(store: EventStore) -> None:
    grow(store, GAME, 3, size=2)
    assert outbox_for(store, GAME) == [(1, 2), (3, 4), (5, 6)]
    partition = store.keys.partition(GAME)
    notes = store.notifications(partition)
    assert store.notifications(partition, after=notes[0].id) == notes[1:]


@pytest.mark.parametrize("maxlen", [None, 10])
@pytest.mark.parametrize("kind", ["", "p2", "with spaces"])
def test_every_notification_shape_is_written(
    redis: redis_lib.Redis, key_prefix: str, maxlen: int | None, kind: str
) -> None:
    """The script writes the notification two ways (capped or not), as one field."""
    store = EventStore(redis, KeySpace(key_prefix, partitions=1), outbox_maxlen=maxlen)
    head = store.append(GAME, 0, new_events(GENESIS, body("a", 2)), prev=GENESIS, kind=kind)
    store.append(GAME, 2, new_events(head.head_hash, body("b")), prev=head.head_hash, kind=kind)
    entries = redis.xrange(store.keys.outbox(0))
    assert [fields for _, fields in entries] == [
        {b"n": f"1 2 {GAME} {kind}".encode()},
        {b"n": f"3 3 {GAME} {kind}".encode()},
    ]
    notes = store.notifications(0)
    assert [(n.game_id, n.first_version, n.last_version, n.kind) for n in notes] == [
        (GAME, 1, 2, kind),
        (GAME, 3, 3, kind),
    ]


@pytest.mark.parametrize("kind", [None, "p2"])
def test_a_notification_written_before_the_one_field_form_still_reads(
    store: EventStore, redis: redis_lib.Redis, kind: str | None
) -> None:
    """Entries the previous script wrote (fields g, f, l and k) may still wait in an outbox."""
    fields = {b"g": GAME.encode(), b"f": b"4", b"l": b"6"} | ({b"k": kind.encode()} if kind else {})
    redis.xadd(store.keys.game(GAME).outbox, fields)  # type: ignore[arg-type]
    (note,) = store.notifications(store.keys.partition(GAME))
    assert (note.game_id, note.first_version, note.last_version, note.kind) == (
        GAME,
        4,
        6,
        kind or "",
    )


def test_outbox_is_capped_approximately(redis: redis_lib.Redis, key_prefix: str) -> None:
    store = EventStore(redis, KeySpace(key_prefix, partitions=1), outbox_maxlen=10)
    grow(store, GAME, 400)
    assert 10 <= redis.xlen(store.keys.outbox(0)) < 400
    assert store.version(GAME) == 400


def test_outbox_is_capped_however_the_appends_fall(redis: redis_lib.Redis, key_prefix: str) -> None:
    """Only some appends trim (append.lua): short games, whose versions never end
    in 0, and batches whose last versions never do, still keep the outbox capped."""
    store = EventStore(redis, KeySpace(key_prefix, partitions=1), outbox_maxlen=10)
    for game in range(80):
        grow(store, f"short{game}", 5)
    assert 10 <= redis.xlen(store.keys.outbox(0)) < 400
    redis.delete(store.keys.outbox(0))
    grow(store, GAME, 1, size=5)
    grow(store, GAME, 200, size=10)  # last versions 15, 25, ...
    assert 10 <= redis.xlen(store.keys.outbox(0)) < 200
    assert store.version(GAME) == 2005


def test_games_are_listed_oldest_first_and_deleted_by_the_operator(store: EventStore) -> None:
    for game in ("zeta", "alpha", "mid"):
        grow(store, game, 1)
        time.sleep(0.002)  # creation times are milliseconds
    assert store.list_games() == ["zeta", "alpha", "mid"]
    assert store.delete_game("alpha")
    assert not store.delete_game("alpha")
    assert store.list_games() == ["zeta", "mid"]
    with pytest.raises(GameNotFound):
        store.read("alpha")


def test_a_recreated_game_does_not_replay_the_deleted_games_keys(store: EventStore) -> None:
    store.append(GAME, 0, new_events(GENESIS, body("old")), prev=GENESIS, idempotency_key="k")
    store.delete_game(GAME)
    fresh = new_events(GENESIS, body("new"))
    result = store.append(GAME, 0, fresh, prev=GENESIS, idempotency_key="k")
    assert not result.replayed
    assert [e.payload for e in store.read(GAME)] == [fresh[0].payload]


# -- re-sends and private records (append.lua's record modes) ------------------


def _private_call(store: EventStore, mode: bytes, events: list[NewEvent]) -> list[bytes]:
    """The script's arguments for ``events`` after version 1, in record mode ``mode``."""
    args = [store.read(GAME, 1, 1)[0].hash + mode, GAME.encode() + b" "]
    for version, event in enumerate(events, 2):
        args += (b"%d" % version, event.hash + event.payload)
    return args


def test_a_resend_replays_its_batch_even_after_the_game_moved_on(store: EventStore) -> None:
    """A re-send (the connection dropped before the reply) finds its own events by
    their hash, which commits to prev and every payload, whoever wrote after them."""
    grow(store, GAME, 1)
    head = store.head(GAME).hash
    mine = new_events(head, body("mine", 2))
    keys = store.keys.game(GAME)
    script_keys = [keys.events, keys.meta, keys.outbox]
    assert store._append(script_keys, _private_call(store, b"n", mine)) == 0
    grow(store, GAME, 2)
    assert store._append(script_keys, _private_call(store, b"r", mine)) == [
        b"ok",
        2,
        3,
        mine[-1].hash,
        1,
    ]
    # the same call sent again as a first send is a conflict, as any stale append
    assert store._append(script_keys, _private_call(store, b"n", mine)) == [b"conflict", 5]
    other = new_events(head, body("other", 2))
    assert store._append(script_keys, _private_call(store, b"r", other)) == [b"conflict", 5]
    assert store.version(GAME) == 5


def test_a_caller_retrying_with_the_reported_private_key_gets_the_original(
    store: EventStore,
) -> None:
    """AppendOutcomeUnknown tells a caller without a key the store's private key to retry with."""
    grow(store, GAME, 1)
    head = store.head(GAME)
    mine = new_events(head.hash, body("mine"))
    original = store.append(GAME, 1, mine, prev=head.hash)
    grow(store, GAME, 1)
    key = "auto-" + "0" * 24
    again = store.append(GAME, 1, mine, prev=head.hash, idempotency_key=key)
    assert again == original._replace(replayed=True)
    with pytest.raises(VersionConflict):
        store.append(GAME, 1, new_events(head.hash, body("x")), prev=head.hash, idempotency_key=key)


def test_a_private_record_replays_only_after_a_refusal(
    store: EventStore, redis: redis_lib.Redis
) -> None:
    """Mode 'p' (a Redis Cluster client, whose re-sends the store cannot see): the record
    under the private key is written with the append, read only when it is refused."""
    grow(store, GAME, 1)
    mine = new_events(store.head(GAME).hash, body("mine"))
    keys = store.keys.game(GAME)
    record = keys.idempotency("auto-" + "1" * 24)
    script_keys = [keys.events, keys.meta, keys.outbox, record]
    args = _private_call(store, b"pfp", mine)
    assert store._append(script_keys, args) == 0
    assert 0 < redis.pttl(record) <= 60_000
    grow(store, GAME, 1)
    assert store._append(script_keys, args) == [b"ok", 2, 2, mine[-1].hash, 1]
    other = [args[0][:32] + b"pother", *args[1:]]
    assert store._append(script_keys, other) == [b"idempotency"]


def test_ends_are_each_games_first_and_last_events_in_one_read(store: EventStore) -> None:
    """What the archive's summaries read (issue 48): both ends of every stream asked
    for, each with its chain link; a game without events is left out."""
    grow(store, "long", 5, size=3)
    grow(store, "short", 1)
    ends = store.ends(["long", "missing", "short"])
    assert set(ends) == {"long", "short"}
    events = store.read("long")
    assert ends["long"] == (events[0], events[-1])
    assert ends["long"][1].prev == events[-2].hash  # the link to the one before
    only = store.read("short")[0]
    assert ends["short"] == (only, only) and only.prev == GENESIS
    assert store.ends([]) == {}
