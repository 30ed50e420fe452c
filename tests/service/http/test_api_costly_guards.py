"""Issue 54 over the API: analyses with leases, a time budget and a bound per address;
forks refused inside the final command; a fork's parent link and every expect_head
checked by POST /v1/records/verify; Idempotency-Key on creation and forks; seat-token
guessing limited per game; CSP and Referrer-Policy on every page.

Real Redis and RQ (a burst ``SimpleWorker`` runs the jobs); games are played to
their end through the application service as in ``test_api_analysis``.
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import pytest
import redis as redis_lib
from flask import Flask
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from service.application.analysis import Analyses
from service.application.games import GameService
from service.settings import Settings
from tests.service.api_helpers import ApiClient, problem, steady
from tests.service.http.test_api_analysis import SEATS, play, run_jobs
from workers.queues import ANALYSES_QUEUE, queue

BOTS = [{"kind": "bot", "bot": "random"}] * 3


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """A small bound on pending analyses and on wrong tokens per game."""
    return dataclasses.replace(settings, analyses_pending=3, token_guesses_game=steady(5))


def finished(api: ApiClient, service: GameService) -> str:
    game, _ = api.create(SEATS)
    play(service, game)
    return game


def analyses_queued(app: Flask) -> int:
    risk = app.extensions["risk"]
    return int(queue(risk.queue_redis, risk.games.keys, ANALYSES_QUEUE).count)


# -- item 2: a lost analysis job ------------------------------------------------------


def test_an_analysis_whose_worker_died_fails_at_its_lease_and_starts_again(
    app: Flask, api: ApiClient, service: GameService, redis: redis_lib.Redis
) -> None:
    """Issue 54, item 2: a job killed mid-run stayed "running" for 30 days and a new
    POST queued nothing. Its lease runs out: it reads failed, and asking again works."""
    game = finished(api, service)
    path = f"/v1/games/{game}/analysis"
    assert api.post(path, json={"depth": 1}).status_code == 202
    kept = Analyses(redis, service.keys)
    kept.renew(game, 1)  # the job started (its heartbeat's first beat) ...
    redis.hset(kept.key(game, 1), "lease", 1)  # ... and its worker died: no more beats
    assert 0 < redis.ttl(kept.key(game, 1)) <= 3 * 3600  # not 30 days
    lost = api.get(path, query_string={"depth": 1}).json
    assert lost["status"] == "failed" and lost["error"].startswith("worker_lost")
    again = api.post(path, json={"depth": 1})
    assert again.status_code == 202 and again.json["status"] == "queued"
    assert analyses_queued(app) == 2  # a new attempt's job beside the lost one's
    run_jobs(app, redis)
    done = api.get(path, query_string={"depth": 1}).json
    assert done["status"] == "done" and done["done"] == done["total"] > 0
    assert redis.ttl(kept.key(game, 1)) > 86_400  # a report is kept


def test_an_analysis_past_its_time_budget_stops_and_says_so(
    app: Flask,
    api: ApiClient,
    service: GameService,
    redis: redis_lib.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = finished(api, service)
    path = f"/v1/games/{game}/analysis"
    api.post(path, json={"depth": 2})
    monkeypatch.setenv("RISK_ANALYSIS_BUDGET", "0")
    run_jobs(app, redis)
    stopped = api.get(path, query_string={"depth": 2}).json
    assert stopped["status"] == "failed" and stopped["error"].startswith("budget_exceeded")
    assert 0 < stopped["done"] < stopped["total"]  # how far it got


def test_an_addresss_pending_analyses_are_bounded_by_their_depth(
    app: Flask, api: ApiClient, service: GameService, redis: redis_lib.Redis
) -> None:
    """Issue 54, item 1: 57 cheap analyses were queued in 0.7 s. Depths add up: with a
    bound of 3 (8 by default would cost the suite a depth-8 analysis, 37 s), one depth-3
    analysis waits and any other is refused until it is done."""
    first, second = finished(api, service), finished(api, service)
    assert api.post(f"/v1/games/{first}/analysis", json={"depth": 3}).status_code == 202
    refused = api.post(f"/v1/games/{second}/analysis", json={"depth": 1})
    problem(refused, 429, "analyses_pending")
    assert int(refused.headers["Retry-After"]) > 0
    other = api.post(
        f"/v1/games/{second}/analysis", json={"depth": 1}, environ_base={"REMOTE_ADDR": "10.9.9.9"}
    )
    assert other.status_code == 202  # another address has its own bound
    run_jobs(app, redis)
    assert api.post(f"/v1/games/{second}/analysis", json={"depth": 2}).status_code == 202


# -- item 3: forks inside the final command ------------------------------------------


def test_a_fork_at_or_inside_the_final_command_is_refused(
    api: ApiClient, service: GameService
) -> None:
    """Issue 54, item 3: forking at the final occupation (the winner holding every
    territory) was accepted and played on."""
    game = finished(api, service)
    last = service.load(game).version
    final = max(e.version for e in service.log.envelopes(game) if e.command is not None)
    for version in {final, last - 1}:
        body = {"version": version, "seats": BOTS}
        problem(api.post(f"/v1/games/{game}/fork", json=body), 400, "fork_at_end")
    before = api.post(f"/v1/games/{game}/fork", json={"version": final - 1, "seats": BOTS})
    assert before.status_code == 201, before.json


# -- items 4 and 5: records/verify ---------------------------------------------------


def record(api: ApiClient, game: str) -> str:
    return str(api.get(f"/v1/games/{game}/record").get_data(as_text=True))


def verify(api: ApiClient, text: str, **kwargs: Any) -> dict[str, Any]:
    response = api.post(
        "/v1/records/verify", data=text, content_type="application/x-ndjson", **kwargs
    )
    assert response.status_code == 200, response.json
    return dict(response.json)


def verify_with(api: ApiClient, text: str, parent_text: str) -> dict[str, Any]:
    """The multipart request (bytes made here: the test client's own encoder leaves
    its temporary file open for a body this large)."""
    parts = {"record": FileStorage(io.BytesIO(text.encode()), "fork.jsonl")}
    parts["parent"] = FileStorage(io.BytesIO(parent_text.encode()), "parent.jsonl")
    boundary, data = encode_multipart(parts)
    kind = f"multipart/form-data; boundary={boundary}"
    response = api.post("/v1/records/verify", data=data, content_type=kind)
    assert response.status_code == 200, response.json
    return dict(response.json)


def test_a_forks_parent_link_is_checked_and_the_verdict_says_so(
    api: ApiClient, service: GameService
) -> None:
    """Issue 54, item 4: the endpoint took no parent and did not say the parent claim
    went unchecked."""
    parent, stranger = finished(api, service), finished(api, service)
    forked = api.post(f"/v1/games/{parent}/fork", json={"version": 60, "seats": BOTS})
    fork = forked.json["game"]["game_id"]
    play(service, fork)
    text = record(api, fork)
    own = verify(api, text)  # the parent fetched from this server
    assert own["ok"] and own["parent"] == "checked" and own["checks"]["parent"] == "passed"
    assert verify(api, record(api, parent))["parent"] == "none"
    wrong = verify_with(api, text, record(api, stranger))
    assert wrong["parent"] == "mismatch" and not wrong["ok"]
    assert wrong["divergence"]["check"] == "parent"
    right = verify_with(api, text, record(api, parent))
    assert right["ok"] and right["parent"] == "checked"
    api.call("DELETE", f"/v1/games/{parent}", token="admin-secret")
    gone = verify(api, text)
    assert gone["parent"] == "unchecked" and "parent" in gone["parent_detail"]


def test_every_expect_head_is_checked(api: ApiClient, service: GameService) -> None:
    """Issue 54, item 5: a repeated expect_head was checked once (the CLI checks each)."""
    game = finished(api, service)
    text = record(api, game)
    real = service.load(game).hash.hex()
    assert verify(api, text, query_string={"expect_head": real})["ok"]
    bogus = "ab" * 32
    for heads in ([real, bogus], [bogus, real]):
        verdict = verify(api, text, query_string=[("expect_head", h) for h in heads])
        assert not verdict["ok"] and verdict["checks"]["anchor"] == "failed", heads


# -- item 6: Idempotency-Key on creation and forks -----------------------------------


def test_a_creation_retried_with_its_idempotency_key_gives_the_same_game(
    api: ApiClient,
) -> None:
    body = {"seats": [{"kind": "human"}, *BOTS[:2]]}
    key = {"Idempotency-Key": "create-once"}
    first = api.post("/v1/games", json=body, headers=key)
    again = api.post("/v1/games", json=body, headers=key)
    assert first.status_code == again.status_code == 201, (first.json, again.json)
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"]
    other = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 3}, headers=key)
    problem(other, 409, "idempotency_mismatch")
    fresh = api.post("/v1/games", json=body)
    assert fresh.json["game"]["game_id"] != first.json["game"]["game_id"]
    elsewhere = api.post(
        "/v1/games", json=body, headers=key, environ_base={"REMOTE_ADDR": "10.1.1.1"}
    )
    assert elsewhere.json["game"]["game_id"] != first.json["game"]["game_id"]  # its own key


def test_a_fork_retried_with_its_idempotency_key_gives_the_same_fork(
    api: ApiClient, service: GameService
) -> None:
    game = finished(api, service)
    key = {"Idempotency-Key": "fork-once"}
    body = {"version": 50, "seats": BOTS}
    first = api.post(f"/v1/games/{game}/fork", json=body, headers=key)
    again = api.post(f"/v1/games/{game}/fork", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json["game"]["game_id"] == first.json["game"]["game_id"]
    other = api.post(f"/v1/games/{game}/fork", json={**body, "version": 51}, headers=key)
    problem(other, 409, "idempotency_mismatch")


# -- item 7: token guessing per game, CSP and Referrer-Policy ------------------------


def test_seat_token_guessing_is_limited_per_game_across_addresses(api: ApiClient) -> None:
    """Issue 54, item 7: guesses were limited per address only (.2 and .3 got 300 more
    tries each). Past the game's 5, every address is refused, the right token too."""
    game, tokens = api.create(3)
    path = f"/v1/games/{game}"
    for n in range(5):
        wrong = api.get(path, token=f"rsk_guess{n}", environ_base={"REMOTE_ADDR": f"10.0.0.{n}"})
        problem(wrong, 401, "invalid_token")
    refused = api.get(path, token="rsk_guess9", environ_base={"REMOTE_ADDR": "10.0.1.1"})
    problem(refused, 429, "token_guesses_exceeded")
    assert int(refused.headers["Retry-After"]) > 0
    problem(api.get(path, token=tokens["p1"]), 429, "token_guesses_exceeded")
    other, other_tokens = api.create(3)
    assert api.get(f"/v1/games/{other}", token=other_tokens["p1"]).status_code == 200


def test_every_page_sends_a_strict_csp_and_no_referrer(api: ApiClient) -> None:
    game, _ = api.create(3)
    for path in ("/", f"/games/{game}", "/board/game.js", f"/v1/games/{game}"):
        response = api.get(path, documented=False)
        assert response.status_code == 200, path
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy and "script-src 'self';" in policy + ";"
        assert response.headers["Referrer-Policy"] == "no-referrer"
    docs = api.get("/docs", documented=False)
    assert docs.headers["Referrer-Policy"] == "no-referrer"
    assert "style-src 'self' 'unsafe-inline'" in docs.headers["Content-Security-Policy"]
