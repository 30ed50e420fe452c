"""The pairing queue's sweep and the challenges' expiry run in the workers (issue 49):
the relay enqueues the sweep as soon as a seeker's wait is over (and not before), and
the job, run by a real RQ worker, fills the game with bots of the seeker's level and
binds the seeker's seat; the minute's sweep writes expired challenges down."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import redis as redis_lib
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.application.games import GameService
from service.store.accounts import AccountRow, AccountStore
from service.store.challenges import ACCEPTED, PENDING, ChallengeRow, ChallengeSeat, ChallengeStore
from service.store.database import create_engine
from service.store.keys import KeySpace
from service.store.pairing import PairingQueue, Seek
from workers.queues import queue
from workers.relay import Relay


@pytest.fixture(autouse=True)
def database(monkeypatch: pytest.MonkeyPatch, sqlite_url: str) -> str:
    """The jobs find the SQL database (the bots' accounts, challenges) from the settings."""
    monkeypatch.setenv("RISK_DATABASE_URL", sqlite_url)
    return sqlite_url


def work(redis: redis_lib.Redis, keys: KeySpace) -> None:
    SimpleWorker([queue(redis, keys)], connection=redis, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )


def test_a_wait_that_ended_is_filled_with_bots_by_the_workers(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    keys = KeySpace(key_prefix)
    pairing = PairingQueue(redis, keys)
    relay = Relay(redis, keys, queue(redis, keys))
    now = int(time.time() * 1000)
    waiting = Seek("pk_ada", "classic", 3, True, "easy", 2_000, now, now + 2_000, "a-ada", "Ada")
    assert pairing.join(waiting, "gunused", 600_000) == ("waiting", None)
    assert not relay.sweep_pairing()  # the wait is not over
    pairing.join(
        Seek("pk_x", "classic", 3, True, "easy", 0, now + 1, now - 5, "a-x", "X"), "g1", 600_000
    )
    assert relay.sweep_pairing()  # X's wait is over
    work(redis, keys)
    seeks = [pairing.seek("pk_x"), pairing.seek("pk_ada")]
    assert [(s.status, s.seat) for s in seeks if s] == [("paired", "p2"), ("paired", "p1")]
    game = GameService(redis, keys).info(str(seeks[0].game))  # type: ignore[union-attr]
    assert [(s.name, s.kind, s.level, s.account) for s in game.seats] == [
        ("Ada", "human", None, "a-ada"),
        ("X", "human", None, "a-x"),
        ("bot-easy", "bot", "easy", game.seats[2].account),
    ]
    assert game.seats[2].account is not None and game.rated
    assert not relay.sweep_pairing()  # nothing left to do


def test_the_minutes_sweep_writes_expired_challenges_down(
    redis: redis_lib.Redis, key_prefix: str, database: str
) -> None:
    engine = create_engine(database)
    try:
        AccountStore(engine).create(AccountRow("a1", "Ada", "human", None, 1))
        store = ChallengeStore(engine)
        seats = (
            ChallengeSeat("p1", "challenger", "a1", answer=ACCEPTED),
            ChallengeSeat("p2", "open"),
        )
        now = int(time.time() * 1000)
        row = ChallengeRow("ch1", "a1", "classic", None, False, PENDING, now - 9, now - 5, seats)
        store.create(row)
        store.create(replace(row, id="ch-old", created_ms=1, expires_ms=2))  # long ago
        keys = KeySpace(key_prefix)
        assert Relay(redis, keys, queue(redis, keys)).sweep_games()
        work(redis, keys)
        assert store.get("ch1").status == "expired"  # type: ignore[union-attr]
        assert store.get("ch-old") is None  # ended more than 30 days ago: forgotten
    finally:
        engine.dispose()
