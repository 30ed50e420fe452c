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
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from riskcore.audit.forks import check_parent
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.audit.summary import summarize
from riskcore.audit.verdict import FAILED
from riskcore.audit.verify import verify_text
from riskcore.errors import RiskError
from riskcore.model.state import FINISHED
from riskcore.protocol import events as ev
from service.application.computed import Computed
from service.application.games import GameService
from service.application.records import export, record_text
from service.store.errors import GameNotFound

__all__ = [
    "INLINE_EVENTS",
    "INLINE_RECORD_BYTES",
    "is_fork",
    "parent_fetcher",
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


def verify_task(
    payload: bytes,
    expect_heads: Sequence[str],
    record_size: int | None = None,
    fetch_parent: Callable[[str], str | None] | None = None,
) -> bytes:
    """The verdict on the record (``payload``, or its first ``record_size`` bytes, the
    parent's record following), with every head of ``expect_heads`` checked and, for
    a fork, its parent link (issue 54, items 4 and 5): ``"parent"`` says ``checked``,
    ``mismatch`` (then the verdict fails), ``unchecked`` (no parent record: sent
    nor on this server; ``parent_detail`` says why) or ``none`` (not a fork)."""
    split = len(payload) if record_size is None else record_size
    text = payload[:split].decode("utf-8", errors="replace")
    given = payload[split:].decode("utf-8", errors="replace") if split < len(payload) else None
    verdict = verify_text(text, expect_heads=list(expect_heads))
    document: dict[str, Any] = verdict.to_dict()
    if not is_fork(text):
        document["parent"] = "none"
        return _COMPACT.encode(document).encode()
    parent = given
    if parent is None and fetch_parent is not None:
        parent = fetch_parent(_parent_id(text))
    if parent is None:
        document["parent"] = "unchecked"
        document["parent_detail"] = (
            "the parent game is not finished on this server: send its record as the"
            " multipart part 'parent' to check the fork's parent link"
        )
    elif not verdict.ok:
        document["parent"] = "unchecked"
        document["parent_detail"] = "the record itself does not verify"
    else:
        divergence = check_parent(text, parent)
        document["checks"]["parent"] = "passed" if divergence is None else "failed"
        document["parent"] = "checked" if divergence is None else "mismatch"
        if divergence is not None:
            document["ok"], document["status"] = False, FAILED
            document["divergence"] = asdict(divergence)
    return _COMPACT.encode(document).encode()


def is_fork(text: str) -> bool:
    """Whether a record's first event is a fork's (``game_forked``), read cheaply."""
    return _first_event(text) is not None


def _first_event(text: str) -> ev.GameForked | None:
    """The record's first event when it is a fork's, from its first two lines only."""
    if '"game_forked"' not in text[:65536]:
        return None
    try:
        first = parse_record("\n".join(text.split("\n", 2)[:2]) + "\n").entries[0]
        event = envelope_from_dict(first.envelope()).event
    except (RiskError, IndexError, ValueError):
        return None
    return event if isinstance(event, ev.GameForked) else None


def _parent_id(text: str) -> str:
    first = _first_event(text)
    return "" if first is None else first.parent_game_id


def parent_fetcher(service: GameService) -> Callable[[str], str | None]:
    """The parent's complete record from this server: None unless it holds the game
    finished (a running game's record would give hidden cards away)."""

    def fetch(game_id: str) -> str | None:
        try:
            loaded = service.load(game_id)
        except (GameNotFound, ValueError):
            return None
        return export(service, game_id) if loaded.state.phase == FINISHED else None

    return fetch


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
