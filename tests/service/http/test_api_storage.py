"""What one creator can leave stored is bounded, and finished games expire (issue 36, item 3).

A flood of create-then-resign from one address kept every game for ever
(quotas counted active games only), and one tournament of 960 games added
223 MB. Now a finished game's keys expire after the retention, each creator
may create ``stored_games_per_*`` games within the retention horizon (a
tournament's every game counted at its creation), no game is created while
Redis is past its high-water mark, and ``/metrics`` shows Redis's memory and
its keys by kind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as redis_lib
from flask import Flask

from service.http.app import create_app
from service.settings import Settings
from service.store.keys import KeySpace
from tests.private_redis import private_redis
from tests.service.api_helpers import ApiClient, problem

QUICK = {"setup": "deal", "starting_armies": 14}
THREE_BOTS = [{"bot": "random"}, {"bot": "random"}, {"bot": "heuristic"}]


@pytest.fixture
def budget(settings: Settings, redis: redis_lib.Redis) -> Iterator[ApiClient]:
    app: Flask = create_app(
        dataclasses.replace(
            settings, games_per_address=100, stored_games_per_address=10, finished_game_days=1
        )
    )
    yield ApiClient(app.test_client())
    app.extensions["risk"].offload.close()
    app.extensions["risk"].redis.close()


def resign_all_but_one(api: ApiClient, game: str, tokens: dict[str, str]) -> None:
    for token in list(tokens.values())[1:]:
        answer = api.command(game, token, {"type": "resign"})
        assert answer.status_code == 200, answer.json


def test_a_create_and_resign_flood_stops_at_the_addresss_budget(
    budget: ApiClient, redis: redis_lib.Redis, key_prefix: str
) -> None:
    """Ten games within the horizon, finished or not; the eleventh is refused and the
    store holds ten games' keys, each finished one expiring within a day."""
    created = []
    for _ in range(10):
        game, tokens = budget.create(3, rules=QUICK)
        resign_all_but_one(budget, game, tokens)
        created.append(game)
    refused = budget.post("/v1/games", json={"seats": [{"kind": "human"}] * 3, "rules": QUICK})
    problem(refused, 429, "storage_quota_exceeded")
    keys = KeySpace(key_prefix)
    metas = redis.scan_iter(f"{key_prefix}:*:game:*:meta")
    stored = {k.decode().split(":game:")[1].split(":")[0] for k in metas}
    assert stored == set(created)
    for game in created:
        assert budget.get(f"/v1/games/{game}").json["status"] == "finished"
        for key in keys.retained(game):
            if redis.exists(key):
                assert 0 < redis.ttl(key) <= 86400, key


def test_a_tournament_counts_each_game_of_its_schedule(budget: ApiClient) -> None:
    """Four entrants of three players: 12 games (4 pairings x 3 orders), over a budget of 10."""
    entrants = [*THREE_BOTS, {"bot": "random"}]
    body = {"entrants": entrants, "players": 3, "parallel": 1}
    problem(budget.post("/v1/tournaments", json=body), 429, "storage_quota_exceeded")
    budget.create(3, rules=QUICK)  # and the refusal took nothing from the budget
    small = budget.post("/v1/tournaments", json={"entrants": THREE_BOTS, "players": 3})
    assert small.status_code == 201, small.json


def test_an_expired_game_leaves_the_listing(api: ApiClient, redis: redis_lib.Redis) -> None:
    game, tokens = api.create(3, rules=QUICK)
    resign_all_but_one(api, game, tokens)
    for key in redis.scan_iter(f"*{game}*"):
        redis.delete(key)  # what its TTL does after the retention
    listed = api.get("/v1/games", query_string={"status": "finished"}).json["games"]
    assert game not in {g["game_id"] for g in listed}
    assert not [k for k in redis.scan_iter("*:dir:*") if redis.zcard(k)]


def test_no_game_is_created_past_redis_high_water_mark(tmp_path: Path, key_prefix: str) -> None:
    """A Redis of 2 MB (maxmemory) already uses more than half of it: a new game is a 503
    with Retry-After, the API and /metrics still answer."""
    with private_redis(tmp_path, "--maxmemory", "2mb", aof=False) as store:
        settings = Settings(redis_url=store.url, key_prefix=key_prefix, create_memory_percent=40)
        app: Flask = create_app(settings)
        api = ApiClient(app.test_client())
        refused = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 3})
        problem(refused, 503, "store_full")
        assert int(refused.headers["Retry-After"]) > 0
        metrics = api.get("/metrics").get_data(as_text=True)
        assert "risk_redis_used_memory_bytes" in metrics
        assert "risk_redis_maxmemory_bytes 2097152" in metrics
        app.extensions["risk"].offload.close()
        app.extensions["risk"].redis.close()


