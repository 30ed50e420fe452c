"""Webhooks over the API (issue 50): register (secret shown once, SSRF refused), list,
rotate, delete, deliveries and redelivery, all under the scope `webhook:manage`; a
challenge makes its `challenge.accepted` delivery."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from flask import Flask

from riskcore.model.state import FINISHED
from service.application.webhooks import WebhookSettings
from tests.service.api_helpers import ApiClient, problem
from tests.service.http.test_api_accounts import account, scoped
from tests.webhook_receiver import receiver
from workers.webhooks import Courier

HOOK = "http://127.0.0.1:9/hooks/risk"


@pytest.fixture(autouse=True)
def private_allowed(app: Flask) -> None:
    """What RISK_WEBHOOK_ALLOW_PRIVATE=1 sets: these tests' receivers are local."""
    webhooks = app.extensions["risk"].webhooks
    webhooks.settings = replace(webhooks.settings, allow_private=True)


def register(api: ApiClient, token: str, *events: str) -> dict[str, object]:
    body = {"url": HOOK, "events": list(events or ["game.finished"])}
    response = api.post("/v1/webhooks", json=body, token=token)
    assert response.status_code == 201, response.json
    document: dict[str, object] = response.json
    return document


def test_an_endpoint_is_registered_listed_rotated_and_deleted(api: ApiClient) -> None:
    owner = account(api)
    created = api.post(
        "/v1/webhooks",
        json={"url": HOOK, "events": ["game.finished", "turn.started"], "description": "bot"},
        token=owner,
    )
    assert created.status_code == 201
    hook = created.json
    assert hook["secret"].startswith("whsec_") and created.headers["Location"].endswith(hook["id"])
    assert hook["events"] == ["turn.started", "game.finished"] and hook["disabled"] is None
    [listed] = api.get("/v1/webhooks", token=owner).json["webhooks"]
    assert listed["id"] == hook["id"] and "secret" not in listed
    rotated = api.post(f"/v1/webhooks/{hook['id']}/rotate", token=owner)
    assert rotated.status_code == 200
    assert rotated.json["secret"].startswith("whsec_") and rotated.json["secret"] != hook["secret"]
    assert rotated.json["previous_expires"] > hook["created"]
    assert api.call("DELETE", f"/v1/webhooks/{hook['id']}", token=owner).status_code == 204
    gone = api.call("DELETE", f"/v1/webhooks/{hook['id']}", token=owner)
    assert problem(gone, 404, "webhook_not_found")
    assert api.get("/v1/webhooks", token=owner).json["webhooks"] == []


def test_the_scope_webhook_manage_is_needed(api: ApiClient) -> None:
    owner = account(api)
    _, reader = scoped(api, owner, "read", "game:create")
    refused = api.post(
        "/v1/webhooks", json={"url": HOOK, "events": ["game.finished"]}, token=reader
    )
    assert problem(refused, 403, "missing_scope")["scope"] == "webhook:manage"
    assert api.get("/v1/webhooks", token=reader).status_code == 403
    _, manager = scoped(api, owner, "webhook:manage")
    assert api.get("/v1/webhooks", token=manager).status_code == 200


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/h", "http://10.0.0.1/h", "http://169.254.169.254/latest/meta-data"]
)
def test_private_urls_are_refused_without_the_setting(api: ApiClient, app: Flask, url: str) -> None:
    app.extensions["risk"].webhooks.settings = WebhookSettings()
    refused = api.post(
        "/v1/webhooks", json={"url": url, "events": ["game.finished"]}, token=account(api)
    )
    assert problem(refused, 422, "unsafe_webhook_url")


def test_unknown_event_types_are_a_bad_body(api: ApiClient) -> None:
    refused = api.post(
        "/v1/webhooks", json={"url": HOOK, "events": ["game.exploded"]}, token=account(api)
    )
    assert problem(refused, 400, "invalid_body")


def test_another_accounts_endpoint_is_not_found(api: ApiClient) -> None:
    hook = register(api, account(api, "Ada"))
    other = account(api, "Bob")
    for method, path in [
        ("DELETE", f"/v1/webhooks/{hook['id']}"),
        ("POST", f"/v1/webhooks/{hook['id']}/rotate"),
        ("GET", f"/v1/webhooks/{hook['id']}/deliveries"),
    ]:
        assert problem(api.call(method, path, token=other), 404, "webhook_not_found")


