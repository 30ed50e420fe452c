"""Health, metrics, docs, CORS, rate limits, reference data and HTTP-level errors."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis as redis_lib
import yaml

from riskcore.boards.board import load_board
from riskcore.rules.odds import attack_outcome, to_json
from riskcore.simulate import acting_seat
from service.application.commands import stored_idempotency_key
from service.application.errors import ServiceError
from service.application.games import GameService
from service.http.app import create_app
from service.settings import Settings
from service.store.errors import VersionConflict
from tests.service.api_helpers import ROOT, SPEC, ApiClient, problem, steady
from workers.queues import CLOCKS_QUEUE, queue
from workers.relay import Relay
from workers.scheduler import DeadlineScheduler


def test_health_and_readiness(api: ApiClient) -> None:
    assert api.get("/healthz").json == {"status": "ok"}
    ready = api.get("/readyz").json
    assert ready["status"] == "ready"
    assert ready["workers"] == {
        "relays_alive": 0,
        "relay_last_seen_seconds": None,
        "scheduler_up": False,
        "clocks_overdue": 0,
        "clock_overdue_seconds": 0.0,
        "job_dead_letters": 0,
    }


def test_relays_the_scheduler_and_overdue_clocks_show_in_readiness_and_metrics(
    api: ApiClient, service: GameService, redis: redis_lib.Redis
) -> None:
    """Issue 13 items 6 and 7: a deadline nobody schedules, and whether relays and a
    scheduler run, are visible without looking at the workers."""
    clocks = queue(redis, service.keys, CLOCKS_QUEUE)
    late = datetime.now(UTC) - timedelta(seconds=30)
    clocks.enqueue_at(late, "workers.jobs.enforce_deadline", "g1", "1.p1")  # no scheduler ran
    workers = api.get("/readyz").json["workers"]
    assert workers["clocks_overdue"] == 1 and workers["clock_overdue_seconds"] >= 29
    assert workers["relays_alive"] == 0 and not workers["scheduler_up"]
    Relay(redis, service.keys, queue(redis, service.keys), consumer="r1").beat()
    DeadlineScheduler(redis, [clocks]).tick()  # moves the late job: nothing overdue
    workers = api.get("/readyz").json["workers"]
    assert workers["relays_alive"] == 1 and workers["relay_last_seen_seconds"] < 5
    assert workers["scheduler_up"] and workers["clocks_overdue"] == 0
    text = api.get("/metrics").get_data(as_text=True)
    for sample in ("risk_relays_alive 1.0", "risk_scheduler_up 1.0", "risk_clocks_overdue 0.0"):
        assert re.search(rf"^{re.escape(sample)}$", text, re.M), sample
    assert re.search(r"^risk_job_dead_letters 0\.0$", text, re.M)


def test_readiness_fails_without_redis_but_health_does_not(settings: Settings) -> None:
    nowhere = dataclasses.replace(settings, redis_url="redis://127.0.0.1:1/0")
    api = ApiClient(create_app(nowhere).test_client())
    assert api.get("/healthz").status_code == 200
    problem(api.get("/readyz"), 503, "redis_unavailable")
    unavailable = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 3})
    problem(unavailable, 503, "store_unavailable")
    assert unavailable.headers["Retry-After"] == "1"
    assert api.get("/v1/odds", query_string={"attackers": 2, "defenders": 1}).status_code == 200


def test_metrics_count_requests_commands_rule_errors_appends_and_conflicts(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules={"setup": "deal", "starting_armies": 14})
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    other = next(s for s in tokens if s != seat)
    api.command(game, tokens[other], {"type": "end_phase"})  # not_your_turn
    api.command(game, tokens[seat], {"type": "resign"}, **{"If-Match": '"1"'})  # stale
    api.command(game, tokens[seat], {"type": "resign"})
    text = api.get("/metrics").get_data(as_text=True)

    def value(sample: str) -> float:
        found = re.search(rf"^{re.escape(sample)} ([0-9.e+]+)$", text, re.M)
        assert found, f"{sample} not in metrics"
        return float(found.group(1))

    assert value('risk_commands_total{outcome="accepted",type="resign"}') == 1
    assert value('risk_commands_total{outcome="rejected",type="end_phase"}') == 1
    assert value('risk_commands_total{outcome="version_conflict",type="resign"}') == 1
    assert value('risk_rule_errors_total{code="not_your_turn"}') == 1
    assert value("risk_appends_total") == 2  # the game's opening events, then the resignation
    assert value("risk_events_appended_total") >= 4
    route = 'method="POST",route="/v1/games/<game>/commands"'
    assert value(f'risk_http_requests_total{{{route},status="422"}}') == 1
    assert value(f"risk_http_request_duration_seconds_count{{{route}}}") == 3
    assert "risk_append_conflicts_total 0.0" in text  # If-Match refusals never reach the store


def test_a_lost_race_is_counted_and_decided_again_without_if_match(
    api: ApiClient, service: GameService, redis: redis_lib.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, _ = api.create(3, rules={"setup": "deal", "starting_armies": 14})
    rival = GameService(redis, service.keys)  # another process playing the same seat
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    place = {"type": "place_armies", "territory": _territory(service, game, seat), "count": 1}
    start = service.load(game).version
    append, rivals = service.store.append, []
    late = stored_idempotency_key(seat, "late")

    def rival_first(*args: Any, **kwargs: Any) -> Any:
        if len(rivals) < 1 or (len(rivals) == 1 and kwargs.get("idempotency_key") == late):
            rivals.append(rival.execute(game, seat, place).version)  # lands between load and append
        return append(*args, **kwargs)

    monkeypatch.setattr(service.store, "append", rival_first)
    ours = service.execute(game, seat, place)  # lost once, then decided again on the new state
    assert rivals[0] > start and ours.envelopes[0].version == rivals[0] + 1
    with pytest.raises(VersionConflict):  # with If-Match, a lost race is the caller's to handle
        service.execute(game, seat, place, expected_version=ours.version, idempotency_key="late")
    assert service.load(game).version == rivals[1]
    text = api.get("/metrics").get_data(as_text=True)
    assert "risk_append_conflicts_total 2.0" in text
    assert 'risk_commands_total{outcome="accepted",type="place_armies"} 1.0' in text
    assert 'risk_commands_total{outcome="version_conflict",type="place_armies"} 1.0' in text


def _territory(service: GameService, game: str, seat: str) -> str:
    return next(t for t, p in service.load(game).state.owner.items() if p == seat)


def test_the_spec_is_served_and_documented_as_html(api: ApiClient) -> None:
    served = api.get("/openapi.yaml")
    assert served.get_data(as_text=True) == (ROOT / "openapi.yaml").read_text()
    assert yaml.safe_load(served.data) == SPEC
    docs = api.get("/docs").get_data(as_text=True)
    assert "<script" not in docs and "http" not in docs.split("</style>")[0]
    for item in SPEC["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "operationId" in operation:
                assert f"id=op-{operation['operationId']}" in docs
    for name in SPEC["components"]["schemas"]:
        assert f"id=schema-{name}>" in docs
    for code in ("version_conflict", "rate_limited", "not_your_turn"):
        assert f"id=problem-{code}>" in docs


def test_every_problem_code_the_api_raises_is_documented() -> None:
    sources = "".join(p.read_text() for p in (ROOT / "service").rglob("*.py"))
    raised = set(re.findall(r'ApiProblem\(\s*\d{3},\s*"([a-z_]+)"', sources))
    raised |= set(re.findall(r'problem_response\(\s*\d{3},\s*"([a-z_]+)"', sources))
    # their statuses: service.http.problems
    raised |= {error.code for error in ServiceError.__subclasses__()}
    assert raised and raised <= set(SPEC["x-problem-codes"]), raised - set(SPEC["x-problem-codes"])


def test_cors_headers_for_allowed_origins_only(settings: Settings) -> None:
    app = create_app(dataclasses.replace(settings, cors_origins=("https://play.example",)))
    api = ApiClient(app.test_client())
    allowed = api.get("/v1/maps", headers={"Origin": "https://play.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "ETag" in allowed.headers["Access-Control-Expose-Headers"]
    assert "Origin" in allowed.headers["Vary"]
    other = api.get("/v1/maps", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    preflight = app.test_client().options(
        "/v1/games/g1/commands",
        headers={"Origin": "https://play.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 200
    assert "Idempotency-Key" in preflight.headers["Access-Control-Allow-Headers"]
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]


def test_no_cors_headers_unless_configured(api: ApiClient) -> None:
    response = api.get("/v1/maps", headers={"Origin": "https://play.example"})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_rate_limits_per_token_and_per_address_answer_429(
    settings: Settings, redis: redis_lib.Redis
) -> None:
    limited = dataclasses.replace(settings, rate_token=steady(3), rate_ip=steady(6))
    api = ApiClient(create_app(limited).test_client())
    game, tokens = api.create(3)  # costs 1 for this address
    view = f"/v1/games/{game}"
    for _ in range(4):  # the first look at this version is free, the same again costs 1
        assert api.get(view, token=tokens["p1"]).status_code == 200
    refused = api.get(view, token=tokens["p1"])
    body = problem(refused, 429, "rate_limited")
    assert "token" in body["detail"] and 1 <= int(refused.headers["Retry-After"]) <= 86_400
    assert refused.headers["RateLimit-Remaining"] == "0"
    for _ in range(3):  # the address has used 4 of 6: free, then 5, then 6
        assert api.get(view, token=tokens["p2"]).status_code == 200
    problem(api.get(view, token=tokens["p2"]), 429, "rate_limited")
    assert api.get("/healthz").status_code == 200  # health checks are never limited
    assert 'risk_rate_limited_total{scope="token"} 1.0' in api.get("/metrics").get_data(
        as_text=True
    )


def test_odds_are_the_engines_exact_odds(api: ApiClient) -> None:
    query = {"attackers": 5, "defenders": 3, "defender_bonus": 1}
    got = api.get("/v1/odds", query_string=query)
    assert got.json == to_json(attack_outcome(5, 3, defender_bonus=1))
    lotr = api.get(
        "/v1/odds",
        query_string={
            "attackers": 1,
            "defenders": 2,
            "defender_bonus": 2,
            "one_die_vs_one": "true",
        },
    )
    assert lotr.json == to_json(
        attack_outcome(1, 2, defender_bonus=2, defender_one_die_vs_one=True)
    )
    assert lotr.json != to_json(attack_outcome(1, 2, defender_bonus=2))
    assert "max-age" in got.headers["Cache-Control"]
    for bad in ({"attackers": 0, "defenders": 1}, {"attackers": 101, "defenders": 1}, {}):
        problem(api.get("/v1/odds", query_string=bad), 400, "invalid_query")


def test_maps_list_and_detail(api: ApiClient) -> None:
    names = [m["name"] for m in api.get("/v1/maps").json["maps"]]
    assert "classic" in names
    assert api.get("/v1/maps/classic").json == load_board("classic").to_dict()
    middle_earth = api.get("/v1/maps/middle_earth").json
    assert middle_earth == load_board("middle_earth").to_dict()
    assert ["buckland", "the_shire", "bridge"] in middle_earth["borders"]
    assert ["forodwaith", "mithlond", "harbour"] in middle_earth["borders"]
    features = {t["id"]: t for t in middle_earth["territories"]}
    assert features["rhudaur"]["stronghold"] == "Rivendell"
    assert features["mithlond"] == {
        "id": "mithlond",
        "name": "Mithlond",
        "group": "eriador",
        "site_of_power": "Grey Havens",
        "harbour": True,
    }
    assert [s["territory"] for s in middle_earth["path"] if s["needs_roll"]] == [
        "moria",
        "lorien",
        "dead_marshes",
    ]
    problem(api.get("/v1/maps/atlantis"), 404, "map_not_found")
    problem(api.get("/v1/maps/..classic"), 404, "map_not_found")


def test_unknown_urls_and_methods_are_problems(api: ApiClient) -> None:
    problem(api.get("/v2/games", documented=False), 404, "not_found")
    wrong = api.call("PUT", "/v1/games", documented=False)
    problem(wrong, 405, "method_not_allowed")
    assert set(wrong.headers["Allow"].split(", ")) >= {"GET", "POST"}


def test_responses_say_how_to_cache_them(api: ApiClient) -> None:
    game, tokens = api.create(3)
    seat_view = api.get(f"/v1/games/{game}", token=tokens["p1"])
    assert seat_view.headers["Cache-Control"] == "private, no-cache"
    assert "Authorization" in seat_view.headers["Vary"]
    assert seat_view.headers["X-Content-Type-Options"] == "nosniff"


def test_metrics_show_queue_depths_failures_and_relay_health(
    api: ApiClient, redis: Any, settings: Any
) -> None:
    """Operators watch workers from /metrics too (issue 6): queue depth and failures."""
    from rq import Queue

    games = Queue(f"{settings.key_prefix}.games", connection=redis)
    games.enqueue("workers.jobs.advance_game", "g0", 1)
    games.enqueue("workers.jobs.advance_game", "g0", 2)
    text = api.get("/metrics").get_data(as_text=True)
    assert re.search(r'^risk_queue_jobs\{queue="games"\} 2\.0$', text, re.M)
    assert re.search(r'^risk_queue_failed_jobs\{queue="clocks"\} 0\.0$', text, re.M)
    assert re.search(r"^risk_relay_dead_letters 0\.0$", text, re.M)