def test_metrics_count_the_keys_by_kind(api: ApiClient) -> None:
    api.create(3, rules=QUICK)
    metrics = api.get("/metrics").get_data(as_text=True)
    for kind in ("events", "meta", "info", "seats"):
        assert f'risk_redis_keys_by_kind{{kind="{kind}"}} 1' in metrics, metrics[-2000:]


@pytest.fixture
def agreed(settings: Settings, redis: redis_lib.Redis) -> Iterator[ApiClient]:
    """Budgets of two stored games an account (RISK_STORED_GAMES_PER_TOKEN) and an
    address; active games counted (a budget is kept only where they are)."""
    app: Flask = create_app(
        dataclasses.replace(
            settings,
            games_per_address=100,
            stored_games_per_address=2,
            stored_games_per_token=2,
        )
    )
    yield ApiClient(app.test_client())
    app.extensions["risk"].offload.close()
    app.extensions["risk"].redis.close()
    app.extensions["risk"].archive.engine.dispose()


def new_account(api: ApiClient, name: str) -> str:
    made = api.post("/v1/accounts", json={"name": name})
    assert made.status_code == 201, made.json
    token: str = made.json["token"]
    return token


def test_challenges_games_count_against_the_challengers_stored_games(agreed: ApiClient) -> None:
    """Issue 49: a challenge's game is stored like a created one, on the challenger's
    account's budget: checked when it challenges (the same 429 `storage_quota_exceeded`
    as POST /v1/games), counted when the last seat is accepted, and never refused then
    (a game everyone agreed to is made: both pending challenges' games are)."""
    ada, bo = new_account(agreed, "Ada"), new_account(agreed, "Bo")
    pending = []
    for _ in range(3):  # pending challenges store no game: none is counted yet
        made = agreed.post("/v1/challenges", json={"opponents": ["Bo"]}, token=ada)
        assert made.status_code == 201, made.json
        pending.append(made.json["challenge"]["id"])
    for challenge_id in pending:  # the third game too: it was agreed to
        answered = agreed.post(f"/v1/challenges/{challenge_id}/accept", token=bo)
        assert answered.status_code == 200 and answered.json["game"], answered.json
    refused = agreed.post("/v1/challenges", json={"open": True}, token=ada)
    problem(refused, 429, "storage_quota_exceeded")
    again = agreed.post("/v1/challenges", json={"opponents": ["Ada"]}, token=bo)
    assert again.status_code == 201, again.json  # the budget is the challenger's only


def test_quick_pairings_games_count_against_each_seekers_stored_games(agreed: ApiClient) -> None:
    """Issue 49: a paired game is stored on each seeker's budget (its account's, or an
    anonymous seeker's address's, once however many seekers it sent): two games, paired
    with another seeker or filled with a bot when the wait is over, and the next seek is
    refused as a creation over budget is."""
    ada, bo = new_account(agreed, "Ada"), new_account(agreed, "Bo")
    body = {"mode": "two_player", "rated": False}
    for token in (ada, bo):
        assert agreed.post("/v1/pairing", json=body, token=token).status_code == 201
    alone = agreed.post("/v1/pairing", json=body | {"wait": 0}, token=ada)
    assert alone.status_code == 201, alone.json
    pairing = agreed.client.application.extensions["risk"].pairing
    assert pairing.fill_due() == 1  # its wait is over: a bot takes the other seat
    problem(agreed.post("/v1/pairing", json=body, token=ada), 429, "storage_quota_exceeded")
    room = agreed.post("/v1/pairing", json=body, token=bo)  # Bo's one game: room for another
    assert room.status_code == 201, room.json
    assert agreed.call("DELETE", room.json["seek"]["url"]).status_code == 204
    guests = [agreed.post("/v1/pairing", json=body | {"name": n}) for n in ("Gil", "Hal")]
    assert [g.json["seek"]["status"] for g in guests] == ["waiting", "paired"]
    assert agreed.post("/v1/pairing", json=body | {"name": "Ivy"}).status_code == 201
    assert agreed.post("/v1/pairing", json=body | {"name": "Jo"}).status_code == 201  # paired
    refused = agreed.post("/v1/pairing", json=body | {"name": "Kit"})
    problem(refused, 429, "storage_quota_exceeded")
    two = {"seats": [{"kind": "human"}] * 2, "mode": "two_player"}
    created = agreed.post("/v1/games", json=two)
    problem(created, 429, "storage_quota_exceeded")  # the address's budget is one budget
