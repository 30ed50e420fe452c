"""What costs CPU in a request: summaries, records of running games, verdicts (issue 36, item 1).

Each is a function of the game (or the uploaded record) alone, so the
server process can run it inline when it is small (``INLINE_EVENTS``
events, ``INLINE_RECORD_BYTES`` of record: a few milliseconds) and hand
it to its helper process (``service.application.offload``) otherwise. Summaries and
records are kept at the version they were built at (``service.application.computed``),
so asking again costs one read until the game moves.
"""

from __future__ import annotations

import json

from riskcore.audit.summary import summarize
from riskcore.audit.verify import verify_text
from riskcore.model.state import FINISHED
from service.application.computed import Computed
from service.application.games import GameService
from service.application.records import export, record_text

__all__ = [
    "INLINE_EVENTS",
    "INLINE_RECORD_BYTES",
    "record_kind",
    "record_task",
    "summary_task",
    "verify_task",
]

# About 5 ms of CPU each on this machine (a summary folds ~15 events a ms; a
# verdict reads ~10 KB a ms): beyond them, the helper process does the work.
INLINE_EVENTS = 100
INLINE_RECORD_BYTES = 48 * 1024
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def verify_task(payload: bytes, expect_head: str | None) -> bytes:
    text = payload.decode("utf-8", errors="replace")
    verdict = verify_text(text, expect_heads=[expect_head] if expect_head else [])
    return _COMPACT.encode(verdict.to_dict()).encode()


def summary_task(service: GameService, computed: Computed, game_id: str) -> bytes:
    """The summary at the game's version now, kept for the next reader."""
    loaded = service.load(game_id)
    events = service.log.events(game_id, 1, loaded.version)
    data = _COMPACT.encode(summarize(events)).encode()
    computed.put(computed.key(game_id, "summary"), loaded.version, data)
    return data


def record_kind(viewer: str | None) -> str:
    return f"record:{viewer or 'public'}"


def record_task(service: GameService, computed: Computed, game_id: str, viewer: str | None) -> int:
    """Build and keep the record ``viewer`` may have now; the version it is kept at
    (a finished game's is its ``record_export``, the same for everyone)."""
    loaded = service.load(game_id)
    if loaded.state.phase == FINISHED:
        export(service, game_id)
        return loaded.version
    text = record_text(service, game_id, viewer)
    computed.put(computed.key(game_id, record_kind(viewer)), loaded.version, text.encode())
    return loaded.version
