"""Snapshots: a cache that must never change what a load returns.

The engine is not needed to test that: the fold here is a small
deterministic state machine (a counter per event tag plus a running digest
of every payload, serialised as canonical JSON), so any lost, repeated or
reordered event after a snapshot changes the loaded state.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import redis as redis_lib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riskcore.audit.chain import GENESIS
from service.store.errors import GameNotFound, InvalidArgument
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import Head, StoredEvent, new_events

GAME = "game-1"
STAMP = "codec-1/rules-1"
INITIAL: dict[str, object] = {"counts": {}, "digest": "", "last": 0}


def fold(state: dict[str, object], event: StoredEvent) -> dict[str, object]:
    counts = dict(state["counts"])  # type: ignore[call-overload]
    tag = json.loads(event.payload)["tag"]
    counts[tag] = counts.get(tag, 0) + 1
    digest = hashlib.sha256(str(state["digest"]).encode() + event.payload).hexdigest()
    return {"counts": counts, "digest": digest, "last": event.version}


def encode(state: dict[str, object]) -> bytes:
    return json.dumps(state, sort_keys=True, separators=(",", ":")).encode()


def decode(data: bytes) -> dict[str, object]:
    return dict(json.loads(data))


def load(store: EventStore, game: str, stamp: str = STAMP) -> tuple[Head, dict[str, object]]:
    return store.load(game, stamp=stamp, initial=INITIAL, fold=fold, decode_snapshot=decode)


def play(store: EventStore, game: str, batches: list[int], snapshots: bool = True) -> None:
    """Append batches the way the application service will: load, append, maybe snapshot."""
    version, prev = 0, GENESIS
    for number, size in enumerate(batches):
        payloads = [b'{"n":%d,"tag":"t%d"}' % (version + i, (version + i) % 3) for i in range(size)]
        result = store.append(game, version, new_events(prev, payloads), prev=prev)
        if snapshots and store.should_snapshot(version, result.last_version):
            head, state = load(store, game)
            assert head == (result.last_version, result.head_hash), number
            store.save_snapshot(game, head.version, encode(state), STAMP)
        version, prev = result.last_version, result.head_hash


def full_fold(store: EventStore, game: str) -> dict[str, object]:
    state = INITIAL
    for event in store.iter_events(game):
        state = fold(state, event)
    return state


@pytest.fixture
def store(redis: redis_lib.Redis, key_prefix: str) -> EventStore:
    return EventStore(redis, KeySpace(key_prefix), snapshot_every=10)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(st.integers(1, 7), min_size=1, max_size=40), every=st.integers(1, 12))
def test_loading_from_a_snapshot_equals_folding_every_event(
    redis: redis_lib.Redis, key_prefix: str, batches: list[int], every: int
) -> None:
    store = EventStore(redis, KeySpace(key_prefix), snapshot_every=every)
    game = f"g{abs(hash((tuple(batches), every)))}"
    store.delete_game(game)
    play(store, game, batches)
    head, state = load(store, game)
    assert state == full_fold(store, game)
    assert head == store.head(game)
    head_without, state_without = load(store, game, stamp="another-codec")
    assert (head_without, state_without) == (head, state)


def test_a_load_reads_only_the_events_after_the_snapshot(store: EventStore) -> None:
    play(store, GAME, [3] * 40)  # 120 events, snapshots every 10
    tail = store.events_after_snapshot(GAME, STAMP)
    assert tail.snapshot is not None and tail.snapshot.version == 120
    assert tail.events == [] and tail.head_hash == store.head(GAME).hash
    before = tail.head_hash
    store.append(GAME, 120, new_events(before, [b'{"n":0,"tag":"x"}']), prev=before)
    tail = store.events_after_snapshot(GAME, STAMP)
    assert [e.version for e in tail.events] == [121]
    assert tail.events[0].prev == before and tail.head_hash == tail.events[0].hash
    assert load(store, GAME)[1] == full_fold(store, GAME)


def test_long_tails_without_a_snapshot_are_read_in_pages(store: EventStore) -> None:
    play(store, GAME, [50] * 5)
    tail = store.events_after_snapshot(GAME, "no-such-stamp", page=32)
    assert [e.version for e in tail.events] == list(range(1, 251))
    assert tail.snapshot is None and tail.head_hash == tail.events[-1].hash


def test_an_older_snapshot_never_replaces_a_newer_one(store: EventStore) -> None:
    play(store, GAME, [1] * 30, snapshots=False)
    assert store.save_snapshot(GAME, 25, b"v25", STAMP)
    assert not store.save_snapshot(GAME, 20, b"v20", STAMP)
    assert not store.save_snapshot(GAME, 25, b"again", STAMP)
    assert store.load_snapshot(GAME, STAMP) == (25, b"v25")
    assert store.save_snapshot(GAME, 30, b"v30", STAMP)
    assert store.load_snapshot(GAME, STAMP) == (30, b"v30")


def test_a_snapshot_with_another_stamp_is_ignored_then_replaced(store: EventStore) -> None:
    play(store, GAME, [1] * 30, snapshots=False)
    assert store.save_snapshot(GAME, 30, b"old-codec", "codec-0")
    assert store.load_snapshot(GAME, STAMP) is None
    assert store.save_snapshot(GAME, 12, b"new-codec", STAMP)  # older, but usable
    assert store.load_snapshot(GAME, STAMP) == (12, b"new-codec")
    assert store.load_snapshot(GAME, "codec-0") is None


def test_snapshots_of_missing_games_or_versions_are_refused(store: EventStore) -> None:
    with pytest.raises(GameNotFound):
        store.save_snapshot("nope", 1, b"x", STAMP)
    play(store, GAME, [2])
    for version in (3, 0, -1):
        with pytest.raises(InvalidArgument):
            store.save_snapshot(GAME, version, b"x", STAMP)
    with pytest.raises(InvalidArgument):
        store.save_snapshot(GAME, 1, b"x", "")
    assert store.load_snapshot(GAME, STAMP) is None


def test_deleting_a_game_drops_its_snapshot(store: EventStore) -> None:
    play(store, GAME, [10])
    assert store.load_snapshot(GAME, STAMP) is not None
    store.delete_game(GAME)
    assert store.load_snapshot(GAME, STAMP) is None
    with pytest.raises(GameNotFound):
        load(store, GAME)


@pytest.mark.parametrize(
    ("old", "new", "due"),
    [(0, 1, False), (99, 100, True), (100, 101, False), (98, 103, True), (0, 250, True),
     (199, 199, False)],
)  # fmt: skip
def test_should_snapshot_when_a_multiple_is_crossed(
    redis: redis_lib.Redis, old: int, new: int, due: bool
) -> None:
    assert EventStore(redis, snapshot_every=100).should_snapshot(old, new) is due
