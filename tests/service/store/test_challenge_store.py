"""The challenges' tables (issue 49) on SQLite and PostgreSQL: every change is a
conditional write, so a seat is answered once, an open seat taken once, an account
seated once, the game started by one caller (a dead one's claim taken over after a
while), and a challenge being started is not withdrawn under it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from service.store.accounts import AccountRow, AccountStore
from service.store.challenges import (
    ACCEPTED,
    CANCELLED,
    DECLINED,
    PENDING,
    AlreadySeated,
    ChallengeRow,
    ChallengeSeat,
    ChallengeStore,
)
from service.store.database import create_engine


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    made = create_engine(database_url)
    accounts = AccountStore(made)
    for account_id, name in (("a1", "Ada"), ("a2", "Bo"), ("a3", "Carol")):
        accounts.create(AccountRow(account_id, name, "human", None, 1))
    yield made
    made.dispose()


def challenge(
    store: ChallengeStore, challenge_id: str = "ch1", expires_ms: int = 1000, created_ms: int = 10
) -> None:
    seats = (
        ChallengeSeat("p1", "challenger", "a1", answer=ACCEPTED),
        ChallengeSeat("p2", "named", "a2"),
        ChallengeSeat("p3", "open"),
        ChallengeSeat("p4", "bot", level="easy", answer=ACCEPTED),
    )
    store.create(
        ChallengeRow(
            challenge_id, "a1", "classic", None, True, PENDING, created_ms, expires_ms, seats
        )
    )


def test_a_seat_is_answered_once_and_an_open_seat_taken_once(engine: Engine) -> None:
    store = ChallengeStore(engine)
    challenge(store)
    assert store.answer("ch1", "p2", ACCEPTED, 20)
    assert not store.answer("ch1", "p2", DECLINED, 21)  # answered before
    assert store.take("ch1", "p3", account_id=None, name="Guest", token_hash="h" * 64, now_ms=22)
    assert not store.take("ch1", "p3", account_id="a3", name=None, token_hash=None, now_ms=23)
    assert not store.take("ch1", "p2", account_id="a3", name=None, token_hash=None, now_ms=23)
    row = store.get("ch1")
    assert row is not None
    assert [(s.seat, s.answer, s.account_id, s.name) for s in row.seats] == [
        ("p1", ACCEPTED, "a1", None),
        ("p2", ACCEPTED, "a2", None),
        ("p3", ACCEPTED, None, "Guest"),
        ("p4", ACCEPTED, None, None),
    ]
    assert row.seats[2].token_hash == "h" * 64


def test_an_account_is_seated_once_in_a_challenge(engine: Engine) -> None:
    store = ChallengeStore(engine)
    challenge(store)
    with pytest.raises(AlreadySeated):  # Bo is named: he cannot take the open seat too
        store.take("ch1", "p3", account_id="a2", name=None, token_hash=None, now_ms=20)
    with pytest.raises(AlreadySeated):  # nor the challenger her own
        store.take("ch1", "p3", account_id="a1", name=None, token_hash=None, now_ms=20)
    assert store.get("ch1").seats[2].answer == PENDING  # type: ignore[union-attr]


def test_one_caller_starts_the_game_and_a_dead_ones_claim_is_taken_over(engine: Engine) -> None:
    store = ChallengeStore(engine)
    challenge(store)
    assert store.claim_start("ch1", 100, stale_ms=50)
    assert not store.claim_start("ch1", 120, stale_ms=50)  # another is making it
    assert not store.end("ch1", CANCELLED, 121)  # not withdrawn under its maker
    assert store.claim_start("ch1", 151, stale_ms=50)  # the first died
    store.started("ch1", "g1", 160)
    row = store.get("ch1")
    assert row is not None and (row.status, row.game_id, row.ended_ms) == (ACCEPTED, "g1", 160)
    assert not store.claim_start("ch1", 500, stale_ms=50)


def test_listings_expiry_and_purge(engine: Engine) -> None:
    store = ChallengeStore(engine)
    challenge(store, "ch1", expires_ms=1000)
    challenge(store, "ch2", expires_ms=5000, created_ms=20)
    assert [r.id for r in store.incoming("a2", 10, pending_at=500)] == ["ch2", "ch1"]
    assert [r.id for r in store.outgoing("a1", 10, pending_at=2000)] == ["ch2"]
    assert store.incoming("a1", 10, pending_at=None) == []  # its own are not incoming
    assert store.pending_count("a1", 2000) == 1
    assert store.get("ch1").status_at(1000) == "expired"  # type: ignore[union-attr]
    assert store.expire(2000) == 1
    assert store.get("ch1").status == "expired"  # type: ignore[union-attr]
    assert store.purge(ended_before_ms=999) == 0 and store.purge(ended_before_ms=1001) == 1
    assert store.get("ch1") is None and store.get("ch2") is not None
