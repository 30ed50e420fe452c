"""Game records for download: ``riskcore.audit.gamerecord`` built from the store.

While a game runs, its record is redacted for the reader (their own cards
only, no deck order, no seed) and says so; once it has ended it is
complete, the same for everyone, and verifiable offline with
``risk verify``. A finished game's record never changes, so it is built
once and kept (compressed) beside the game; a worker job builds it when
the game ends, so the first download of a long game is not slow.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from riskcore.audit.gamerecord import header_for, record_lines
from riskcore.audit.record import SYSTEM, decode_envelope, envelopes
from riskcore.engine.evolve import apply, fold
from riskcore.model.state import FINISHED
from riskcore.protocol.codec import event_to_dict
from riskcore.simulate import GameResult
from riskcore.views.view import redact
from service.game_log import NO_EVENTS, GameLog
from service.games import GameService
from service.store import EventStore, Head, StoredEvent

CACHE_SECONDS = 7 * 24 * 3600


def record_text(service: GameService, game_id: str, viewer: str | None) -> str:
    """The record as ``viewer`` may have it now (complete once the game is over)."""
    loaded = service.load(game_id)
    if loaded.state.phase != FINISHED:
        return "".join(line + "\n" for line in _lines(service, game_id, viewer, None))
    return export(service, game_id)


def export(service: GameService, game_id: str) -> str:
    """The complete record of a finished game, built once and cached."""
    key = service.keys.record_export(game_id)
    client = service.store.client
    cached = client.get(key)
    if cached is not None:
        return zlib.decompress(cached).decode()
    loaded = service.load(game_id)
    assert loaded.state.phase == FINISHED, "only a finished game has a complete record"
    text = "".join(line + "\n" for line in _lines(service, game_id, None, loaded.seed.hex()))
    client.set(key, zlib.compress(text.encode(), 6), ex=CACHE_SECONDS)
    return text


def _lines(
    service: GameService, game_id: str, viewer: str | None, seed: str | None
) -> Iterator[str]:
    complete = seed is not None
    entries = list(_entries(service.store.iter_events(game_id), viewer, complete))
    header = header_for(entries[0][3]["e"], redacted=not complete, complete=complete)
    yield from record_lines(header, entries, seed)


def _entries(
    stored: Iterable[StoredEvent], viewer: str | None, complete: bool
) -> Iterator[tuple[int, bytes, bytes, dict[str, Any]]]:
    """(version, hash, prev, payload) per event, redacted for ``viewer`` unless complete."""
    for event in stored:
        payload = json.loads(event.payload)
        if not complete:
            payload["e"] = event_to_dict(redact(decode_envelope(event.payload).event, viewer))
        yield event.version, event.hash, event.prev, payload


def append_simulated(store: EventStore, result: GameResult, seed: bytes) -> str:
    """Store a game played in process (``riskcore.simulate``) as the API would have:
    batch by batch with its commands, the seed, and snapshots. For benchmarks,
    tests and importing bot tournaments; ``result.game_id`` must be new."""
    game = result.game_id
    opening = result.events[: result.opening]
    batches = [(SYSTEM, None, opening)]
    position = result.opening
    for seat, body, count in result.batches:
        batches.append((seat, body, result.events[position : position + count]))
        position += count
    log, head, state = GameLog(store), NO_EVENTS, None
    for tick, (actor, body, events) in enumerate(batches):
        wrapped = envelopes(
            events,
            first_version=head.version + 1,
            time_ms=1_764_000_000_000 + tick,
            actor=actor,
            command=body,
        )
        stored = log.append(game, head, wrapped, seed=seed if head.version == 0 else None)
        if state is None:
            state = fold(events)
        else:
            for event in events:
                apply(state, event)
        log.keep_snapshots(game, head.version, stored.last_version, state)
        head = Head(stored.last_version, stored.head_hash)
    return game
