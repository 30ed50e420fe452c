"""Game records for download: ``riskcore.audit.gamerecord`` built from the store.

While a game runs, its record is redacted for the reader (their own cards
only, no deck order, no seed) and says so; once it has ended it is
complete, the same for everyone, and verifiable offline with
``risk verify``. A finished game's record never changes, so it is built
once and kept (compressed) beside the game; a worker job builds it after
the game ends (when no bot job waits), so the first download of a long game
is not slow; a download that comes before it builds the record itself.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from riskcore.audit.gamerecord import Reader, event_lines, header_for, record_lines
from riskcore.audit.record import SYSTEM, envelopes
from riskcore.audit.sealing import seal
from riskcore.engine.evolve import apply, fold
from riskcore.model.state import FINISHED
from riskcore.simulate import GameResult
from service.application.archived import record_text as archived_text
from service.application.game_log import NO_EVENTS, GameLog
from service.application.games import GameService
from service.store.event_store import EventStore
from service.store.values import Head


def record_text(service: GameService, game_id: str, viewer: str | None) -> str:
    """The record as ``viewer`` may have it now (complete once the game is over)."""
    loaded = service.load(game_id)
    if loaded.state.phase != FINISHED:
        reader = Reader(game_id, loaded.state.record_format, False, viewer, loaded.seed)
        return "".join(line + "\n" for line in _lines(service, reader, None))
    return export(service, game_id)


def export(service: GameService, game_id: str) -> str:
    """The complete record of a finished game, built once and cached."""
    cached = service.computed.export(game_id)
    if cached is not None:
        return zlib.decompress(cached).decode()
    archived = service.archived_record(game_id)  # Redis lost it: the archive's (issue 48)
    if archived is not None:
        return archived_text(archived)
    loaded = service.load(game_id)
    assert loaded.state.phase == FINISHED, "only a finished game has a complete record"
    reader = Reader(game_id, loaded.state.record_format, complete=True)
    text = "".join(line + "\n" for line in _lines(service, reader, loaded.seed.hex()))
    kept = service.lobby.finished_seconds  # as long as the game (retention); 0: for ever
    service.computed.keep_export(game_id, text, kept)
    return text


def _lines(service: GameService, reader: Reader, seed: str | None) -> Iterator[str]:
    stored = ((e.version, e.hash, e.prev, e.payload) for e in service.log.stored(reader.game_id))
    lines = list(event_lines(stored, reader))
    header = header_for(
        lines[0]["payload"]["e"], redacted=not reader.complete, complete=reader.complete
    )
    yield from record_lines(header, lines, seed)


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
    record_format = fold(opening).record_format
    log, head, state = GameLog(store), NO_EVENTS, None
    for tick, (actor, body, events) in enumerate(batches):
        wrapped = envelopes(
            events,
            first_version=head.version + 1,
            time_ms=1_764_000_000_000 + tick,
            actor=actor,
            command=body,
        )
        if record_format >= 2:
            wrapped = seal(wrapped, seed, game)
        if state is None:
            state = fold(events)
        else:
            for event in events:
                apply(state, event)
        stored = log.append(
            game,
            head,
            wrapped,
            seed=seed if head.version == 0 else None,
            record_format=record_format,
            state=state,
        )
        head = Head(stored.last_version, stored.head_hash)
    return game
