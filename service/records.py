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

from riskcore.audit.chain import GENESIS
from riskcore.audit.gamerecord import header_for, record_lines
from riskcore.audit.record import SYSTEM, decode_envelope, envelopes
from riskcore.engine.evolve import apply, fold
from riskcore.model.state import FINISHED
from riskcore.protocol.codec import event_to_dict
from riskcore.protocol.snapshot import SNAPSHOT_STAMP, encode_state
from riskcore.simulate import GameResult
from riskcore.views.view import redact
from service import replays
from service.games import GameService
from service.store import EventStore, StoredEvent, new_events

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
    version, prev = 0, GENESIS
    state = None
    for tick, (actor, body, events) in enumerate(batches):
        wrapped = envelopes(
            events,
            first_version=version + 1,
            time_ms=1_764_000_000_000 + tick,
            actor=actor,
            command=body,
        )
        stored = store.append(
            game,
            version,
            new_events(prev, [e.encode() for e in wrapped]),
            prev=prev,
            seed=seed if version == 0 else None,
        )
        if state is None:
            state = fold(events)
        else:
            for event in events:
                apply(state, event)
        if store.should_snapshot(version, stored.last_version):
            encoded = encode_state(state)
            store.save_snapshot(game, stored.last_version, encoded, SNAPSHOT_STAMP)
            if replays.crossed_checkpoint(version, stored.last_version):
                key = store.keys.replay_checkpoints(game)
                replays.save_checkpoint(store.client, key, stored.last_version, encoded)
        version, prev = stored.last_version, stored.head_hash
    return game