def test_a_challenge_makes_a_delivery_that_can_be_redelivered(api: ApiClient) -> None:
    owner = account(api)
    hook = register(api, owner, "challenge.accepted")
    made = api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner)
    assert made.status_code == 201, made.json
    [delivery] = api.get(f"/v1/webhooks/{hook['id']}/deliveries", token=owner).json["deliveries"]
    assert (delivery["type"], delivery["status"], delivery["attempts"]) == (
        "challenge.accepted",
        "pending",
        0,
    )
    again = api.post(
        f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", token=owner
    )
    assert again.status_code == 202 and again.json["id"] == delivery["id"]
    missing = api.post(f"/v1/webhooks/{hook['id']}/deliveries/msg_none/redeliver", token=owner)
    assert problem(missing, 404, "webhook_not_found")


def test_patch_disables_enables_and_changes_an_endpoint(api: ApiClient, app: Flask) -> None:
    """Issue 50: an endpoint disabled (here after a 410) comes back with
    `PATCH {"enabled": true}`, its failure forgotten; url, events and description
    change too, and a new URL is checked like a registered one."""
    owner = account(api)
    hook = register(api, owner, "challenge.accepted")
    path = f"/v1/webhooks/{hook['id']}"
    webhooks = app.extensions["risk"].webhooks
    webhooks.store.disable(hook["id"], 1_000, "the receiver answered 410 Gone")
    [listed] = api.get("/v1/webhooks", token=owner).json["webhooks"]
    assert listed["enabled"] is False
    assert listed["disabled_reason"] == "the receiver answered 410 Gone"
    assert api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner).status_code == 201
    assert api.get(f"{path}/deliveries", token=owner).json["deliveries"] == []  # disabled

    enabled = api.call("PATCH", path, json={"enabled": True}, token=owner)
    assert enabled.status_code == 200, enabled.json
    assert enabled.json["enabled"] is True
    assert (enabled.json["disabled"], enabled.json["disabled_reason"]) == (None, None)
    assert enabled.json["failing_since"] is None and "secret" not in enabled.json
    assert api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner).status_code == 201
    [delivery] = api.get(f"{path}/deliveries", token=owner).json["deliveries"]
    assert delivery["type"] == "challenge.accepted"

    off = api.call("PATCH", path, json={"enabled": False}, token=owner).json
    assert off["enabled"] is False and off["disabled_reason"] == "disabled by its owner"
    changed = api.call(
        "PATCH",
        path,
        json={"url": HOOK + "/v2", "events": ["game.finished"], "description": "v2"},
        token=owner,
    ).json
    assert (changed["url"], changed["events"], changed["description"]) == (
        HOOK + "/v2",
        ["game.finished"],
        "v2",
    )
    assert changed["enabled"] is False  # only `enabled` turns it on again
    cleared = api.call("PATCH", path, json={"description": None}, token=owner).json
    assert cleared["description"] is None and cleared["url"] == HOOK + "/v2"


def test_patch_refuses_nothing_to_change_a_private_url_and_a_stranger(
    api: ApiClient, app: Flask
) -> None:
    owner = account(api, "Ada")
    hook = register(api, owner)
    path = f"/v1/webhooks/{hook['id']}"
    assert problem(api.call("PATCH", path, json={}, token=owner), 400, "invalid_body")
    not_a_bool = api.call("PATCH", path, json={"enabled": "yes"}, token=owner)
    assert problem(not_a_bool, 400, "invalid_body")
    app.extensions["risk"].webhooks.settings = WebhookSettings()
    private = api.call("PATCH", path, json={"url": "http://10.0.0.1/h"}, token=owner)
    assert problem(private, 422, "unsafe_webhook_url")
    other = account(api, "Bob")
    stranger = api.call("PATCH", path, json={"enabled": False}, token=other)
    assert problem(stranger, 404, "webhook_not_found")
    [listed] = api.get("/v1/webhooks", token=owner).json["webhooks"]
    assert (listed["url"], listed["enabled"]) == (HOOK, True)  # nothing changed


