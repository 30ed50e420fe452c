"""End to end (issue 49): an account is made; one call starts a rated game against two
`medium` bots run by a real `risk worker`; the account's token plays its seat by HTTP
(a few claims, then it resigns, and the bots play the game out); the account's rating
and the bot account's change, the leaderboard lists both, a read-only token is refused
a command (403) and a revoked token is refused everything (401)."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import Stack, http

pytestmark = pytest.mark.e2e
FINISH_SECONDS = 300  # two medium bots play the game out (0.25 s of CPU a turn each)


def wait_finished(url: str, game: str, token: str) -> dict[str, object]:
    deadline = time.monotonic() + FINISH_SECONDS
    while time.monotonic() < deadline:
        status, view = http("GET", f"{url}/v1/games/{game}", token=token)
        assert status == 200, view
        if view["status"] == "finished":
            return dict(view)
        version = view["version"]
        http("GET", f"{url}/v1/games/{game}/events?since={version}&wait=10", token=token)
    raise AssertionError(f"{game} did not finish in {FINISH_SECONDS} s")


def test_an_account_plays_a_rated_challenge_against_two_medium_bots(stack: Stack) -> None:
    url = stack.url
    status, made = http("POST", f"{url}/v1/accounts", {"name": "Ada"})
    assert status == 201, made
    token = made["token"]
    status, challenge = http(
        "POST", f"{url}/v1/challenges", {"bots": ["medium", "medium"], "rated": True}, token
    )
    assert status == 201, challenge
    game, seat = challenge["game"]["game_id"], challenge["seat"]
    assert [s["level"] for s in challenge["game"]["seats"]] == [None, "medium", "medium"]

    status, reader = http("POST", f"{url}/v1/tokens", {"scopes": ["read"], "name": "ro"}, token)
    assert status == 201, reader
    status, refused = http(
        "POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, reader["token"]
    )
    assert (status, refused["code"], refused["scope"]) == (403, "missing_scope", "game:play")

    claims = 0
    while claims < 3:  # the account's own moves, by HTTP, when its turn comes
        status, legal = http("GET", f"{url}/v1/games/{game}/legal-actions", token=token)
        assert status == 200 and legal["seat"] == seat
        claiming = [
            a["command"] for a in legal["actions"] if a["command"]["type"] == "claim_territory"
        ]
        if not claiming:
            http(
                "GET", f"{url}/v1/games/{game}/events?since={legal['version']}&wait=5", token=token
            )
            continue
        status, sent = http("POST", f"{url}/v1/games/{game}/commands", claiming[0], token)
        assert status in (200, 409, 422), sent  # a bot may have moved first
        claims += status == 200
    status, sent = http("POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, token)
    assert status == 200, sent
    final = wait_finished(url, game, token)
    assert final["winner"] in ("p2", "p3")

    status, ada = http("GET", f"{url}/v1/players/Ada")
    assert status == 200 and ada["ratings"]["classic"]["games"] == 1
    assert ada["ratings"]["classic"]["mu"] < 25
    status, bot = http("GET", f"{url}/v1/players/bot-medium")
    assert status == 200 and bot["ratings"]["classic"]["mu"] > 25
    status, board = http("GET", f"{url}/v1/leaderboards/classic")
    assert [(p["name"], p["bot"]) for p in board["players"]] == [
        ("bot-medium", True),
        ("Ada", False),
    ]

    status, _ = http("DELETE", f"{url}/v1/tokens/{reader['id']}", token=token)
    assert status == 204
    status, gone = http("GET", f"{url}/v1/games/{game}", token=reader["token"])
    assert (status, gone["code"]) == (401, "invalid_token")
