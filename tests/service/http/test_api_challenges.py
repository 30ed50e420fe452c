"""Challenges of accounts and open links (issue 49), through the real app with every
response held to openapi.yaml: a named account accepts or declines, the challenger
withdraws, a challenge expires, anyone holding an open challenge's link takes its seat
(bound to an account, or with a seat token), the last acceptance makes the game with
every seat bound, and each refusal has its stable code and changes nothing. Issue 50:
`challenge.received` and `challenge.accepted` are delivered to the accounts' webhooks."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from freezegun import freeze_time

from service.application.challenges import MAX_PENDING, challenge_game_id
from service.application.games import SeatPlan
from service.http.app import create_app
from service.settings import Settings
from tests.service.api_helpers import ApiClient, problem, steady
from tests.service.http.test_api_accounts import account, scoped


def challenge(api: ApiClient, token: str, **body: Any) -> dict[str, Any]:
    response = api.post("/v1/challenges", json=body, token=token)
    assert response.status_code == 201, response.json
    assert response.headers["Location"] == f"/v1/challenges/{response.json['challenge']['id']}"
    document: dict[str, Any] = response.json["challenge"]
    return document


def accept(api: ApiClient, challenge_id: str, token: str | None = None, **body: Any) -> Any:
    response = api.post(f"/v1/challenges/{challenge_id}/accept", json=body, token=token)
    assert response.status_code == 200, response.json
    return response.json


def viewer(api: ApiClient, game: str, token: str) -> str:
    view = api.get(f"/v1/games/{game}", token=token)
    assert view.status_code == 200, view.json
    seat: str = view.json["viewer"]
    return seat


def test_a_named_account_accepts_and_the_game_starts_with_both_seats_bound(
    api: ApiClient,
) -> None:
    ada, bo, carol = account(api, "Ada"), account(api, "Bo"), account(api, "Carol")
    made = challenge(api, ada, opponents=["bo"])  # names regardless of case
    assert made["status"] == "pending" and made["mode"] == "two_player"  # two players
    assert [(s["seat"], s["kind"], s["name"], s["answer"]) for s in made["seats"]] == [
        ("p1", "challenger", "Ada", "accepted"),
        ("p2", "named", "Bo", "pending"),
    ]
    [incoming] = api.get("/v1/challenges", token=bo).json["incoming"]
    [outgoing] = api.get("/v1/challenges", token=ada).json["outgoing"]
    assert incoming["id"] == outgoing["id"] == made["id"]
    # nobody else sees it, or may answer it
    problem(api.get(f"/v1/challenges/{made['id']}", token=carol), 404, "challenge_not_found")
    problem(api.get(f"/v1/challenges/{made['id']}"), 404, "challenge_not_found")
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=carol), 403, "not_addressed")
    problem(api.post(f"/v1/challenges/{made['id']}/decline", token=carol), 403, "not_addressed")
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=ada), 400, "self_challenge")

    answered = accept(api, made["id"], bo)
    game = answered["game"]["game_id"]
    assert answered["seat"] == "p2" and answered["token"] is None
    assert answered["challenge"]["status"] == "accepted"
    assert answered["challenge"]["game_id"] == game == challenge_game_id(made["id"])
    assert answered["game"]["rated"] is True and answered["game"]["status"] == "running"
    assert [s["name"] for s in answered["game"]["seats"]] == ["Ada", "Bo"]
    assert viewer(api, game, ada) == "p1" and viewer(api, game, bo) == "p2"
    assert api.get("/v1/challenges", token=bo).json["incoming"] == []  # no longer pending
    [kept] = api.get("/v1/challenges?status=all", token=bo).json["incoming"]
    assert kept["status"] == "accepted"

    again = accept(api, made["id"], bo)  # a retry answers the same, and makes no game
    assert again["game"]["game_id"] == game
    problem(api.post(f"/v1/challenges/{made['id']}/decline", token=bo), 409, "already_answered")
    problem(api.call("DELETE", f"/v1/challenges/{made['id']}", token=ada), 409, "challenge_closed")


def test_the_game_waits_for_every_named_account_and_bots_take_their_seats(
    api: ApiClient,
) -> None:
    ada, bo, carol = account(api, "Ada"), account(api, "Bo"), account(api, "Carol")
    made = challenge(api, ada, opponents=["Bo", "Carol"], bots=["easy"], rated=False)
    assert [s["kind"] for s in made["seats"]] == ["challenger", "named", "named", "bot"]
    assert made["mode"] == "classic"
    first = accept(api, made["id"], carol)
    assert first["game"] is None and first["seat"] == "p3"
    assert first["challenge"]["status"] == "pending"
    last = accept(api, made["id"], bo)
    seats = last["game"]["seats"]
    assert [(s["name"], s["kind"], s["level"]) for s in seats] == [
        ("Ada", "human", None),
        ("Bo", "human", None),
        ("Carol", "human", None),
        ("bot-easy", "bot", "easy"),
    ]
    assert last["game"]["rated"] is False
    assert viewer(api, last["game"]["game_id"], carol) == "p3"


def test_a_decline_ends_the_challenge(api: ApiClient) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    made = challenge(api, ada, opponents=["Bo"])
    declined = api.post(f"/v1/challenges/{made['id']}/decline", token=bo)
    assert declined.status_code == 200
    assert declined.json["challenge"]["status"] == "declined"
    assert declined.json["challenge"]["seats"][1]["answer"] == "declined"
    assert api.post(f"/v1/challenges/{made['id']}/decline", token=bo).status_code == 200
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=bo), 409, "already_answered")
    problem(api.call("DELETE", f"/v1/challenges/{made['id']}", token=ada), 409, "challenge_closed")
    assert api.get("/v1/challenges", token=ada).json["outgoing"] == []


def test_the_challenger_withdraws_a_pending_challenge(api: ApiClient) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    made = challenge(api, ada, opponents=["Bo"])
    problem(api.call("DELETE", f"/v1/challenges/{made['id']}", token=bo), 403, "not_challenger")
    assert api.call("DELETE", f"/v1/challenges/{made['id']}", token=ada).status_code == 204
    assert api.call("DELETE", f"/v1/challenges/{made['id']}", token=ada).status_code == 204
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=bo), 409, "challenge_closed")
    shown = api.get(f"/v1/challenges/{made['id']}", token=bo).json["challenge"]
    assert shown["status"] == "cancelled" and shown["ended"] is not None


def test_a_challenge_expires_unanswered(app: Flask, api: ApiClient) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    with freeze_time("2026-12-08 09:00:00") as clock:
        made = challenge(api, ada, opponents=["Bo"], expires_in=600)
        assert made["expires"] == "2026-12-08T09:10:00.000+00:00"
        clock.tick(601)
        problem(api.post(f"/v1/challenges/{made['id']}/accept", token=bo), 410, "challenge_expired")
        shown = api.get(f"/v1/challenges/{made['id']}", token=ada).json["challenge"]
        assert shown["status"] == "expired"
        assert api.get("/v1/challenges", token=bo).json["incoming"] == []
        problem(
            api.call("DELETE", f"/v1/challenges/{made['id']}", token=ada), 410, "challenge_expired"
        )
        # the workers' sweep writes it down (and would forget it 30 days later)
        challenges = app.extensions["risk"].challenges
        assert challenges.expire() == (1, 0)
        assert challenges.store.get(made["id"]).status == "expired"


def test_an_open_link_is_taken_by_an_account_and_by_someone_without_one(
    api: ApiClient,
) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    made = challenge(api, ada, open=True, open_seats=2, rated=False)
    assert made["open_seats"] == 2 and made["mode"] == "classic"
    shown = api.get(f"/v1/challenges/{made['id']}")  # the link: anyone may look
    assert shown.status_code == 200 and shown.json["challenge"]["open_seats"] == 2
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=ada), 400, "self_challenge")

    guest = accept(api, made["id"], name="Guest")
    assert guest["seat"] == "p2" and guest["token"].startswith("rsk_") and guest["game"] is None
    assert guest["challenge"]["seats"][1]["name"] == "Guest"
    assert "token" not in json.dumps(guest["challenge"])  # never the token, nor its hash
    taken = accept(api, made["id"], bo)
    game = taken["game"]["game_id"]
    assert taken["seat"] == "p3" and taken["challenge"]["open_seats"] == 0
    assert [s["name"] for s in taken["game"]["seats"]] == ["Ada", "Guest", "Bo"]
    assert viewer(api, game, guest["token"]) == "p2"  # the seat token plays its seat
    assert viewer(api, game, bo) == "p3" and viewer(api, game, ada) == "p1"
    carol = account(api, "Carol")
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=carol), 409, "challenge_closed")


def test_an_open_seat_is_taken_once(api: ApiClient) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    rated = challenge(api, ada, open=True)  # rated: its seats are accounts'
    problem(api.post(f"/v1/challenges/{rated['id']}/accept"), 400, "rated_needs_account")
    made = challenge(api, ada, opponents=["Bo"], open=True, rated=False)
    first = accept(api, made["id"], name="Guest")
    problem(api.post(f"/v1/challenges/{made['id']}/accept", json={}), 409, "challenge_full")
    carol = account(api, "Carol")
    problem(api.post(f"/v1/challenges/{made['id']}/accept", token=carol), 409, "challenge_full")
    last = accept(api, made["id"], bo)
    assert first["seat"] == "p3" and last["seat"] == "p2" and last["game"] is not None


def test_refused_challenges_have_stable_codes_and_change_nothing(api: ApiClient) -> None:
    ada = account(api, "Ada")
    account(api, "Bo")
    api.post("/v1/challenges", json={"bots": ["easy"]}, token=ada)  # makes the bot account
    refusals = [
        ({"opponents": ["Nobody"]}, 400, "unknown_player"),
        ({"opponents": ["ada"]}, 400, "self_challenge"),
        ({"opponents": ["bot-easy"]}, 400, "opponent_is_bot"),
        ({"opponents": ["Bo", "bo"]}, 400, "invalid_body"),
        ({}, 400, "invalid_body"),
        ({"open_seats": 2}, 400, "invalid_body"),
        ({"bots": ["easy"], "expires_in": 600}, 400, "invalid_body"),
        ({"opponents": ["Bo"], "bots": ["easy"] * 5}, 400, "invalid_body"),
        ({"opponents": ["Bo"], "mode": "two_player", "bots": ["easy"]}, 400, "invalid_rule_option"),
        ({"open": True, "board": "nowhere"}, 400, "unknown_board"),
    ]
    for body, status, code in refusals:
        problem(api.post("/v1/challenges", json=body, token=ada), status, code)
    listed = api.get("/v1/challenges?status=all", token=ada).json
    assert listed == {"incoming": [], "outgoing": []}
    problem(api.post("/v1/challenges", json={"open": True}), 401, "account_token_required")
    _, reader = scoped(api, ada, "read")
    refused = api.post("/v1/challenges", json={"open": True}, token=reader)
    assert problem(refused, 403, "missing_scope")["scope"] == "game:create"
    problem(api.get("/v1/challenges/ch_unknown", token=ada), 404, "challenge_not_found")
    problem(api.post("/v1/challenges/ch_unknown/accept", token=ada), 404, "challenge_not_found")


def test_an_account_has_at_most_twenty_pending_challenges(api: ApiClient) -> None:
    ada, _ = account(api, "Ada"), account(api, "Bo")
    made = [challenge(api, ada, opponents=["Bo"]) for _ in range(MAX_PENDING)]
    problem(api.post("/v1/challenges", json={"open": True}, token=ada), 429, "too_many_challenges")
    assert api.call("DELETE", f"/v1/challenges/{made[0]['id']}", token=ada).status_code == 204
    challenge(api, ada, open=True)


def test_a_challenger_without_room_for_a_game_is_refused(app: Flask, api: ApiClient) -> None:
    """The game counts against the challenger's account (RISK_GAMES_PER_TOKEN)."""
    ada, bo = account(api, "Ada"), account(api, "Bo")
    risk = app.extensions["risk"]
    risk.challenges._games_per_account = 1
    made = challenge(api, ada, opponents=["Bo"])
    accept(api, made["id"], bo)  # Ada's one active game
    problem(api.post("/v1/challenges", json={"open": True}, token=ada), 429, "game_quota_exceeded")


