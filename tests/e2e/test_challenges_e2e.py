"""End to end (issues 49 and 50), with `risk serve`, a game worker and a webhook worker:
Ada challenges Bo, Bo's endpoint receives `challenge.received` (signed), Bo accepts,
Ada's endpoint hears `challenge.accepted` with the game, and both play their seats by
HTTP with their account tokens until Bo resigns and both ratings change; someone
without an account takes Ada's open link and plays with the seat token it got; and a
seeker in the quick-pairing queue is paired with bots by the worker when its wait is
over, then plays its seat."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import redis as redis_lib
from standardwebhooks.webhooks import Webhook

from service.store.keys import KeySpace
from tests.e2e.conftest import Stack, free_port, http, wait_ready
from tests.e2e.test_webhooks_e2e import wait_for_feed
from tests.webhook_receiver import receiver

pytestmark = pytest.mark.e2e


def ok(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    status, answer = http(method, url, body, token)
    assert 200 <= status < 300, (method, url, status, answer)
    return answer


def play(url: str, game: str, tokens: list[str], moves: int, seconds: float = 120) -> None:
    """Each token's seat makes at least ``moves`` commands (its first legal action but
    a resignation) as its turns come, in whatever order the game asks; bot seats play
    between (the worker)."""
    made = dict.fromkeys(tokens, 0)
    end = time.monotonic() + seconds
    while min(made.values()) < moves:
        assert time.monotonic() < end, f"{made} moves in {seconds} s"
        moved = False
        for token in tokens:
            legal = ok("GET", f"{url}/v1/games/{game}/legal-actions", token=token)
            actions = [a["command"] for a in legal["actions"] if a["command"]["type"] != "resign"]
            if not actions:
                continue  # (a seat that made its moves still moves: the others wait for it)
            status, sent = http("POST", f"{url}/v1/games/{game}/commands", actions[0], token)
            assert status in (200, 409, 422), sent  # another seat may have moved first
            made[token] += status == 200
            moved = True
        if not moved:
            since = legal["version"]
            ok("GET", f"{url}/v1/games/{game}/events?since={since}&wait=2", token=tokens[0])


def test_two_accounts_play_a_challenge_and_a_guest_takes_an_open_link(
    stack_env: dict[str, str], redis: redis_lib.Redis, tmp_path: Path
) -> None:
    env = stack_env | {"RISK_WEBHOOK_ALLOW_PRIVATE": "1"}
    port = free_port()
    stack = Stack(env, url=f"http://127.0.0.1:{port}", logs=tmp_path)
    url = stack.url
    with receiver((200, {}, 0.0)) as hook:
        try:
            stack.start("api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1")
            stack.start("worker", "worker", "--log-level", "WARNING")
            stack.start("webhooks", "worker", "--webhooks", "--log-level", "WARNING")
            wait_ready(url)
            wait_for_feed(redis, KeySpace(env["RISK_KEY_PREFIX"]))
            ada = ok("POST", f"{url}/v1/accounts", {"name": "Ada"})["token"]
            bo = ok("POST", f"{url}/v1/accounts", {"name": "Bo"})["token"]
            secrets = {}
            for who, event in (("Ada", "challenge.accepted"), ("Bo", "challenge.received")):
                token = ada if who == "Ada" else bo
                body = {"url": hook.url, "events": [event]}
                secrets[event] = ok("POST", f"{url}/v1/webhooks", body, token)["secret"]

            made = ok("POST", f"{url}/v1/challenges", {"opponents": ["Bo"]}, ada)["challenge"]
            [incoming] = ok("GET", f"{url}/v1/challenges", token=bo)["incoming"]
            assert incoming["id"] == made["id"] and incoming["challenger"]["name"] == "Ada"
            answered = ok("POST", f"{url}/v1/challenges/{made['id']}/accept", {}, bo)
            game = answered["game"]["game_id"]
            assert answered["game"]["mode"] == "two_player" and answered["game"]["rated"]

            messages = {}
            for got in hook.wait_for(2, timeout=30):
                event = json.loads(got.body)["type"]
                Webhook(secrets[event]).verify(got.body, got.headers)  # signed, or raises
                messages[event] = json.loads(got.body)["data"]
            assert messages["challenge.received"]["challenge_id"] == made["id"]
            assert messages["challenge.accepted"]["game_id"] == game

            play(url, game, [ada, bo], 3)
            ok("POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, bo)
            final = ok("GET", f"{url}/v1/games/{game}", token=ada)
            assert final["status"] == "finished" and final["winner"] == "p1"
            for name, won in (("Ada", True), ("Bo", False)):
                rating = ok("GET", f"{url}/v1/players/{name}")["ratings"]["two_player"]
                assert rating["games"] == 1 and (rating["mu"] > 25) == won

            link = ok("POST", f"{url}/v1/challenges", {"open": True, "rated": False}, ada)
            link_id = link["challenge"]["id"]
            shown = ok("GET", f"{url}/v1/challenges/{link_id}")  # anyone with the link
            assert shown["challenge"]["open_seats"] == 1
            taken = ok("POST", f"{url}/v1/challenges/{link_id}/accept", {"name": "Guest"})
            guest, open_game = taken["token"], taken["game"]["game_id"]
            assert taken["seat"] == "p2" and guest.startswith("rsk_")
            play(url, open_game, [ada, guest], 2)
            view = ok("GET", f"{url}/v1/games/{open_game}", token=guest)
            assert view["viewer"] == "p2" and view["version"] > answered["game"]["version"]
        finally:
            stack.stop_all()


def test_a_seeker_is_paired_with_bots_when_its_wait_is_over(stack: Stack) -> None:
    url = stack.url
    carol = ok("POST", f"{url}/v1/accounts", {"name": "Carol"})["token"]
    body = {"mode": "classic", "players": 3, "wait": 2, "level": "easy"}
    seek = ok("POST", f"{url}/v1/pairing", body, carol)["seek"]
    assert seek["status"] == "waiting" and seek["waiting"] == 1
    end = time.monotonic() + 60
    while seek["status"] != "paired":
        assert time.monotonic() < end, seek
        time.sleep(0.5)
        seek = ok("GET", f"{url}/v1/pairing/{seek['id']}")["seek"]
    game = ok("GET", f"{url}/v1/games/{seek['game_id']}", token=carol)
    assert game["viewer"] == "p1"
    assert [s["controller"] for s in game["seats"]] == ["human", "bot", "bot"]
    assert {s["level"] for s in game["seats"][1:]} == {"easy"}
    play(url, seek["game_id"], [carol], 3)  # the worker's bots play between
