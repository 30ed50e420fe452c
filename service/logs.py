"""Structured logs: one JSON object per line, with the request and game in context.

Every line carries ``time``, ``level``, ``logger`` and ``message``, plus
whatever of ``request_id``, ``game_id`` and ``version`` is known where it
was logged: the API sets them per request, the workers per job. They live
in context variables, so threads (gunicorn's gthread workers) and jobs do
not see each other's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
game_id: ContextVar[str | None] = ContextVar("game_id", default=None)
version: ContextVar[int | None] = ContextVar("version", default=None)
_CONTEXT = {"request_id": request_id, "game_id": game_id, "version": version}
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, variable in _CONTEXT.items():
            value = variable.get()
            if value is not None:
                line[name] = value
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def configure(level: str = "INFO", *, json_lines: bool = True) -> None:
    """Route every logger to stderr, as JSON lines (or plain text for a terminal)."""
    handler = logging.StreamHandler(sys.stderr)
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


@contextlib.contextmanager
def context(**values: Any) -> Iterator[None]:
    """Set ``request_id``/``game_id``/``version`` for the lines logged inside."""
    tokens = [(_CONTEXT[name], _CONTEXT[name].set(value)) for name, value in values.items()]
    try:
        yield
    finally:
        for variable, token in reversed(tokens):
            variable.reset(token)
