"""The relay (docs/store.md, "Workers: relay, clocks and what operators see"): outbox notifications
become jobs, one per game at a time."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import pytest
import redis as redis_lib
from redis.backoff import NoBackoff
from redis.retry import Retry

from riskcore.audit.chain import GENESIS
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import new_events
from workers.claims import Claims
from workers.queues import queue
from workers.relay import GROUP, Relay


@pytest.fixture
def keys(key_prefix: str) -> KeySpace:
    return KeySpace(key_prefix, partitions=4)


@pytest.fixture
def store(redis: redis_lib.Redis, keys: KeySpace) -> EventStore:
    return EventStore(redis, keys)


def make_relay(redis: redis_lib.Redis, keys: KeySpace, name: str = "r1", **options) -> Relay:
    relay = Relay(redis, keys, queue(redis, keys), consumer=name, **options)
    relay.ensure_groups()
    return relay


def append(store: EventStore, game: str, count: int = 1) -> None:
    head = store.head(game) if store.exists(game) else None
    version, prev = (head.version, head.hash) if head else (0, GENESIS)
    payloads = [b'{"n":%d}' % (version + i + 1) for i in range(count)]
    store.append(game, version, new_events(prev, payloads), prev=prev)


def jobs_for(redis: redis_lib.Redis, keys: KeySpace, game: str) -> list[str]:
    """The queued bot jobs of ``game`` (their ids name it: ``workers.claims.new_job_id``)."""
    return [j for j in queue(redis, keys).get_job_ids() if j.startswith(f"advance-{game}-")]


def test_a_game_with_a_pending_job_gets_no_second_one(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    relay = make_relay(redis, keys)
    append(store, "g1")
    append(store, "g1", count=3)
    append(store, "g2")
    assert relay.run_once(block_ms=10) == 3
    claims = Claims(redis, keys)
    assert jobs_for(redis, keys, "g1") == [claims.holder("g1")]
    assert jobs_for(redis, keys, "g2") == [claims.holder("g2")]
    assert len(queue(redis, keys).get_job_ids()) == 2
    assert (relay.stats.enqueued, relay.stats.coalesced) == (2, 1)
    for _ in range(50):  # however many appends come while the job waits
        append(store, "g1")
    assert relay.run_once(block_ms=10) == 50
    assert len(queue(redis, keys).get_job_ids()) == 2
    assert relay.run_once(block_ms=10) == 0


def test_a_redelivered_notification_makes_no_second_job(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    first = make_relay(redis, keys, "first", claim_idle_ms=0)
    append(store, "g1")
    # The first relay reads the entry but dies before acknowledging it.
    outbox = keys.outbox(keys.partition("g1"))
    redis.xreadgroup(GROUP, "crashed", {outbox: ">"}, count=10)
    first._enqueue(store.notifications(keys.partition("g1"))[0])
    assert first.reclaim() == 1
    assert len(jobs_for(redis, keys, "g1")) == 1
    assert first.stats.coalesced == 1
    assert redis.xpending(outbox, GROUP)["pending"] == 0


def test_entries_stuck_with_a_dead_consumer_are_taken_over(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    relay = make_relay(redis, keys, "alive", claim_idle_ms=0)
    append(store, "g7")
    outbox = keys.outbox(keys.partition("g7"))
    redis.xreadgroup(GROUP, "dead", {outbox: ">"}, count=10)
    assert relay.run_once(block_ms=10) == 0  # nothing new for the group
    assert relay.reclaim() == 1
    assert jobs_for(redis, keys, "g7") == [Claims(redis, keys).holder("g7")]


def test_a_poisoned_entry_goes_to_the_dead_letters_after_repeated_failures(
    redis: redis_lib.Redis, keys: KeySpace
) -> None:
    relay = make_relay(redis, keys, claim_idle_ms=0, max_deliveries=3)
    outbox = keys.outbox(0)
    redis.xadd(outbox, {b"nonsense": b"1"})
    relay.run_once(block_ms=10)
    assert redis.xpending(outbox, GROUP)["pending"] == 1
    relay.reclaim()
    relay.reclaim()
    assert redis.xpending(outbox, GROUP)["pending"] == 0
    dead = redis.xrange(keys.relay_dead_letters())
    assert len(dead) == 1
    assert b"error" in dead[0][1]
    assert relay.stats.dead_lettered == 1


def test_two_relays_share_the_work_without_duplicates(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    one, two = make_relay(redis, keys, "one"), make_relay(redis, keys, "two")
    for n in range(20):
        append(store, f"game{n}")
    total = one.run_once(block_ms=10, count=5) + two.run_once(block_ms=10, count=5)
    total += one.run_once(block_ms=10) + two.run_once(block_ms=10)
    assert total == 20
    assert len(queue(redis, keys).get_job_ids()) == 20


def test_an_outage_of_rqs_redis_dead_letters_nothing(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    """With the queues on a Redis of their own (RISK_QUEUE_URL), that Redis going away is
    an outage to wait out, not a bad notification: reclaiming the entry again and again
    meanwhile must not push it into the dead letters, and it makes its job once back."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    gone = redis_lib.Redis(
        host="127.0.0.1", port=dead_port, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )
    relay = Relay(redis, keys, queue(gone, keys), consumer="r1", claim_idle_ms=0, max_deliveries=2)
    relay.ensure_groups()
    append(store, "g1")
    with pytest.raises(redis_lib.ConnectionError):
        relay.run_once(block_ms=10)
    for _ in range(4):
        with pytest.raises(redis_lib.ConnectionError):
            relay.reclaim()
    assert relay.stats.dead_lettered == 0
    assert redis.xlen(keys.relay_dead_letters()) == 0
    assert Claims(redis, keys).holder("g1") is None  # no job came: the game is not held
    relay.queue = queue(redis, keys)  # RQ's Redis is back
    assert relay.reclaim() == 1
    assert jobs_for(redis, keys, "g1") == [Claims(redis, keys).holder("g1")]


def test_the_relay_creates_its_groups_again_when_redis_lost_its_data(
    redis: redis_lib.Redis, keys: KeySpace, store: EventStore
) -> None:
    """Issue 13 item 7: after FLUSHALL (here: this test's own database) reads fail with
    NOGROUP; the relay must recreate its groups and go on, and keep beating."""
    relay = make_relay(redis, keys)
    stop = threading.Event()
    thread = threading.Thread(target=relay.run, args=(stop,), kwargs={"block_ms": 50})
    thread.start()
    try:
        append(store, "before")
        wait_until(lambda: len(jobs_for(redis, keys, "before")) == 1)
        redis.flushdb()  # Redis restarted without persistence
        time.sleep(0.2)  # the relay's next reads meet NOGROUP
        append(store, "after")
        wait_until(lambda: len(jobs_for(redis, keys, "after")) == 1)
        assert thread.is_alive()
        assert relay.stats.regrouped >= 1
        wait_until(lambda: redis.zrange(keys.relay_heartbeats(), 0, -1) == [b"r1"])
    finally:
        stop.set()
        thread.join(5)


def wait_until(condition: Callable[[], bool], timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)
