"""A game's stored stream in the terms the application uses: envelopes and states.

The event store (``service.store``) is generic over bytes on purpose. This
module is the one place that knows what those bytes are, so the application
service deals in envelopes, events and states only:

* each stream entry is an envelope (``riskcore.audit.record``), encoded
  canonically and chained by hash (``service.store.values.new_events``);
* the snapshot is a state encoded by ``riskcore.engine.snapshot`` and
  stamped with ``SNAPSHOT_STAMP``, so a codec change never decodes an old one;
* replay checkpoints (``service.application.replays``) are written from that same
  encoding, as the game crosses each ``CHECKPOINT_EVERY`` events.
"""

from __future__ import annotations

from collections.abc import Sequence

from riskcore.audit.chain import GENESIS
from riskcore.audit.record import Envelope, decode_envelope, hashed_bytes
from riskcore.engine.snapshot import SNAPSHOT_STAMP, decode_state, encode_state
from riskcore.model.state import State
from riskcore.protocol.events import Event
from service.application import replays
from service.store.event_store import EventStore
from service.store.values import AppendResult, Head, StoredEvent, new_events

__all__ = ["NO_EVENTS", "GameLog"]

NO_EVENTS = Head(0, GENESIS)  # where a game's opening batch is appended


class GameLog:
    """Append and read one store's games as envelopes; snapshots and checkpoints beside."""

    def __init__(self, store: EventStore, waiting: EventStore | None = None) -> None:
        """``waiting`` serves long-polls: a store on a client with a long timeout."""
        self.store = store
        self._waiting = waiting or store

    def append(
        self,
        game_id: str,
        after: Head,
        batch: Sequence[Envelope],
        *,
        idempotency_key: str | None = None,
        fingerprint: bytes | None = None,
        seed: bytes | None = None,
        kind: str = "",
        record_format: int,
    ) -> AppendResult:
        """Encode and chain ``batch`` after the ``after`` head (see ``EventStore.append``);
        a format-2 game's batch must be sealed (``riskcore.audit.sealing.seal``)."""
        payloads = [envelope.encode() for envelope in batch]
        hashed = [hashed_bytes(e, p, record_format) for e, p in zip(batch, payloads, strict=True)]
        return self.store.append(
            game_id,
            after.version,
            new_events(after.hash, payloads, hashed),
            prev=after.hash,
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            seed=seed,
            kind=kind,
            hashed=hashed,
        )

    def envelopes(
        self, game_id: str, first: int = 1, last: int | None = None, count: int | None = None
    ) -> tuple[Envelope, ...]:
        """Envelopes ``first..last`` (inclusive), at most ``count``; () past the end."""
        return _envelopes(self.store.read(game_id, first, last, count))

    def events(self, game_id: str, first: int = 1, last: int | None = None) -> list[Event]:
        """The events alone, for readers that need no envelope (statistics)."""
        return [envelope.event for envelope in self.envelopes(game_id, first, last)]

    def wait(
        self, game_id: str, since: int, seconds: float, count: int | None = None
    ) -> tuple[Envelope, ...]:
        """Envelopes after ``since``, blocking up to ``seconds`` until one exists."""
        return _envelopes(self._waiting.wait(game_id, since, seconds, count=count))

    def after(self, game_id: str, held: Head) -> tuple[list[Event], Head] | None:
        """The events after the ``held`` head and the head they lead to.

        None when there are none, or when they do not follow the held hash:
        the game was deleted and created again under the same id, so what
        the caller holds is of another game.
        """
        newer = self.store.read(game_id, held.version + 1)
        if not newer or newer[0].prev != held.hash:
            return None
        return [_event(stored) for stored in newer], Head(newer[-1].version, newer[-1].hash)

    def since_snapshot(self, game_id: str) -> tuple[State | None, list[Event], bytes]:
        """The newest valid snapshot's state (None if there is none), the events after
        it and the head hash: what a cold load folds."""
        snapshot, stored, head_hash = self.store.events_after_snapshot(game_id, SNAPSHOT_STAMP)
        events = [_event(entry) for entry in stored]
        return (decode_state(snapshot.data) if snapshot else None), events, head_hash

    def keep_snapshots(
        self, game_id: str, old_version: int, new_version: int, state: State
    ) -> None:
        """After an append from ``old_version`` to ``new_version``: the snapshot, and the
        replay checkpoint, that it made due (one encoding serves both)."""
        if not self.store.should_snapshot(old_version, new_version):
            return
        encoded = encode_state(state)
        self.store.save_snapshot(game_id, new_version, encoded, SNAPSHOT_STAMP)
        if replays.crossed_checkpoint(old_version, new_version):
            key = self.store.keys.replay_checkpoints(game_id)
            replays.save_checkpoint(self.store.client, key, state.version, encoded)

    def state_at(self, game_id: str, version: int) -> State:
        """The state after ``version`` events, from the nearest replay checkpoint below."""
        key = self.store.keys.replay_checkpoints(game_id)
        return replays.state_at(self.store, self.store.client, key, game_id, version)


def _envelopes(stored: Sequence[StoredEvent]) -> tuple[Envelope, ...]:
    return tuple(decode_envelope(entry.payload) for entry in stored)


def _event(stored: StoredEvent) -> Event:
    return decode_envelope(stored.payload).event
