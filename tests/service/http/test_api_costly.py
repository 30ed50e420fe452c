"""What costs CPU is built beside the request, once per game version (issue 36, item 1).

A long game's summary and record are built by the server process's helper
(``service.application.offload``), kept at the game's version (``service.application.computed``) and
read back in chunks; each build costs the address one from its budget of
costly requests (``RISK_COSTLY_IP``), a kept result nothing. The results are
the same as building them in process.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
import redis as redis_lib
from flask import Flask

from riskcore.audit.summary import summarize
from riskcore.bots.base import get_bot
from riskcore.simulate import play_game
from service.application.computed import Computed
from service.application.costly import INLINE_EVENTS, INLINE_RECORD_BYTES
from service.application.games import GameService
from service.application.records import append_simulated, record_text
from service.http.app import create_app
from service.settings import RateLimit, Settings
from service.store.keys import KeySpace
from tests.service.api_helpers import ApiClient, problem

NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture
def long_game(redis: redis_lib.Redis, key_prefix: str) -> str:
    """A finished random-bot game well past ``INLINE_EVENTS``, stored as the API would."""
    for attempt in range(100):
        seed = attempt.to_bytes(32, "big")
        result = play_game([get_bot("random") for _ in range(3)], seed=seed, game_id=f"c{attempt}")
        if len(result.events) > 4 * INLINE_EVENTS and result.winner:
            return append_simulated(GameService(redis, KeySpace(key_prefix)).store, result, seed)
    raise AssertionError("no long game in 100 seeds")


@pytest.fixture
def budget_app(settings: Settings, redis: redis_lib.Redis) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, costly_ip=RateLimit(2, 86400)))
    yield app
    app.extensions["risk"].offload.close()
    app.extensions["risk"].redis.close()


def test_a_long_games_summary_is_built_once_per_version(
    budget_app: Flask, long_game: str, redis: redis_lib.Redis, key_prefix: str
) -> None:
    api = ApiClient(budget_app.test_client())
    service = GameService(redis, KeySpace(key_prefix))
    loaded = service.load(long_game)
    expected = summarize(service.log.events(long_game, 1, loaded.version))
    for _ in range(5):  # one build, then the kept one: the budget of 2 is never met
        answer = api.get(f"/v1/games/{long_game}/summary")
        assert answer.status_code == 200 and answer.json == json.loads(json.dumps(expected))
        assert answer.headers["ETag"] == f'"{loaded.version}"'
    computed = Computed(redis, KeySpace(key_prefix))
    assert computed.version_of(computed.key(long_game, "summary")) == loaded.version


def test_a_long_record_is_streamed_as_built_in_process(
    budget_app: Flask, long_game: str, redis: redis_lib.Redis, key_prefix: str
) -> None:
    api = ApiClient(budget_app.test_client())
    answer = api.get(f"/v1/games/{long_game}/record")
    assert answer.status_code == 200 and answer.is_streamed
    expected = record_text(GameService(redis, KeySpace(key_prefix)), long_game, None)
    assert answer.get_data(as_text=True) == expected


def test_large_verifications_meet_the_addresss_budget(budget_app: Flask, long_game: str) -> None:
    """Two builds a day here (a fixed window: a minute's could reset mid-test): the
    record's (its first download) and one verdict; the next large record from the
    address is a 429 with Retry-After, while the record, kept now, still downloads
    and a small record is checked in process for nothing."""
    api = ApiClient(budget_app.test_client())
    record = api.get(f"/v1/games/{long_game}/record").get_data()
    assert len(record) > INLINE_RECORD_BYTES
    verdict = api.post("/v1/records/verify", data=record, headers=NDJSON)
    assert verdict.status_code == 200 and verdict.json["status"] == "verified"
    refused = api.post("/v1/records/verify", data=record, headers=NDJSON)
    body = problem(refused, 429, "costly_rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1, body
    assert api.get(f"/v1/games/{long_game}/record").get_data() == record
    small = api.post("/v1/records/verify", data=b"not a record", headers=NDJSON)
    assert small.status_code == 200 and small.json["ok"] is False
