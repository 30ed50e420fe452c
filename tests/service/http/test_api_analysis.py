"""Analyses and forks of finished games over the API (issue 37), on real Redis and RQ.

A game of three people is played to its end through the application service
(the heuristic bot choosing each seat's command from its legal actions); the
analysis job runs in a real RQ worker (``SimpleWorker``, burst), and the fork
is played on the same way and its record verified offline.
"""

from __future__ import annotations

import random

import redis as redis_lib
from flask import Flask
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from riskcore.analysis import analyse
from riskcore.audit.forks import check_parent
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.audit.verify import verify_text
from riskcore.bots.base import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.games import GameService
from service.http.api.analysis import AnalysisRequest, ForkRequest
from tests.service.api_helpers import SPEC, ApiClient, problem
from tests.service.http.test_api_schemas import _check_schema
from workers import jobs
from workers.queues import ANALYSES_QUEUE, queue

SEATS = [{"kind": "human", "seed": f"{n:02x}" * 16} for n in range(3)]


def play(service: GameService, game: str, stop_at: int | None = None) -> None:
    """The heuristic bot plays every seat until the game ends (or reaches ``stop_at``)."""
    bot, rng = get_bot("heuristic"), random.Random(1)
    for _ in range(20_000):
        state = service.load(game).state
        if state.phase == FINISHED or (stop_at is not None and state.version >= stop_at):
            return
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        service.execute(game, seat, body, expected_version=state.version)
    raise AssertionError(f"game {game} did not finish")


def run_jobs(app: Flask, redis: redis_lib.Redis) -> None:
    risk = app.extensions["risk"]
    jobs.use_store(redis)
    try:
        analyses = queue(risk.queue_redis, risk.games.keys, ANALYSES_QUEUE)
        worker = SimpleWorker([analyses], connection=risk.queue_redis, serializer=JSONSerializer)
        worker.work(burst=True, logging_level="WARNING")
    finally:
        jobs.use_store(None)


def test_a_running_game_is_neither_analysed_nor_forked(
    api: ApiClient, service: GameService
) -> None:
    game, _ = api.create(SEATS)
    play(service, game, stop_at=150)
    version = service.load(game).version
    problem(api.post(f"/v1/games/{game}/analysis", json={"depth": 1}), 409, "game_running")
    problem(api.get(f"/v1/games/{game}/analysis"), 409, "game_running")
    problem(api.get(f"/v1/games/{game}/analyses"), 409, "game_running")
    seats = [{"kind": "bot", "bot": "random"}] * 3
    fork = api.post(f"/v1/games/{game}/fork", json={"version": 100, "seats": seats})
    problem(fork, 409, "game_running")
    assert service.load(game).version == version  # nothing was appended


def test_an_analysis_is_queued_once_run_by_a_worker_and_kept(
    app: Flask, api: ApiClient, service: GameService, redis: redis_lib.Redis
) -> None:
    game, _ = api.create(SEATS)
    play(service, game)
    path = f"/v1/games/{game}/analysis"
    listed = lambda: api.get(f"/v1/games/{game}/analyses")  # noqa: E731
    problem(api.get(path, query_string={"depth": 1}), 404, "analysis_not_found")
    assert listed().status_code == 200 and listed().json["analyses"] == []  # (issue 51)
    first = api.post(path, json={"depth": 1})
    again = api.post(path, json={"depth": 1})
    assert first.status_code == again.status_code == 202
    assert first.json["status"] == "queued" and first.json["head"] == again.json["head"]
    assert [a["status"] for a in listed().json["analyses"]] == ["queued"]
    risk = app.extensions["risk"]
    assert queue(risk.queue_redis, risk.games.keys, ANALYSES_QUEUE).count == 1  # one job
    run_jobs(app, redis)
    done = api.get(path, query_string={"depth": 1})
    assert done.status_code == 200 and done.json["status"] == "done"
    assert done.json["done"] == done.json["total"] > 0
    total = done.json["total"]
    assert listed().json == {
        "game_id": game,
        "head": done.json["head"],
        "analyses": [{"depth": 1, "status": "done", "done": total, "total": total}],
    }
    # The same report as `risk analyse RECORD --depth 1` gives offline.
    record = parse_record(api.get(f"/v1/games/{game}/record").get_data(as_text=True))
    envelopes = [envelope_from_dict(e.envelope()) for e in record.entries]
    head = record.entries[-1].hash
    assert done.json["head"] == head
    assert done.json["report"] == analyse(envelopes, depth=1, head=str(head))
    kept = api.post(path, json={"depth": 1})
    assert kept.status_code == 200 and kept.json["report"] == done.json["report"]
    assert queue(risk.queue_redis, risk.games.keys, ANALYSES_QUEUE).count == 0


def test_a_fork_continues_the_position_and_verifies_with_its_parent(
    api: ApiClient, service: GameService
) -> None:
    parent, _ = api.create(SEATS)
    play(service, parent)
    at = 120
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human"}, {"kind": "human"}]
    problem(
        api.post(f"/v1/games/{parent}/fork", json={"version": 10**6, "seats": seats}),
        400,
        "version_out_of_range",
    )
    problem(
        api.post(f"/v1/games/{parent}/fork", json={"version": at, "seats": seats[:2]}),
        400,
        "seats_mismatch",
    )
    created = api.post(f"/v1/games/{parent}/fork", json={"version": at, "seats": seats})
    assert created.status_code == 201, created.json
    fork = created.json["game"]["game_id"]
    after = created.json["parent"]["version"]  # ``at``, or the end of its command's events
    assert at <= after < at + 40 and set(created.json["tokens"]) == {"p1", "p2", "p3"}
    before, started = service.state_at(parent, after), service.load(fork).state
    assert (started.owner, started.armies, started.hands) == (
        before.owner,
        before.armies,
        before.hands,
    )
    assert started.seats["p1"].name == "Ada" and started.phase != FINISHED
    feed = api.get(f"/v1/games/{fork}/events", query_string={"since": 0, "limit": 2})
    first = feed.json["events"][0]["event"]  # the answer is held to openapi.yaml's Event union
    assert first["type"] == "game_forked" and first["parent_head"] == created.json["parent"]["head"]
    play(service, fork)
    text = api.get(f"/v1/games/{fork}/record").get_data(as_text=True)
    assert '"type":"game_forked"' in text.splitlines()[1]
    verdict = verify_text(text)
    assert verdict.ok, verdict.divergence
    parent_text = api.get(f"/v1/games/{parent}/record").get_data(as_text=True)
    assert check_parent(text, parent_text) is None


def test_the_request_schemas_mirror_the_spec() -> None:
    for name, schema in (("AnalysisRequest", AnalysisRequest), ("ForkRequest", ForkRequest)):
        _check_schema(name, schema, SPEC["components"]["schemas"][name])
