"""The append's runner: one held connection per thread, given back, never shared.

An append is to cost one round trip; service/store/scripts.py gets
there by keeping a pooled connection per thread. These tests check what
that must not cost: connections leaking from ended threads, two threads or
a forked child writing on one socket. (A held connection the server
closed is replaced: tests/service/store/test_store_faults.py.)
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import Any

import redis as redis_lib

from riskcore.audit.chain import GENESIS
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import new_events


def _in_use(client: redis_lib.Redis) -> int:
    return len(client.connection_pool._in_use_connections)  # type: ignore[attr-defined]


def _start(store: EventStore, game: str) -> bytes:
    return store.append(game, 0, new_events(GENESIS, [b'{"n":1}']), prev=GENESIS).head_hash


def test_each_thread_holds_its_own_connection_and_gives_it_back(
    redis_url: str, key_prefix: str
) -> None:
    client = redis_lib.Redis.from_url(redis_url)
    store = EventStore(client, KeySpace(key_prefix))
    seen: dict[str, Any] = {}
    done = threading.Barrier(4)

    def play(game: str) -> None:
        head = _start(store, game)
        seen[game] = store._append._local.held.connection
        done.wait()  # all four hold theirs at once
        store.append(game, 1, new_events(head, [b'{"n":2}']), prev=head)
        assert store._append._local.held.connection is seen[game]  # kept, not re-taken

    threads = [threading.Thread(target=play, args=(f"g{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(c) for c in seen.values()}) == 4
    assert [store.version(f"g{n}") for n in range(4)] == [2, 2, 2, 2]
    assert _in_use(client) == 0  # every ended thread's connection is back in the pool
    client.close()


def _append_with_parents_store(store: EventStore, head: bytes, answer: Any) -> None:
    inherited = store._append._local.held.connection
    result = store.append("solo", 1, new_events(head, [b'{"n":2}']), prev=head)
    answer.put((result.last_version, store._append._local.held.connection is inherited))


def test_a_forked_child_takes_a_connection_of_its_own(redis_url: str, key_prefix: str) -> None:
    client = redis_lib.Redis.from_url(redis_url)
    store = EventStore(client, KeySpace(key_prefix))
    head = _start(store, "solo")
    parents = store._append._local.held.connection
    context = multiprocessing.get_context("fork")
    answer = context.Queue()
    child = context.Process(target=_append_with_parents_store, args=(store, head, answer))
    child.start()
    version, reused = answer.get(timeout=10)
    child.join(10)
    assert version == 2 and not reused
    # The parent's socket was not written to by the child: its next append
    # reads its own reply, not one meant for the child.
    last = store.read("solo")[-1]
    result = store.append("solo", 2, new_events(last.hash, [b'{"n":3}']), prev=last.hash)
    assert result.last_version == 3 and not result.replayed
    assert store._append._local.held.connection is parents
    client.close()


def _releases_seen(releases: list[int], answer: Any) -> None:
    answer.put(list(releases))


def test_a_fork_leaves_the_parents_pool_alone(redis_url: str, key_prefix: str) -> None:
    """Another thread holds a connection when the process forks: the child drops
    its copy of that thread's state at once, and must not hand the connection
    back to the pool (another thread of the parent may hold the pool's lock
    at the fork, which would hang the child)."""
    client = redis_lib.Redis.from_url(redis_url)
    store = EventStore(client, KeySpace(key_prefix))
    holding, finish = threading.Event(), threading.Event()

    def hold() -> None:
        _start(store, "held")
        holding.set()
        finish.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert holding.wait(10)
    pool = client.connection_pool
    releases: list[int] = []
    give_back = pool.release

    def release(connection: Any) -> None:
        releases.append(os.getpid())
        give_back(connection)

    pool.release = release  # type: ignore[method-assign]
    context = multiprocessing.get_context("fork")
    answer = context.Queue()
    child = context.Process(target=_releases_seen, args=(releases, answer))
    child.start()
    assert answer.get(timeout=10) == []  # nothing released in the child
    child.join(10)
    finish.set()
    thread.join()
    assert releases == [os.getpid()]  # the parent's thread gave its connection back
    assert _in_use(client) == 0
    client.close()