def test_a_game_made_before_its_maker_died_is_found_not_made_twice(
    app: Flask, api: ApiClient
) -> None:
    """The game id is derived from the challenge's: a start that made the game and died
    before writing it down is finished by the next acceptance."""
    ada, bo = account(api, "Ada"), account(api, "Bo")
    made = challenge(api, ada, opponents=["Bo"])
    service = app.extensions["risk"].games
    game = challenge_game_id(made["id"])
    service.create(seats=[SeatPlan("human"), SeatPlan("human")], mode="two_player", game_id=game)
    answered = accept(api, made["id"], bo)
    assert answered["game"]["game_id"] == game
    assert answered["challenge"]["status"] == "accepted"


@pytest.fixture
def hooks(app: Flask) -> Any:
    webhooks = app.extensions["risk"].webhooks
    webhooks.settings = replace(webhooks.settings, allow_private=True)
    return webhooks


def payloads(hooks: Any, api: ApiClient, token: str, event: str) -> list[dict[str, Any]]:
    """The bodies of the deliveries made for ``token``'s account's endpoint."""
    [endpoint] = api.get("/v1/webhooks", token=token).json["webhooks"]
    rows = hooks.store.deliveries_of(endpoint["id"], 10)
    return [json.loads(r.payload) for r in rows if r.event_type == event]


