"""The quick-pairing queue's script (issue 49), on a real Redis: seekers of one bucket
are matched in the order they came as soon as a game is full, never twice; a seek
whose wait ended takes the oldest others of its bucket; an account waits in one seek;
a seek leaves only while waiting."""

from __future__ import annotations

import threading

import redis as redis_lib

from service.store.keys import KeySpace
from service.store.pairing import PairingQueue, Seek


def seek(seek_id: str, joined: int, *, players: int = 3, wait: int = 1000, **kw: object) -> Seek:
    options: dict[str, object] = {"mode": "classic", "rated": False, "level": "easy"}
    options |= kw
    return Seek(
        id=seek_id,
        players=players,
        wait_ms=wait,
        joined_ms=joined,
        fill_ms=joined + wait,
        **options,  # type: ignore[arg-type]
    )


def test_a_full_bucket_is_matched_in_the_order_its_seekers_came(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    queue = PairingQueue(redis, KeySpace(key_prefix))
    assert queue.join(seek("s1", 10), "gA", 60_000) == ("waiting", None)
    assert queue.join(seek("s2", 20, rated=True), "gB", 60_000) == (
        "waiting",
        None,
    )  # another bucket
    assert queue.join(seek("s3", 30), "gC", 60_000) == ("waiting", None)
    assert queue.waiting("classic", 3, False) == 2
    assert queue.join(seek("s4", 40), "gD", 60_000) == ("matched", "gD")
    match = queue.match("gD")
    assert match is not None and match.members == ("s1", "s3", "s4")
    assert [queue.seek(s).seat for s in match.members] == ["p1", "p2", "p3"]  # type: ignore[union-attr]
    assert queue.seek("s2").status == "waiting"  # type: ignore[union-attr]
    assert queue.waiting("classic", 3, False) == 0
    assert queue.stale_matches(before_ms=10**13) == ["gD"]
    queue.paired("gD", match.members)
    assert queue.stale_matches(before_ms=10**13) == []
    assert queue.seek("s1").status == "paired"  # type: ignore[union-attr]


def test_seekers_joining_at_once_make_one_game_each(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    """Twelve seekers of a three-seat bucket, from twelve threads: four games, each
    seeker in exactly one."""
    queue = PairingQueue(redis, KeySpace(key_prefix))
    outcomes: list[tuple[str, str | None]] = []

    def join(index: int) -> None:
        outcomes.append(queue.join(seek(f"s{index}", index), f"g{index}", 60_000))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    games = [game for status, game in outcomes if status == "matched"]
    assert len(games) == 4
    members = [m for game in games for m in queue.match(str(game)).members]  # type: ignore[union-attr]
    assert sorted(members) == sorted(f"s{i}" for i in range(12))


def test_a_seek_whose_wait_ended_takes_the_oldest_others_of_its_bucket(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    queue = PairingQueue(redis, KeySpace(key_prefix))
    queue.join(seek("patient", 10, wait=100_000), "g1", 600_000)
    queue.join(seek("hurried", 20, wait=50), "g2", 600_000)
    queue.join(seek("other-mode", 5, wait=10, mode="two_player", players=2), "g3", 600_000)
    assert queue.fill_next(now_ms=14, game="gX", ttl_ms=600_000) is None  # no wait over yet
    assert queue.next_due_ms() == 15
    assert queue.fill_next(now_ms=16, game="gY", ttl_ms=600_000) == "gY"
    assert queue.match("gY").members == ("other-mode",)  # type: ignore[union-attr]
    assert queue.fill_next(now_ms=70, game="gZ", ttl_ms=600_000) == "gZ"
    match = queue.match("gZ")
    assert match is not None and match.members == ("patient", "hurried") and match.level == "easy"
    assert queue.fill_next(now_ms=10**9, game="gW", ttl_ms=600_000) is None
    assert queue.next_due_ms() is None


def test_an_account_waits_in_one_seek_and_leaves_only_while_waiting(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    queue = PairingQueue(redis, KeySpace(key_prefix))
    assert queue.join(seek("s1", 10, account="a1", players=2), "g1", 60_000) == ("waiting", None)
    assert queue.join(seek("s2", 11, account="a1", players=2), "g2", 60_000) == ("held", "s1")
    assert queue.seek("s2") is None  # nothing was added
    assert queue.leave("s1") == "left" and queue.leave("s1") == "left"
    assert queue.join(seek("s3", 12, account="a1", players=2), "g3", 60_000) == ("waiting", None)
    assert queue.join(seek("s4", 13, players=2), "g4", 60_000) == ("matched", "g4")
    assert queue.leave("s3") == "matched"
    assert queue.leave("nobody") is None
    # once paired, the account may seek again
    queue.paired("g4", ("s3", "s4"))
    assert queue.join(seek("s5", 14, account="a1", players=2), "g5", 60_000) == ("waiting", None)


def test_the_queue_runs_on_a_redis_cluster(redis_cluster_url: str, key_prefix: str) -> None:
    """Every key of the queue shares the {pairing} hash tag, so the script, which reads
    the seeks a match takes (keys it is not given), runs in one slot of a cluster."""
    from service.settings import Settings
    from service.store.connections import store_client

    client = store_client(
        Settings(redis_url=redis_cluster_url, redis_cluster=True, queue_url="redis://x")
    )
    try:
        queue = PairingQueue(client, KeySpace(key_prefix))
        queue.join(seek("c1", 10, players=2, wait=5), "g1", 60_000)
        assert queue.fill_next(now_ms=20, game="gF", ttl_ms=60_000) == "gF"
        assert queue.join(seek("c2", 30, players=2), "g2", 60_000) == ("waiting", None)
        assert queue.join(seek("c3", 40, players=2), "g3", 60_000) == ("matched", "g3")
        assert queue.match("g3").members == ("c2", "c3")  # type: ignore[union-attr]
    finally:
        client.close()
