"""The quick-pairing queue over the API (issue 49), responses held to openapi.yaml:
seekers of one mode and seat count are paired as soon as a game is full, in the order
they came, with their seats bound to their accounts (or to the seat token a seeker
without an account was given); when a wait ends, bots of the seeker's level fill the
seats left; an account seeks once at a time, leaves while waiting, and a match whose
maker died is finished by the next reader or the sweep."""

from __future__ import annotations

from typing import Any

from flask import Flask
from freezegun import freeze_time

from service.store.pairing import Seek
from tests.service.api_helpers import ApiClient, problem
from tests.service.http.test_api_accounts import account


def seek(api: ApiClient, token: str | None = None, **body: Any) -> dict[str, Any]:
    response = api.post("/v1/pairing", json=body, token=token)
    assert response.status_code == 201, response.json
    assert response.headers["Location"] == f"/v1/pairing/{response.json['seek']['id']}"
    document: dict[str, Any] = response.json
    return document


def seek_now(api: ApiClient, seek_id: str) -> dict[str, Any]:
    response = api.get(f"/v1/pairing/{seek_id}")
    assert response.status_code == 200, response.json
    document: dict[str, Any] = response.json["seek"]
    return document


def viewer(api: ApiClient, game: str, token: str) -> str:
    seat: str = api.get(f"/v1/games/{game}", token=token).json["viewer"]
    return seat


def test_three_accounts_are_paired_in_the_order_they_came(api: ApiClient) -> None:
    tokens = [account(api, name) for name in ("Ada", "Bo", "Carol")]
    first = seek(api, tokens[0], mode="classic", players=3)
    assert first["token"] is None  # an account's token plays its seat
    assert (first["seek"]["status"], first["seek"]["waiting"], first["seek"]["rated"]) == (
        "waiting",
        1,
        True,
    )
    assert first["seek"]["game_id"] is None
    assert seek(api, tokens[1], players=3)["seek"]["waiting"] == 2
    last = seek(api, tokens[2], players=3)["seek"]
    assert last["status"] == "paired" and last["seat"] == "p3"
    game = last["game_id"]
    seeks = [seek_now(api, first["seek"]["id"]), seek_now(api, last["id"])]
    assert [s["game_id"] for s in seeks] == [game, game]
    assert [viewer(api, game, token) for token in tokens] == ["p1", "p2", "p3"]
    summary = api.get(f"/v1/games/{game}").json
    assert [s["name"] for s in summary["seats"]] == ["Ada", "Bo", "Carol"]
    assert summary["status"] == "running"


def test_seekers_without_an_account_get_a_seat_token_and_a_casual_game(api: ApiClient) -> None:
    first = seek(api, mode="two_player", name="Guest")
    assert first["token"].startswith("rsk_") and first["seek"]["rated"] is False
    second = seek(api, players=2)  # two players: the two-player game
    assert second["seek"]["status"] == "paired" and second["seek"]["mode"] == "two_player"
    game = second["seek"]["game_id"]
    assert viewer(api, game, first["token"]) == "p1"
    assert viewer(api, game, second["token"]) == "p2"
    assert api.get(f"/v1/games/{game}").json["seats"][0]["name"] == "Guest"
    problem(api.post("/v1/pairing", json={"rated": True}), 400, "rated_needs_account")


def test_bots_fill_the_seats_left_when_the_wait_is_over(app: Flask, api: ApiClient) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    pairing = app.extensions["risk"].pairing
    with freeze_time("2026-12-08 09:00:00") as clock:
        patient = seek(api, ada, players=4, wait=600)["seek"]
        clock.tick(1)
        hurried = seek(api, bo, players=4, wait=5, level="hard")["seek"]
        assert hurried["fill_at"] == "2026-12-08T09:00:06.000+00:00"
        assert pairing.fill_due() == 0  # nobody's wait is over
        clock.tick(5)
        assert pairing.fill_due() == 1
    paired = [seek_now(api, patient["id"]), seek_now(api, hurried["id"])]
    assert [(s["status"], s["seat"]) for s in paired] == [("paired", "p1"), ("paired", "p2")]
    game = api.get(f"/v1/games/{paired[0]['game_id']}").json
    assert [(s["name"], s["controller"], s["level"]) for s in game["seats"]] == [
        ("Ada", "human", None),
        ("Bo", "human", None),
        ("bot-hard", "bot", "hard"),
        ("bot-hard", "bot", "hard"),
    ]


def test_an_account_seeks_once_and_leaves_while_waiting(api: ApiClient) -> None:
    ada = account(api, "Ada")
    waiting = seek(api, ada, players=3)["seek"]
    held = problem(api.post("/v1/pairing", json={"players": 3}, token=ada), 409, "already_seeking")
    assert waiting["id"] in held["detail"]
    assert api.call("DELETE", f"/v1/pairing/{waiting['id']}").status_code == 204
    assert api.call("DELETE", f"/v1/pairing/{waiting['id']}").status_code == 204
    assert seek_now(api, waiting["id"])["status"] == "left"
    again = seek(api, ada, mode="two_player")["seek"]  # rated: an account's default
    assert seek(api, mode="two_player")["seek"]["status"] == "waiting"  # casual: not paired
    paired = seek(api, account(api, "Bo"), mode="two_player")["seek"]
    assert paired["status"] == "paired"
    problem(api.call("DELETE", f"/v1/pairing/{again['id']}"), 409, "already_paired")
    problem(api.get("/v1/pairing/pk_nobody"), 404, "seek_not_found")
    problem(api.call("DELETE", "/v1/pairing/pk_nobody"), 404, "seek_not_found")
    problem(api.post("/v1/pairing", json={"name": "X"}, token=ada), 400, "invalid_body")
    problem(
        api.post("/v1/pairing", json={"mode": "two_player", "players": 3}),
        400,
        "invalid_rule_option",
    )
    problem(api.post("/v1/pairing", json={"wait": 601}), 400, "invalid_body")


def test_a_match_whose_maker_died_is_finished_by_the_next_reader(
    app: Flask, api: ApiClient
) -> None:
    """The script matched two seekers, and the process that should have made the game
    died before it did: the game is made by the next read of a seek (or the sweep)."""
    pairing = app.extensions["risk"].pairing
    queue = pairing.queue
    for index in (1, 2):
        made = Seek(f"pk_lost{index}", "two_player", 2, False, "easy", 0, index, index)
        queue.join(made, "g00000000000000aa", 600_000)
    assert queue.seek("pk_lost1").status == "matched"
    assert api.get("/v1/games/g00000000000000aa").status_code == 404
    assert pairing.recover() == 1  # the sweep's way (the match is older than 10 s)
    shown = seek_now(api, "pk_lost2")
    assert (shown["status"], shown["game_id"], shown["seat"]) == (
        "paired",
        "g00000000000000aa",
        "p2",
    )
    assert api.get("/v1/games/g00000000000000aa").json["status"] == "running"
