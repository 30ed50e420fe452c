"""A player's history (issue 48's ``player`` filter, issue 49's accounts): a name that is
an account's lists the games of the seats bound to that account, whatever each seat is
called, and not a stranger's seat that took the name; any other name lists the seats
of that name, as anonymous play always did. The web page's "my games" and a profile's
history are this listing."""

from __future__ import annotations

import json

from flask import Flask

from tests.service.api_helpers import ApiClient
from workers.projector import Projector

BOT = {"kind": "bot", "bot": "random"}


def project(app: Flask) -> None:
    risk = app.extensions["risk"]
    worker = Projector(risk.redis, risk.games, risk.archive, ratings=risk.ratings)
    worker.ensure_groups()
    while worker.run_once(block_ms=10):
        pass
    while worker.archive_records(budget_seconds=5):  # finished games' records, for the export
        pass


def listed(api: ApiClient, **filters: str) -> set[str]:
    response = api.get("/v1/games", query_string=filters)
    assert response.status_code == 200, response.json
    return {game["game_id"] for game in response.json["games"]}


def test_an_accounts_name_lists_its_bound_seats_games_and_no_strangers(
    api: ApiClient, app: Flask
) -> None:
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    challenge = api.post("/v1/challenges", json={"bots": ["easy"]}, token=token)
    assert challenge.status_code == 201
    played = challenge.json["game"]["game_id"]
    seats = [{"kind": "human", "name": "Ada the Bold"}, BOT, BOT]
    renamed = api.post("/v1/games", json={"seats": seats}, token=token)
    assert renamed.status_code == 201
    created = renamed.json["game"]["game_id"]
    stranger = api.create([{"kind": "human", "name": "Ada"}, BOT, BOT])[0]
    anonymous = api.create([{"kind": "human", "name": "Zed"}, BOT, BOT])[0]
    api.post(f"/v1/games/{played}/commands", json={"type": "resign"}, token=token)
    project(app)

    assert listed(api, player="Ada") == {played, created}
    assert listed(api, player="ada") == {played, created}  # names are one regardless of case
    assert listed(api, player="Ada", result="lost") == {played}
    assert listed(api, player="Ada", status="running") == {created}
    assert listed(api, player="Zed") == {anonymous}  # no account: the seats' names
    assert stranger not in listed(api, player="Ada")
    assert listed(api, player="bot-easy") == {played}  # a level's account is an account
    profile = api.get("/v1/players/Ada").json
    query = profile["history"].partition("?")[2]
    assert listed(api, **dict([query.split("=")])) == {played, created}


def test_a_game_where_the_player_holds_two_seats_is_listed_and_exported_once(
    api: ApiClient, app: Flask
) -> None:
    """Two bots of one level in a challenge are one account (``bot-easy``) in two seats,
    both named after it: its history lists that game once, by account and by name,
    with a result (won when either seat won) and in the export."""
    token = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    challenge = api.post("/v1/challenges", json={"bots": ["easy", "easy"]}, token=token)
    game = challenge.json["game"]["game_id"]
    seats = [s["name"] for s in challenge.json["game"]["seats"]]
    assert seats == ["Ada", "bot-easy", "bot-easy"]
    alone = api.post("/v1/challenges", json={"bots": ["easy"]}, token=token).json["game"]
    api.post(f"/v1/games/{game}/commands", json={"type": "resign"}, token=token)
    project(app)

    for filters in ({"player": "bot-easy"}, {"player": "bot-easy", "mode": "classic"}):
        found = api.get("/v1/games", query_string=filters).json["games"]
        assert [g["game_id"] for g in found] == [alone["game_id"], game][-len(found) :]
        assert len({g["game_id"] for g in found}) == len(found)
    paged = api.get("/v1/games", query_string={"player": "bot-easy", "limit": 1}).json
    after = api.get(
        "/v1/games",
        query_string={"player": "bot-easy", "limit": 1, "cursor": paged["next_cursor"]},
    ).json
    assert [g["game_id"] for g in paged["games"] + after["games"]] == [alone["game_id"], game]
    assert after["next_cursor"] is None
    # Two seats of one name in a finished game (humans who both resign): exported once.
    twins, tokens = api.create([{"kind": "human", "name": "Twin"}] * 2 + [{"kind": "human"}])
    for seat in ("p1", "p2"):
        api.post(f"/v1/games/{twins}/commands", json={"type": "resign"}, token=tokens[seat])
    project(app)
    assert listed(api, player="Twin", result="lost") == {twins}
    exported = api.get("/v1/games/export", query_string={"player": "Twin"})
    assert exported.status_code == 200
    lines = exported.get_data(as_text=True).splitlines()
    assert [json.loads(line)["game_id"] for line in lines] == [twins]
