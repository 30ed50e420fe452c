"""Issue 49: a revoked token is refused at once by every process, and reading the
revocation counter costs a request no round trip to Redis while the process's
subscription to the revocations' channel stands (``RevocationCounter``)."""

from __future__ import annotations

from typing import Any

import redis as redis_lib

from service.store.keys import KeySpace
from service.store.tokens import RevocationCounter


def counting(url: str) -> tuple[redis_lib.Redis, list[str]]:
    """A client that notes each ``GET`` it sends."""
    client = redis_lib.Redis.from_url(url)
    gets: list[str] = []
    plain = client.get

    def get(name: Any) -> Any:
        gets.append(name)
        return plain(name)

    client.get = get  # type: ignore[method-assign]
    return client, gets


def test_reads_cost_no_round_trip_and_a_bump_elsewhere_is_seen_at_the_next_read(
    redis_url: str, key_prefix: str
) -> None:
    """Two counters on clients of their own stand for two server processes."""
    keys = KeySpace(key_prefix)
    here_client, gets = counting(redis_url)
    here = RevocationCounter(here_client, keys)
    elsewhere = RevocationCounter(redis_lib.Redis.from_url(redis_url), keys)
    first = here.read()
    for _ in range(50):
        assert here.read() == first
    assert len(gets) == 1  # the first read's, after subscribing
    elsewhere.bump()
    assert here.read() == first + 1  # at once: no waiting, no polling
    assert len(gets) == 2
    here.bump()
    assert here.read() == first + 2 and elsewhere.read() == first + 2


def test_a_broken_subscription_still_reads_the_counter(redis_url: str, key_prefix: str) -> None:
    keys = KeySpace(key_prefix)
    here = RevocationCounter(redis_lib.Redis.from_url(redis_url), keys)
    elsewhere = RevocationCounter(redis_lib.Redis.from_url(redis_url), keys)
    first = here.read()
    here._pubsub.connection.disconnect()  # what a network fault does to it
    elsewhere.bump()
    assert here.read() == first + 1
    elsewhere.bump()
    assert here.read() == first + 2


def test_without_watching_every_read_is_a_get(redis_url: str, key_prefix: str) -> None:
    client, gets = counting(redis_url)
    counter = RevocationCounter(client, KeySpace(key_prefix), watch=False)
    for _ in range(3):
        counter.read()
    assert len(gets) == 3
