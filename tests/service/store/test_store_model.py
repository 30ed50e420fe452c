"""The store against a model: random appends, retries and key reuse.

Hypothesis drives sequences of appends at the right, stale or future
version, with or without idempotency keys, then retries earlier calls as
they were or with another body under the same key. A dozen lines of Python
say what the store must answer each time; the real store, on Redis, must
answer the same and hold the same record.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import redis as redis_lib
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from riskcore.audit.chain import GENESIS, event_hash, verify_chain
from service.store.errors import ChainMismatch, IdempotencyMismatch, StoreError, VersionConflict
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import AppendResult, NewEvent, new_events

FORGED = event_hash(GENESIS, b"forged")
games = itertools.count()


class Call(NamedTuple):
    expected: int
    prev: bytes
    events: tuple[NewEvent, ...]
    key: str | None


def expected_answer(model: Model, call: Call) -> object:
    """What the store must answer: the specification in one function."""
    if call.key in model.records:
        (expected, events), result = model.records[call.key]
        if (expected, events) == (call.expected, call.events):
            return result._replace(replayed=True)
        return IdempotencyMismatch
    if call.expected != len(model.hashes):
        return VersionConflict
    if call.prev != (model.hashes[-1] if model.hashes else GENESIS):
        return ChainMismatch
    first = len(model.hashes) + 1
    model.payloads += [e.payload for e in call.events]
    model.hashes += [e.hash for e in call.events]
    result = AppendResult(first, len(model.hashes), model.hashes[-1], False)
    if call.key is not None:
        model.records[call.key] = ((call.expected, call.events), result)
    model.notifications += 1
    return result


class Model(RuleBasedStateMachine):
    store: EventStore

    calls = Bundle("calls")

    def __init__(self) -> None:
        super().__init__()
        self.game = f"model-{next(games)}"
        self.payloads: list[bytes] = []
        self.hashes: list[bytes] = []
        self.records: dict[str, tuple[tuple[int, tuple[NewEvent, ...]], AppendResult]] = {}
        self.notifications = 0
        self.bodies = itertools.count()

    def body(self, prev: bytes, size: int) -> tuple[NewEvent, ...]:
        return tuple(new_events(prev, [b'{"b":%d}' % next(self.bodies) for _ in range(size)]))

    def send(self, call: Call) -> None:
        want = expected_answer(self, call)
        try:
            got: object = self.store.append(
                self.game, call.expected, call.events, prev=call.prev, idempotency_key=call.key
            )
        except StoreError as error:
            got = type(error)
        assert got == want, (call, got, want)

    @rule(
        target=calls,
        offset=st.sampled_from([0, 0, 0, -1, -2, 1]),
        key=st.sampled_from([None, "a", "b", "c", "d"]),
        size=st.integers(1, 3),
        forge=st.booleans(),
    )
    def append(self, offset: int, key: str | None, size: int, forge: bool) -> Call:
        expected = max(0, len(self.hashes) + offset)
        prev = ([GENESIS, *self.hashes] + [FORGED] * 3)[expected]
        if forge and offset == 0:
            prev = FORGED
        call = Call(expected, prev, self.body(prev, size), key)
        self.send(call)
        return call

    @rule(call=calls)
    def retry(self, call: Call) -> None:
        self.send(call)

    @rule(call=calls, size=st.integers(1, 3))
    def same_key_other_body(self, call: Call, size: int) -> None:
        self.send(call._replace(events=self.body(call.prev, size)))

    @invariant()
    def head_matches(self) -> None:
        if self.hashes:
            assert self.store.head(self.game) == (len(self.hashes), self.hashes[-1])
        else:
            assert not self.store.exists(self.game)

    def teardown(self) -> None:
        if not self.hashes:
            return
        events = self.store.read(self.game)
        assert [e.payload for e in events] == self.payloads
        assert verify_chain(GENESIS, [(e.payload, e.hash) for e in events]) is None
        notes = self.store.notifications(self.store.keys.partition(self.game))
        assert sum(n.game_id == self.game for n in notes) == self.notifications


def test_store_answers_like_the_model(redis: redis_lib.Redis, key_prefix: str) -> None:
    Model.store = EventStore(redis, KeySpace(key_prefix))
    run_state_machine_as_test(
        Model, settings=settings(max_examples=60, stateful_step_count=25, deadline=None)
    )
