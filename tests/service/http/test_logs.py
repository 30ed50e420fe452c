"""Structured logs (issue 8): JSON lines carrying request, game and version."""

from __future__ import annotations

import json
import logging
from typing import Any

from service.logs import JsonFormatter, context


def line(message: str, **extra: object) -> dict[str, object]:
    record = logging.makeLogRecord({"name": "t", "levelname": "INFO", "msg": message, **extra})
    return json.loads(JsonFormatter().format(record))


def test_each_line_is_json_with_the_context_it_was_logged_in() -> None:
    with context(request_id="r-1", game_id="g1", version=12):
        inside = line("moved", outcome="played")
    outside = line("idle")
    assert inside["message"] == "moved"
    assert (inside["request_id"], inside["game_id"], inside["version"]) == ("r-1", "g1", 12)
    assert inside["outcome"] == "played"
    assert "game_id" not in outside and "request_id" not in outside


def test_nested_contexts_restore_the_outer_one() -> None:
    with context(game_id="outer"):
        with context(game_id="inner", version=3):
            assert line("x")["game_id"] == "inner"
        assert line("y")["game_id"] == "outer"
        assert "version" not in line("y")


def test_each_request_logs_one_line_with_its_id_game_and_version(api: Any, service: Any) -> None:
    import io

    game, _ = api.create(3)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    access = logging.getLogger("service.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        response = api.get(f"/v1/games/{game}", headers={"X-Request-ID": "req-42"})
    finally:
        access.removeHandler(handler)
    assert response.headers["X-Request-ID"] == "req-42"
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert line["request_id"] == "req-42" and line["game_id"] == game
    assert line["version"] == service.load(game).version and line["status"] == 200
