"""Records over the API (issue 7): 20 seeded games played through HTTP,
downloaded, and verified offline; the verify endpoint agrees."""

from __future__ import annotations

import json
import random

import pytest
from flask import Flask

from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.games import GameService
from tests.service.api_helpers import ApiClient

GAMES, CHUNKS = 20, 4


def play_through_http(api: ApiClient, service: GameService, index: int) -> str:
    """Every command goes over HTTP; the random bot picks it from the seat's legal actions."""
    seats = [{"kind": "human", "seed": f"{index:02x}{n:02x}" * 8} for n in range(3)]
    game, tokens = api.create(seats)
    bot, rng = get_bot("random"), random.Random(index)
    for _ in range(20_000):
        state = service.load(game).state
        if state.phase == FINISHED:
            return game
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        response = api.command(game, tokens[seat], body, **{"If-Match": f'"{state.version}"'})
        assert response.status_code == 200, response.json
    raise AssertionError(f"game {game} did not finish")


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_games_played_over_http_verify_offline(
    app: Flask, service: GameService, chunk: int
) -> None:
    api = ApiClient(app.test_client(), sample=50)
    for index in range(chunk * GAMES // CHUNKS, (chunk + 1) * GAMES // CHUNKS):
        game = play_through_http(api, service, index)
        response = api.get(f"/v1/games/{game}/record")
        assert response.status_code == 200
        assert response.mimetype == "application/x-ndjson"
        text = response.get_data(as_text=True)
        header = json.loads(text.splitlines()[0])
        assert header["complete"] is True and len(header["player_seeds"]) == 3
        verdict = verify_text(text)
        assert verdict.ok, verdict.divergence
        assert set(verdict.checks.values()) == {"passed"}
        served = api.post(
            "/v1/records/verify", data=text, headers={"Content-Type": "application/x-ndjson"}
        )
        assert served.status_code == 200 and served.json["ok"] is True


def test_a_running_games_record_is_redacted_and_valid_but_not_final(api: ApiClient) -> None:
    game, tokens = api.create(3)
    response = api.get(f"/v1/games/{game}/record", token=tokens["p1"])
    lines = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    assert lines[0]["redacted"] is True and lines[0]["complete"] is False
    assert "seed" not in lines[-1]
    verdict = api.post(
        "/v1/records/verify",
        data=response.get_data(),
        headers={"Content-Type": "application/x-ndjson"},
    ).json
    assert verdict["ok"] is False and verdict["divergence"] is None
    assert verdict["status"] == "not_final"


def test_a_tampered_record_is_named_by_the_verify_endpoint(api: ApiClient) -> None:
    verdict = api.post(
        "/v1/records/verify", data="not a record", headers={"Content-Type": "text/plain"}
    ).json
    assert verdict["ok"] is False and verdict["checks"]["structure"] == "failed"


def test_verify_refuses_json_bodies(api: ApiClient) -> None:
    response = api.post("/v1/records/verify", json={"record": "x"})
    assert response.status_code == 415


def test_the_summary_of_a_game_is_public_and_adds_up(api: ApiClient, service: GameService) -> None:
    game = play_through_http(api, service, 99)
    summary = api.get(f"/v1/games/{game}/summary").json
    assert summary["winner"] == service.load(game).state.winner
    players = summary["players"].values()
    assert sum(p["armies_destroyed"] for p in players) == sum(p["armies_lost"] for p in players)
    assert all(sum(t["territories"].values()) == 42 for t in summary["timeline"])


def test_the_head_a_command_response_gave_anchors_the_record(
    api: ApiClient, service: GameService
) -> None:
    """Issue 13 item 3: command responses and event feeds publish the head hash, and
    the verify endpoint checks that a record contains it."""
    game, tokens = api.create(3)
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    body = legal_actions(service.load(game).state, seat)[0]["command"]
    head = api.command(game, tokens[seat], body).json["head"]
    assert head == service.load(game).hash.hex()
    assert api.get(f"/v1/games/{game}/events").json["head"] == head
    record = api.get(f"/v1/games/{game}/record").get_data()
    ndjson = {"Content-Type": "application/x-ndjson"}
    kept = api.post(f"/v1/records/verify?expect_head={head}", data=record, headers=ndjson).json
    assert kept["status"] == "not_final" and kept["checks"]["anchor"] == "passed"
    other = api.post(f"/v1/records/verify?expect_head={'0' * 64}", data=record, headers=ndjson)
    assert other.json["status"] == "failed" and other.json["divergence"]["check"] == "anchor"
    bad = api.post("/v1/records/verify?expect_head=xyz", data=record, headers=ndjson)
    assert bad.status_code == 400
