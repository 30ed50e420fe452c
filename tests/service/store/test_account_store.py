"""The players' tables (issue 49) on SQLite and PostgreSQL: names unique without case,
only token hashes stored, revocation, and a rated game logged once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from service.store.accounts import AccountRow, AccountStore, NameTaken
from service.store.database import create_engine
from service.store.ratings import RatedGame, RatingRow, RatingStore
from service.store.tokens import TokenRow, TokenStore


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    made = create_engine(database_url)
    yield made
    made.dispose()


def test_names_are_unique_without_case_and_a_deleted_name_is_free(engine: Engine) -> None:
    accounts = AccountStore(engine)
    accounts.create(AccountRow("a1", "Ada", "human", None, 1))
    with pytest.raises(NameTaken):
        accounts.create(AccountRow("a2", "ADA", "human", None, 2))
    assert accounts.by_name("ada") == AccountRow("a1", "Ada", "human", None, 1)
    accounts.delete("a1", "deleted-x", 3)
    assert accounts.by_name("Ada") is None and accounts.by_id("a1").deleted_ms == 3  # type: ignore[union-attr]
    accounts.create(AccountRow("a2", "ada", "human", None, 4))


def test_a_token_is_found_by_its_hash_until_revoked(engine: Engine) -> None:
    AccountStore(engine).create(AccountRow("a1", "Ada", "human", None, 1))
    tokens = TokenStore(engine)
    tokens.add(TokenRow("t1", "a1", "ro", ("read",), 2), "h" * 64)
    found = tokens.live_by_hash("h" * 64)
    assert found is not None and found.scopes == ("read",) and found.account_id == "a1"
    assert tokens.revoke("a1", "t1", 3) == 1 and tokens.revoke("a1", "t1", 4) == 0
    assert tokens.live_by_hash("h" * 64) is None and tokens.of_account("a1") == []


def test_a_rated_game_is_logged_and_rated_once(engine: Engine) -> None:
    accounts = AccountStore(engine)
    for account in ("a1", "a2"):
        accounts.create(AccountRow(account, account.upper(), "human", None, 1))
    ratings = RatingStore(engine)
    game = RatedGame("g1", "classic", 5, (("a1", True), ("a2", False)))
    rows = {a: RatingRow(a, "classic", 26.0, 8.0, 2.0, 1, True) for a in ("a1", "a2")}
    assert ratings.record(game, rows) is True
    assert ratings.record(game, rows) is False  # the second writer rolls back
    assert ratings.log() == [game]
    top = ratings.top("classic", 10)
    assert [name for _, name, _ in top] == ["A1", "A2"] and top[0][0].games == 1
