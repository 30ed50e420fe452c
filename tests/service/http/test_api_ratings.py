"""Ratings, profiles and leaderboards (issue 49): a rated game that finishes changes
its accounts' ratings (humans and bot accounts in one pool), the leaderboard lists
them by ordinal with bots marked, and rebuilding from the log of rated results gives
the same table."""

from __future__ import annotations

import redis as redis_lib
from flask import Flask

from service.application.player_ratings import RatedGame, rate_finished_game, start
from tests.service.api_helpers import ApiClient, problem
from workers.projector import Projector


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
    assert ada["history"] == "/v1/games?player=acct:Ada"
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


def test_the_projector_rates_a_rated_game_once_at_its_finish_time(
    api: ApiClient, app: Flask
) -> None:
    """Issue 49 on issue 48's projector: the projector rates the rated game it archives
    as finished, stamped with the game's finish time; the lobby's list read after it
    (``catch_up``) finds it rated and rates nothing twice."""
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    game = finish_a_challenge(api, token)
    risk = app.extensions["risk"]
    worker = Projector(risk.redis, risk.games, risk.archive, ratings=risk.ratings)
    worker.ensure_groups()
    while worker.run_once(block_ms=10):
        pass
    log = risk.ratings.store.log()
    archived = risk.archive.get(game)
    assert [g.game_id for g in log] == [game] and archived is not None
    assert log[0].finished_ms == archived.row.finished_ms
    assert {s.account_id for s in archived.row.seats} == {a for a, _ in log[0].seats}
    assert api.get("/v1/players/Ada").json["ratings"]["two_player"]["games"] == 1
    assert risk.ratings.catch_up() == 0 and len(risk.ratings.store.log()) == 1


def test_a_rated_game_only_the_archive_still_holds_is_rated_from_its_row(
    api: ApiClient, app: Flask, redis: redis_lib.Redis
) -> None:
    """Ratings are a projection of the archive (issue 49): a rated game archived by a
    projector that rated nothing, then lost by Redis before anyone read a rating, is
    rated from its archive row (`risk archive ratings` does this, then rebuilds)."""
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    game = finish_a_challenge(api, token)
    risk = app.extensions["risk"]
    worker = Projector(risk.redis, risk.games, risk.archive)
    worker.ensure_groups()
    while worker.run_once(block_ms=10):
        pass
    redis.flushdb()
    assert risk.ratings.store.log() == []
    assert risk.ratings.rate_archived(risk.archive) == 1
    assert risk.ratings.rate_archived(risk.archive) == 0
    assert [g.game_id for g in risk.ratings.store.log()] == [game]
    assert risk.ratings.rebuild() == 1
    assert api.get("/v1/players/Ada").json["ratings"]["two_player"]["games"] == 1