def test_game_created_is_made_when_a_game_waiting_for_players_is_created(
    api: ApiClient, app: Flask
) -> None:
    """Issue 50: `game.created` when the game is created, though it begins (and makes
    `game.started`) only once its open seats are taken."""
    owner = account(api)
    hook = register(api, owner, "game.created", "game.started")
    seats = [{"kind": "human"}, {"kind": "open"}]
    made = api.post("/v1/games", json={"seats": seats, "mode": "two_player"}, token=owner)
    assert made.status_code == 201, made.json
    assert made.json["game"]["status"] == "open"
    [delivery] = api.get(f"/v1/webhooks/{hook['id']}/deliveries", token=owner).json["deliveries"]
    assert (delivery["type"], delivery["status"]) == ("game.created", "pending")
    row = app.extensions["risk"].webhooks.store.delivery(delivery["id"])
    payload = json.loads(row.payload)
    assert payload["data"]["game_id"] == made.json["game"]["game_id"]
    assert payload["data"]["seat"] == "p1"


def test_an_account_that_creates_a_game_for_others_hears_of_it_without_a_seat(
    api: ApiClient, app: Flask
) -> None:
    """Issue 50: a game the account created is its game though it took no seat (open
    seats only): `game.created` at once, `seat` null; the game keeps its creator."""
    owner = account(api)
    hook = register(api, owner, "game.created")
    seats = [{"kind": "open"}, {"kind": "open"}]
    made = api.post("/v1/games", json={"seats": seats, "mode": "two_player"}, token=owner)
    assert made.status_code == 201, made.json
    game = made.json["game"]["game_id"]
    assert made.json["tokens"] == {}  # no seat of the account's
    [delivery] = api.get(f"/v1/webhooks/{hook['id']}/deliveries", token=owner).json["deliveries"]
    row = app.extensions["risk"].webhooks.store.delivery(delivery["id"])
    assert json.loads(row.payload)["data"] == {
        "game_id": game,
        "seat": None,
        "mode": "two_player",
        "url": f"/v1/games/{game}",
    }
    me = api.get("/v1/account", token=owner).json["account"]["id"]
    assert app.extensions["risk"].games.info(game).creator == me


def test_the_games_of_an_accounts_tournament_are_its_games(api: ApiClient, app: Flask) -> None:
    """Issue 50: a tournament an account created makes each of its games that account's
    (the game's creator), so their webhooks reach it as those of a game it set up do;
    the games started later, read back from the stored tournament, keep it too."""
    owner = account(api)
    me = api.get("/v1/account", token=owner).json["account"]["id"]
    entrants = [{"level": "easy"}, {"bot": "heuristic"}, {"bot": "random"}]
    body = {"entrants": entrants, "players": 3, "parallel": 1}
    made = api.post("/v1/tournaments", json=body, token=owner)
    assert made.status_code == 201, made.json
    risk = app.extensions["risk"]
    tournament = made.json["tournament"]["tournament_id"]
    [first] = [g["game_id"] for g in made.json["tournament"]["games"] if g["game_id"]]
    assert risk.games.info(first).creator == me
    while (state := risk.games.load(first).state).phase != FINISHED:
        risk.games.execute(first, state.current, {"type": "resign"})
    risk.tournaments.advance(tournament)  # the next game, from the stored tournament
    games = risk.tournaments.document(tournament)["games"]
    started = [g["game_id"] for g in games if g["game_id"]]
    assert len(started) == 2 and {risk.games.info(g).creator for g in started} == {me}
    anonymous = api.post("/v1/tournaments", json=body).json["tournament"]["games"][0]["game_id"]
    assert risk.games.info(anonymous).creator is None


def test_deliveries_keep_at_most_1_kb_of_an_answer(api: ApiClient, app: Flask) -> None:
    """Issue 50: the deliveries list shows the receiver's answer, never more than 1 KB
    of it (here a 5,000-byte body)."""
    owner = account(api)
    body = ("x" * 1000 + "y" * 4000).encode()
    with receiver((500, {}, 0.0, body)) as hook:
        made = api.post(
            "/v1/webhooks", json={"url": hook.url, "events": ["challenge.accepted"]}, token=owner
        ).json
        assert api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner).status_code == 201
        path = f"/v1/webhooks/{made['id']}/deliveries"
        [pending] = api.get(path, token=owner).json["deliveries"]
        assert Courier(app.extensions["risk"].webhooks).deliver(pending["id"]) == "retry"
    [delivery] = api.get(path, token=owner).json["deliveries"]
    assert delivery["response_code"] == 500
    assert delivery["response"] == "x" * 1000 + "y" * 24  # the first 1,024 bytes
