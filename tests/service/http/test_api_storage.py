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
