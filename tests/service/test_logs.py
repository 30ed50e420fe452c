"""Structured logs (issue 8): JSON lines carrying request, game and version."""

from __future__ import annotations

import json
import logging

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