def test_the_challenged_receive_it_and_the_challenger_hears_each_acceptance(
    api: ApiClient, hooks: Any
) -> None:
    """Issue 50: challenge.received to each named account when it is made;
    challenge.accepted to the challenger per seat accepted, the game's id with the last."""
    ada, bo = account(api, "Ada"), account(api, "Bo")
    for token, event in ((ada, "challenge.accepted"), (bo, "challenge.received")):
        body = {"url": "http://127.0.0.1:9/hooks", "events": [event]}
        assert api.post("/v1/webhooks", json=body, token=token).status_code == 201
    made = challenge(api, ada, opponents=["Bo"], open=True, rated=False)
    [received] = payloads(hooks, api, bo, "challenge.received")
    assert received["type"] == "challenge.received"
    assert received["data"] | {"expires": None} == {
        "challenge_id": made["id"],
        "game_id": None,
        "seat": "p2",
        "challenger": made["challenger"]["id"],
        "challenger_name": "Ada",
        "mode": "classic",
        "rated": False,
        "expires": None,
        "url": f"/v1/challenges/{made['id']}",
    }
    guest = accept(api, made["id"], name="Guest")
    answered = accept(api, made["id"], bo)
    accepted = {
        p["data"]["accepted_by"][0]["seat"]: p["data"]
        for p in payloads(hooks, api, ada, "challenge.accepted")
    }
    assert accepted["p3"]["accepted_by"] == [{"seat": "p3", "account": None, "name": "Guest"}]
    assert accepted["p3"]["game_id"] is None and guest["game"] is None
    game = answered["game"]["game_id"]
    assert accepted["p2"]["game_id"] == game and accepted["p2"]["url"] == f"/v1/games/{game}"
    assert accepted["p2"]["opponents"] == [answered["challenge"]["seats"][1]["account"]]


def test_guessing_challenge_and_seek_ids_is_rate_limited_per_address(
    settings: Settings,
) -> None:
    """An open challenge's id is a link that gives a seat, a seek's id its game: an
    unknown one counts as a guessed token against the address (RISK_RATE_GUESS)."""
    app = create_app(replace(settings, rate_guess=steady(3)))
    try:
        api = ApiClient(app.test_client())
        problem(api.get("/v1/challenges/ch_guess1"), 404, "challenge_not_found")
        problem(api.post("/v1/challenges/ch_guess2/accept"), 404, "challenge_not_found")
        problem(api.get("/v1/pairing/pk_guess3"), 404, "seek_not_found")
        refused = api.get("/v1/pairing/pk_guess4")
        assert problem(refused, 429, "rate_limited") and int(refused.headers["Retry-After"]) > 0
    finally:
        app.extensions["risk"].offload.close()
        app.extensions["risk"].archive.engine.dispose()
