"""service.store.keys: one slot per game, stable partitions, names that cannot break keys."""

from __future__ import annotations

import pytest
import redis as redis_lib
from redis.crc import key_slot

from riskcore.audit.chain import GENESIS
from service.store.errors import InvalidName
from service.store.event_store import EventStore
from service.store.keys import MAX_IDEMPOTENCY_KEY, KeySpace
from service.store.values import new_events


def slot(key: str | bytes) -> int:
    return key_slot(key.encode() if isinstance(key, str) else key)


def test_every_key_of_a_game_shares_its_partition_slot() -> None:
    space = KeySpace("risk")
    keys = space.game("game-1")
    names = [keys.events, keys.meta, keys.seed, keys.snapshot, keys.outbox, keys.games]
    names.append(keys.idempotency("request-{7}"))
    assert {slot(name) for name in names} == {slot(space.outbox(space.partition("game-1")))}


def test_partition_is_crc32_of_the_id_and_stable_across_runs() -> None:
    # zlib.crc32(b"game-1") % 16 == 12, b"abc" -> 2: fixed so a deploy never reshuffles.
    space = KeySpace()
    assert space.partition("game-1") == 12
    assert space.partition("abc") == 2
    assert space.game("abc").events == "risk:{p2}:game:abc:events"
    assert space.outbox(2) == "risk:{p2}:outbox"
    assert space.games(2) == "risk:{p2}:games"


def test_games_spread_over_every_partition_and_slots_differ() -> None:
    space = KeySpace("risk", partitions=16)
    used = {space.partition(f"g{n}") for n in range(500)}
    assert used == set(range(16))
    assert len({slot(name) for name in space.outboxes()}) == 16
    assert len(space.game_indexes()) == 16


@pytest.mark.parametrize(
    "game_id", ["", "a:b", "{p1}", "with space", "é", "x" * 65, "-leading-dash", None]
)
def test_ids_that_could_break_a_key_are_refused(game_id: str) -> None:
    with pytest.raises(InvalidName):
        KeySpace().game(game_id)


@pytest.mark.parametrize("key", ["", "x" * (MAX_IDEMPOTENCY_KEY + 1), "new\nline"])
def test_bad_idempotency_keys_are_refused(key: str) -> None:
    with pytest.raises(InvalidName):
        KeySpace().game("g").idempotency(key)


@pytest.mark.parametrize(("prefix", "partitions"), [("", 16), ("a{b}", 16), ("ok", 0)])
def test_bad_key_spaces_are_refused(prefix: str, partitions: int) -> None:
    with pytest.raises(InvalidName):
        KeySpace(prefix, partitions)


def test_partition_out_of_range_is_refused() -> None:
    with pytest.raises(InvalidName):
        KeySpace(partitions=4).outbox(4)


def test_redis_holds_only_the_documented_keys_each_in_its_game_slot(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    space = KeySpace(key_prefix, partitions=4)
    store = EventStore(redis, space)
    for game in ("alpha", "beta", "gamma"):
        events = new_events(GENESIS, [b"{}"])
        store.append(game, 0, events, prev=GENESIS, seed=b"s", kind="k", idempotency_key="cmd")
        store.save_snapshot(game, 1, b"state", "v1")
    found = {key.decode() for key in redis.scan_iter(f"{key_prefix}:*")}
    expected = set()
    for game in ("alpha", "beta", "gamma"):
        keys = space.game(game)
        expected |= {keys.events, keys.meta, keys.seed, keys.snapshot, keys.outbox, keys.games}
    idempotency = {key for key in found if ":idem:" in key}
    assert found - idempotency == expected
    assert idempotency == {
        space.game(game).idempotency("cmd") for game in ("alpha", "beta", "gamma")
    }
    for key in found:
        game = key.split(":game:")[1].split(":")[0] if ":game:" in key else None
        if game is not None:
            assert slot(key) == slot(space.outbox(space.partition(game)))


def test_every_key_of_a_tournament_shares_one_slot_of_its_own() -> None:
    """A tournament's keys share a hash tag (``service.store.keys``), so its pipelines
    touch one slot on Redis Cluster; ids the server never makes are refused."""
    keys = KeySpace("risk").tournament("t0123456789abcdef")
    assert {key_slot(key.encode()) for key in keys} == {key_slot(keys.info.encode())}
    assert all(key.startswith("risk:{t:t0123456789abcdef}:") for key in keys)
    for bad in ("t0123", "g0123456789abcdef", "t0123456789abcdef}"):
        with pytest.raises(InvalidName):
            KeySpace().tournament(bad)
