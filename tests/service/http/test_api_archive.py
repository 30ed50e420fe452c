"""Finished games answer from the archive once Redis lost them (issue 48), on SQLite
and PostgreSQL: every read (view, record byte for byte, events, state at a version,
summary, replay page, fork), the history's filters and the NDJSON export, through
the real app with its responses held to openapi.yaml (``ApiClient``)."""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis as redis_lib
from flask import Flask

from riskcore.audit.verify import verify_text
from service.application.games import GameService, SeatPlan
from service.http.app import create_app
from service.settings import Settings
from service.store.archive import Archive
from service.store.database import create_engine
from tests.service.api_helpers import ApiClient, problem
from tests.service.application.test_records import play
from workers.projector import Projector

READS = ("", "/record", "/events?limit=1000", "/state?version=7", "/summary")


@pytest.fixture
def archived_app(settings: Settings, database_url: str, redis: redis_lib.Redis) -> Iterator[Flask]:
    app = create_app(dataclasses.replace(settings, database_url=database_url))
    yield app
    risk = app.extensions["risk"]
    risk.offload.close()
    risk.archive.engine.dispose()


def project(app: Flask) -> None:
    risk = app.extensions["risk"]
    service = GameService(risk.redis, risk.games.keys)
    engine = create_engine(risk.settings.database_url)
    worker = Projector(risk.redis, service, Archive(engine))
    worker.ensure_groups()
    while worker.run_once(block_ms=10):
        pass
    while worker.archive_records(budget_seconds=5):
        pass
    engine.dispose()


@contextmanager
def another_app(settings: Settings) -> Iterator[Flask]:
    """A new server process's app (nothing cached), closed after."""
    app = create_app(settings)
    try:
        yield app
    finally:
        app.extensions["risk"].offload.close()
        app.extensions["risk"].archive.engine.dispose()


def forget_in_redis(app: Flask, game: str) -> None:
    """What RISK_FINISHED_GAME_DAYS does: every key of the game gone from Redis."""
    risk = app.extensions["risk"]
    GameService(risk.redis, risk.games.keys).delete(game)


def test_every_read_of_a_finished_game_answers_from_the_archive(archived_app: Flask) -> None:
    api = ApiClient(archived_app.test_client())
    service = archived_app.extensions["risk"].games
    game = service.create(
        seats=[SeatPlan("human", name="Ada"), SeatPlan("human"), SeatPlan("human")]
    ).info.game_id
    play(service, game)
    before = {path: api.get(f"/v1/games/{game}{path}").get_data() for path in READS}
    page = api.get(f"/games/{game}").get_data()
    project(archived_app)
    forget_in_redis(archived_app, game)
    with another_app(archived_app.extensions["risk"].settings) as app:
        reads_from_the_archive(ApiClient(app.test_client()), app, game, before, page)


def reads_from_the_archive(
    fresh: ApiClient, app: Flask, game: str, before: dict[str, bytes], page: bytes
) -> None:
    for path in READS:
        answered = fresh.get(f"/v1/games/{game}{path}")
        assert answered.status_code == 200, (path, answered.get_data(as_text=True))
        assert answered.get_data() == before[path], path
    assert fresh.get(f"/games/{game}").get_data() == page
    assert verify_text(before["/record"].decode()).ok
    forked = fresh.post(
        f"/v1/games/{game}/fork",
        json={"version": 20, "seats": [{"kind": "bot", "bot": "random"}] * 3},
    )
    assert forked.status_code == 201, forked.get_data(as_text=True)
    # The history lists it, by the player's name and result, and exports it.
    listed = fresh.get("/v1/games", query_string={"player": "Ada"}).json["games"]
    assert [g["game_id"] for g in listed] == [game] and listed[0]["finished"]
    won = "won" if listed[0]["winner"] == "p1" else "lost"
    assert fresh.get("/v1/games", query_string={"player": "Ada", "result": won}).json["games"]
    other = "lost" if won == "won" else "won"
    assert (
        fresh.get("/v1/games", query_string={"player": "Ada", "result": other}).json["games"] == []
    )
    exported = fresh.get("/v1/games/export")
    assert (
        exported.mimetype == "application/x-ndjson" and "Content-Encoding" not in exported.headers
    )
    (line,) = exported.get_data().splitlines()
    data = json.loads(line)
    assert data["game_id"] == game
    assert [json.loads(x) for x in before["/record"].decode().splitlines()] == data["record"]
    raw = app.test_client()  # a gzip body, which openapi-core does not read
    zipped = raw.get("/v1/games/export", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.get_data()) == exported.get_data()


def test_history_pages_and_refuses_a_result_without_a_player(archived_app: Flask) -> None:
    api = ApiClient(archived_app.test_client())
    service = archived_app.extensions["risk"].games
    created = [service.create(seats=[SeatPlan("human") for _ in range(3)]).info for _ in range(5)]
    # Newest first, games created in the same millisecond by their ids (as the archive
    # orders them), so the pages' order does not hang on the clock's resolution.
    games = [i.game_id for i in sorted(created, key=lambda i: (i.created_ms, i.game_id))]
    project(archived_app)
    seen, cursor = [], None
    while True:
        query = {"source": "archive", "limit": 2} | ({"cursor": cursor} if cursor else {})
        body = api.get("/v1/games", query_string=query).json
        seen += [g["game_id"] for g in body["games"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(games))
    assert {
        g["status"] for g in api.get("/v1/games", query_string={"source": "archive"}).json["games"]
    } == {"running"}
    problem(api.get("/v1/games", query_string={"result": "won"}), 400, "invalid_query")
    empty = archived_app.test_client().get("/v1/games/export")  # an empty body: unchecked
    assert empty.status_code == 200 and empty.get_data() == b""  # none finished: no line


def test_without_its_database_only_the_archives_reads_fail(
    settings: Settings, redis: redis_lib.Redis
) -> None:
    """503 archive_unavailable for a game Redis does not have and for the history; live
    games play on."""
    away = dataclasses.replace(settings, database_url="postgresql://postgres@127.0.0.1:1/none")
    app = create_app(away)
    api = ApiClient(app.test_client())
    game, _ = api.create(3)
    assert api.get(f"/v1/games/{game}").status_code == 200
    problem(api.get("/v1/games/g0000"), 503, "archive_unavailable")
    problem(api.get("/v1/games", query_string={"source": "archive"}), 503, "archive_unavailable")
    problem(api.get("/v1/games/export"), 503, "archive_unavailable")
    assert api.get("/v1/games").status_code == 200  # the lobby is Redis'
    ready = api.get("/readyz").json
    assert ready["archive"]["database"] == "unavailable"
    app.extensions["risk"].offload.close()
    app.extensions["risk"].archive.engine.dispose()
