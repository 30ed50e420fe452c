"""An account's history and its deletion (issue 49), on SQLite and PostgreSQL: the
history's `player` filter takes `acct:<name>`, the games of that account's seats
(anyone may call a seat "Ada"; only the account's are its own); the profile links to
it; a deleted account's games stay, listed under its replaced name, so its old name no
longer finds them."""

from __future__ import annotations

from flask import Flask

from service.application.games import SeatPlan
from tests.service.api_helpers import ApiClient, problem
from tests.service.http.test_api_accounts import account
from tests.service.http.test_api_archive import archived_app, project

__all__ = ["archived_app"]


def ids(api: ApiClient, query: str) -> set[str]:
    response = api.get(f"/v1/games?{query}")
    assert response.status_code == 200, response.json
    return {g["game_id"] for g in response.json["games"]}


def test_the_player_filter_takes_an_account_and_deletion_renames_its_seats(
    archived_app: Flask,
) -> None:
    api = ApiClient(archived_app.test_client())
    ada = account(api, "Ada")
    mine = api.post("/v1/challenges", json={"bots": ["easy"]}, token=ada).json["game"]["game_id"]
    service = archived_app.extensions["risk"].games
    namesake = service.create(
        seats=[SeatPlan("human", name="Ada"), SeatPlan("bot", level="easy")], mode="two_player"
    ).info.game_id
    project(archived_app)
    assert ids(api, "player=Ada") == {mine}  # an account's name: its seats, no namesake's
    assert ids(api, "player=Bo") == set()
    assert ids(api, "player=acct:Ada") == {mine}  # the account's own
    assert ids(api, "player=acct:ada&mode=two_player") == {mine}
    profile = api.get("/v1/players/Ada").json
    assert profile["history"] == "/v1/games?player=acct:Ada"
    problem(api.get("/v1/games?player=acct:Nobody"), 404, "player_not_found")

    assert api.call("DELETE", "/v1/account", token=ada).status_code == 204
    problem(api.get("/v1/games?player=acct:Ada"), 404, "player_not_found")
    assert ids(api, "player=Ada") == {namesake}  # the old name no longer finds it
    renamed = next(
        g
        for g in api.get("/v1/games?source=archive&limit=100").json["games"]
        if g["game_id"] == mine
    )
    new_name = renamed["seats"][0]["name"]
    assert new_name.startswith("deleted-")
    problem(api.get(f"/v1/games?player=acct:{new_name}"), 404, "player_not_found")  # gone
    assert ids(api, f"player={new_name}") == {mine}
    # the game is kept, and the lobby lists it under the new name as well
    assert service.lobby.get(mine).seats[0].name == new_name
    project(archived_app)  # projecting it again does not bring the old name back
    assert ids(api, "player=Ada") == {namesake}
