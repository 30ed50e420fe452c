"""Quotas of open and running games per creator, abandoned lobbies, the creation token
(issue 13, item 11)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from service.http.app import create_app
from service.settings import Settings
from tests.service.api_helpers import ApiClient, problem

OPEN_GAME = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
ONE_SECOND = 1 / 3600  # in hours


def quota_api(settings: Settings, **changes: Any) -> ApiClient:
    return ApiClient(create_app(replace(settings, **changes)).test_client())


def create(api: ApiClient, seats: Any = OPEN_GAME, token: str | None = None) -> Any:
    return api.post("/v1/games", json={"seats": seats}, token=token)


def test_one_address_has_at_most_its_quota_of_active_games(settings: Settings) -> None:
    api = quota_api(settings, games_per_address=3)
    created = [create(api).json["game"]["game_id"] for _ in range(2)]
    created.append(api.create(3)[0])  # a running game counts too
    body = problem(create(api), 429, "game_quota_exceeded")
    assert "3 open or running games" in body["detail"]
    assert api.call("DELETE", f"/v1/games/{created[0]}", token="admin-secret").status_code == 204
    assert create(api).status_code == 201  # a deleted game no longer counts


def test_finished_games_do_not_count(settings: Settings) -> None:
    api = quota_api(settings, games_per_address=1)
    game, tokens = api.create(3)
    problem(create(api), 429, "game_quota_exceeded")
    for seat in ("p1", "p2"):  # two of three resign: the last one wins
        view = api.get(f"/v1/games/{game}", token=tokens[seat]).json
        assert api.command(game, tokens[seat], {"type": "resign"}).status_code == 200, view
    assert api.get(f"/v1/games/{game}").json["status"] == "finished"
    assert create(api).status_code == 201


def test_a_lobby_nobody_joins_ends_as_abandoned_and_its_record_stays(settings: Settings) -> None:
    api = quota_api(settings, games_per_address=2, open_game_hours=ONE_SECOND)
    lobbies = [create(api).json["game"]["game_id"] for _ in range(2)]
    problem(create(api), 429, "game_quota_exceeded")
    time.sleep(1.1)
    assert create(api).status_code == 201  # the two old lobbies were ended
    for lobby in lobbies:
        kept = api.get(f"/v1/games/{lobby}")
        assert kept.status_code == 200 and kept.json["status"] == "finished", kept.json
        problem(api.post(f"/v1/games/{lobby}/join", json={}), 409, "game_full")
    listed = api.get("/v1/games", query_string={"status": "open"}).json["games"]
    assert not {g["game_id"] for g in listed} & set(lobbies)


def test_a_running_game_left_idle_ends_as_abandoned_and_its_record_verifies(
    settings: Settings,
) -> None:
    """Issue 13, item 11: a running game with no command for the idle time is ended as
    abandoned (no winner), by the server's own command, and its record is kept whole."""
    api = quota_api(settings, games_per_address=1, idle_game_hours=ONE_SECOND)
    game, _ = api.create(3)
    problem(create(api), 429, "game_quota_exceeded")
    time.sleep(1.1)
    assert create(api).status_code == 201
    view = api.get(f"/v1/games/{game}").json
    assert view["status"] == "finished" and view["finish_reason"] == "abandoned"
    assert view["winner"] is None and view["winners"] == []
    record = api.get(f"/v1/games/{game}/record").get_data(as_text=True)
    verdict = api.post(
        "/v1/records/verify", data=record, headers={"Content-Type": "application/x-ndjson"}
    ).json
    assert verdict["ok"] and verdict["status"] == "verified", verdict


def test_a_running_game_in_play_is_never_abandoned(settings: Settings) -> None:
    api = quota_api(settings, games_per_address=1, idle_game_hours=3 * ONE_SECOND)
    game, tokens = api.create(3)
    time.sleep(2.0)
    seat = api.get(f"/v1/games/{game}").json["current"]
    legal = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat]).json["actions"]
    assert api.command(game, tokens[seat], legal[0]["command"]).status_code == 200
    time.sleep(1.5)  # the game began 3.5 s ago, its last command came 1.5 s ago
    problem(create(api), 429, "game_quota_exceeded")
    assert api.get(f"/v1/games/{game}").json["status"] == "running"


def test_no_client_can_send_the_servers_abandon(settings: Settings) -> None:
    api = quota_api(settings)
    game, tokens = api.create(3)
    seat = api.get(f"/v1/games/{game}").json["current"]
    problem(api.command(game, tokens[seat], {"type": "abandon"}), 400, "malformed_command")
    assert api.get(f"/v1/games/{game}").json["status"] == "running"


def test_creation_behind_a_token_with_a_quota_of_its_own(settings: Settings) -> None:
    api = quota_api(settings, create_token="maker", games_per_address=0, games_per_token=2)
    problem(create(api), 401, "token_required")
    problem(create(api, token="guess"), 403, "create_not_allowed")
    assert create(api, token="maker").status_code == 201
    assert create(api, token="admin-secret").status_code == 201  # the operator may too
    assert create(api, token="maker").status_code == 201
    problem(create(api, token="maker"), 429, "game_quota_exceeded")
