"""Issue 50: which events a change of a game makes for which accounts (a seat bound to
the account), with small payloads of ids and URLs and keys that name what happened."""

from __future__ import annotations

from dataclasses import replace

from service.application.challenge_events import bot_challenge_events
from service.application.lobby import GameInfo, SeatInfo
from service.application.webhook_events import GameChange, events_for


def game(rated: bool = False) -> GameInfo:
    seats = (
        SeatInfo("p1", "human", "Ada", None, None, None, account="ada"),
        SeatInfo("p2", "bot", "bot-easy", "random", None, None, level="easy", account="bot-e"),
        SeatInfo("p3", "human", "Guest", None, None, None),
    )
    return GameInfo("g1", "running", "classic", {}, None, 0, seats, rated=rated)


def test_the_first_append_makes_created_and_started_for_each_account() -> None:
    found = events_for(GameChange(game(), 1, 12, base_url="https://risk.example"))
    assert sorted((e.type, e.account_id) for e in found) == [
        ("game.created", "ada"),
        ("game.created", "bot-e"),
        ("game.started", "ada"),
        ("game.started", "bot-e"),
    ]
    assert found[0].data["url"] == "https://risk.example/v1/games/g1"


def test_turn_started_goes_to_the_acting_seats_account_with_its_deadline() -> None:
    change = GameChange(game(), 13, 15, acting="p1", deadline="2026-12-07T01:00:00.000+00:00")
    [turn] = events_for(change)
    assert (turn.type, turn.account_id, turn.key) == ("turn.started", "ada", "g1:turn:15:p1")
    assert turn.data["deadline"] == "2026-12-07T01:00:00.000+00:00"
    assert events_for(GameChange(game(), 13, 15, acting="p3")) == []  # no account there


def test_game_finished_says_who_won_to_each_account() -> None:
    found = events_for(GameChange(game(rated=True), 90, 91, winners=("p2",)))
    won = {e.account_id: e.data["won"] for e in found if e.type == "game.finished"}
    assert won == {"ada": False, "bot-e": True}
    assert all(e.key == "g1:finished" and e.data["rated"] for e in found)
    assert found[0].data["record_url"] == "/v1/games/g1/record"


def test_a_challenge_is_received_by_the_challenged_and_accepted_for_the_challenger() -> None:
    found = {e.type: e for e in bot_challenge_events(game())}
    assert found["challenge.received"].account_id == "bot-e"
    assert found["challenge.received"].data["challenger"] == "ada"
    assert found["challenge.accepted"].account_id == "ada"
    assert found["challenge.accepted"].data["opponents"] == ["bot-e"]


def test_a_creator_without_a_seat_hears_of_the_game_but_not_of_turns() -> None:
    """Issue 50: events go to "a game of the account's (a seat bound to it, or a game it
    created)"; the creator's have ``seat`` null; a creator seated gets its seat's only."""
    hosted = replace(game(), creator="host")
    found = events_for(GameChange(hosted, 1, 12, acting="p1"))
    assert sorted(e.type for e in found if e.account_id == "host") == [
        "game.created",
        "game.started",
    ]
    assert all(e.data["seat"] is None for e in found if e.account_id == "host")
    ended = events_for(GameChange(hosted, 90, 91, winners=("p1",)))
    [done] = [e for e in ended if e.account_id == "host"]
    assert (done.data["seat"], done.data["won"], done.key) == (None, None, "g1:finished")
    seated = replace(game(), creator="ada")  # it took p1: one event each, for p1
    created = [e for e in events_for(GameChange(seated, 1, 12)) if e.account_id == "ada"]
    assert sorted((e.type, e.data["seat"]) for e in created) == [
        ("game.created", "p1"),
        ("game.started", "p1"),
    ]
