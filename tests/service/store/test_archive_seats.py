"""A player in two seats of one game (issue 49's accounts on issue 48's history), on
SQLite and on PostgreSQL: two bots of one level in a challenge are one account in two
seats with one name, and their game is listed, paged and exported once, by name or by
account, with either seat's result."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from service.store.archive import Archive, Filters, GameRow
from service.store.database import create_engine
from tests.service.store.test_archive import game, record


@pytest.fixture
def archive(database_url: str) -> Iterator[Archive]:
    engine = create_engine(database_url)
    yield Archive(engine)
    engine.dispose()


def twice(game_id: str, created: int, winner: str) -> GameRow:
    """Ada, then ``bot-easy`` in p2 and p3 (one account), ``winner`` the winning seat."""
    row = game(game_id, created, names=("Ada", "bot-easy", "bot-easy"), winner=winner)
    accounts = {"p1": "a-ada", "p2": "a-bot", "p3": "a-bot"}
    return replace(row, seats=tuple(replace(s, account_id=accounts[s.seat]) for s in row.seats))


def test_a_game_with_two_seats_of_the_player_is_selected_once(archive: Archive) -> None:
    archive.write(
        [twice("g1", 1, "p1"), twice("g2", 2, "p3"), twice("g3", 3, "p2")],
        [record("g1"), record("g2"), record("g3")],
        5,
    )
    for by in (Filters(player="bot-easy"), Filters(account="a-bot")):
        assert [r.game_id for r in archive.page(by, 10)[0]] == ["g3", "g2", "g1"]
        first, cursor = archive.page(by, 2)
        rest, end = archive.page(by, 2, cursor)
        assert [r.game_id for r in first + rest] == ["g3", "g2", "g1"] and end is None
        assert [gid for gid, _ in archive.records(by)] == ["g3", "g2", "g1"]
    won = Filters(account="a-bot", result="won")
    assert [r.game_id for r in archive.page(won, 10)[0]] == ["g3", "g2"]
    lost = Filters(player="bot-easy", result="lost")
    assert [r.game_id for r in archive.page(lost, 10)[0]] == ["g3", "g2", "g1"]
    both = Filters(player="bot-easy", mode="classic")
    assert [gid for gid, _ in archive.records(both, limit=2)] == ["g3", "g2"]
