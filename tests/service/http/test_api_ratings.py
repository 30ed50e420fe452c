"""Ratings, profiles and leaderboards (issue 49): a rated game that finishes changes
its accounts' ratings (humans and bot accounts in one pool), the leaderboard lists
them by ordinal with bots marked, and rebuilding from the log of rated results gives
the same table."""

from __future__ import annotations

from flask import Flask

from service.application.player_ratings import RatedGame, rate_finished_game, start
from tests.service.api_helpers import ApiClient, problem


def finish_a_challenge(api: ApiClient, token: str, rated: bool = True) -> str:
    """A challenge against one easy bot (two_player), resigned at once: the bot wins."""
    made = api.post("/v1/challenges", json={"bots": ["easy"], "rated": rated}, token=token)
    assert made.status_code == 201 and made.json["game"]["rated"] is rated
    game: str = made.json["game"]["game_id"]
    assert made.json["game"]["mode"] == "two_player"
    resigned = api.post(f"/v1/games/{game}/commands", json={"type": "resign"}, token=token)
    assert resigned.status_code == 200
    assert api.get(f"/v1/games/{game}", token=token).json["status"] == "finished"
    return game


def test_a_rated_game_changes_both_ratings_and_the_leaderboard_lists_both(api: ApiClient) -> None:
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    finish_a_challenge(api, token)
    ada = api.get("/v1/players/Ada").json
    rating = ada["ratings"]["two_player"]
    assert rating["games"] == 1 and rating["provisional"] is True
    assert rating["mu"] < 25  # lost to the bot
    assert ada["history"] == "/v1/games?player=Ada"
    bot = api.get("/v1/players/bot-easy").json
    assert bot["kind"] == "bot" and bot["level"] == "easy"
    assert bot["ratings"]["two_player"]["mu"] > 25
    board = api.get("/v1/leaderboards/two_player").json["players"]
    assert [(p["name"], p["bot"]) for p in board] == [("bot-easy", True), ("Ada", False)]
    assert board[0]["ordinal"] > board[1]["ordinal"]
    problem(api.get("/v1/leaderboards/nonsense"), 404, "unknown_mode")


def test_an_unrated_game_changes_no_rating(api: ApiClient) -> None:
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    finish_a_challenge(api, token, rated=False)
    assert api.get("/v1/players/Ada").json["ratings"] == {}
    assert api.get("/v1/leaderboards/two_player").json["players"] == []


def test_rebuilding_the_ratings_from_the_log_gives_the_same_table(
    api: ApiClient, app: Flask
) -> None:
    """Ratings are a projection: the table rebuilt from rated_games is the one kept."""
    ada = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    bo = api.post("/v1/accounts", json={"name": "Bo"}).json["token"]
    for token in (ada, bo, ada):
        finish_a_challenge(api, token)
    before = api.get("/v1/leaderboards/two_player").json
    ratings = app.extensions["risk"].ratings
    assert ratings.rebuild() == 3
    assert api.get("/v1/leaderboards/two_player").json == before


def test_winners_share_first_place_and_an_account_in_two_seats_counts_once() -> None:
    game = RatedGame("g1", "classic", 1, (("a", True), ("b", False), ("c", False), ("a", False)))
    rated = rate_finished_game(game, {})
    assert set(rated) == {"a", "b", "c"} and rated["a"].mu > 25 > rated["b"].mu
    assert rated["b"].mu == rated["c"].mu and rated["a"].games == 1
    assert rate_finished_game(RatedGame("g2", "classic", 2, (("a", True),)), {}) == {}
    after = rate_finished_game(game, rated)
    assert after["a"].games == 2 and after["a"].sigma < rated["a"].sigma < start("a", "x").sigma
