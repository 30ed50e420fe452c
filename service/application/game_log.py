"""A game's stored stream in the terms the application uses: envelopes and states.

The event store (``service.store``) is generic over bytes on purpose. This
module is the one place that knows what those bytes are, and the one door of
the application to the event store (head, seed, version, a request's original
append, snapshots, checkpoints), so the application service deals in
envelopes, events and states only:

* each stream entry is an envelope (``riskcore.audit.record``), encoded
  canonically and chained by hash (``service.store.values.new_events``);
* the snapshot is a state encoded by ``riskcore.engine.snapshot`` and
  stamped with ``SNAPSHOT_STAMP``, so a codec change never decodes an old one;
* replay checkpoints (``service.application.replays``, kept by
  ``service.store.checkpoints``) are written from that same encoding, as the
  game crosses each ``CHECKPOINT_EVERY`` events.

An append given the state it leads to keeps the snapshot and checkpoint it made
due on its way back up, so no caller goes down to the store a second time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from riskcore.audit.chain import GENESIS
from riskcore.audit.record import Envelope, decode_envelope, hashed_bytes
from riskcore.engine.snapshot import SNAPSHOT_STAMP, decode_state, encode_state
from riskcore.model.state import State
from riskcore.protocol.events import Event
from service.application import replays
from service.store.checkpoints import Checkpoints
from service.store.event_store import EventStore
from service.store.values import AppendResult, Head, StoredEvent, new_events

__all__ = ["NO_EVENTS", "Ends", "GameLog"]

NO_EVENTS = Head(0, GENESIS)  # where a game's opening batch is appended


class Ends(NamedTuple):
    """A game's two ends: what the archive's summary of it reads (``GameLog.ends``).

    ``first_hash`` tells one game from another created later under the same id
    (a summary keeps what the first event says, the game's setup, for the game's
    life); the first event is decoded only when asked for (``first``)."""

    first_hash: bytes
    head: Head
    last: Envelope
    first_payload: bytes

    def first(self) -> Envelope:
        return decode_envelope(self.first_payload)


class GameLog:
    """Append and read one store's games as envelopes; snapshots and checkpoints beside."""

    def __init__(
        self,
        store: EventStore,
        waiting: EventStore | None = None,
        checkpoints: Checkpoints | None = None,
    ) -> None:
        """``waiting`` serves long-polls: a store on a client with a long timeout."""
        self.store = store
        self._waiting = waiting or store
        self._checkpoints = checkpoints or Checkpoints(store.client, store.keys)

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
        state: State | None = None,
    ) -> AppendResult:
        """Encode and chain ``batch`` after the ``after`` head (see ``EventStore.append``);
        a format-2 game's batch must be sealed (``riskcore.audit.sealing.seal``).
        ``state``, the state the batch leads to: the snapshot and replay checkpoint
        the append made due are kept (not for a replayed append: its own did)."""
        payloads = [envelope.encode() for envelope in batch]
        hashed = [hashed_bytes(e, p, record_format) for e, p in zip(batch, payloads, strict=True)]
        result = self.store.append(
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
        if state is not None and not result.replayed:
            self.keep_snapshots(game_id, after.version, result.last_version, state)
        return result

    def original(self, game_id: str, key: str, fingerprint: bytes) -> AppendResult | None:
        """What the append made with idempotency ``key`` stored, if it made one
        (``EventStore.original_append``)."""
        return self.store.original_append(game_id, key, fingerprint)

    def head(self, game_id: str) -> Head:
        """Version and head hash; GameNotFound before the first event."""
        return self.store.head(game_id)

    def version(self, game_id: str) -> int:
        """How many events the game has; GameNotFound before the first."""
        return self.store.version(game_id)

    def exists(self, game_id: str) -> bool:
        """Whether the game has any event stored (a lobby has none)."""
        return self.store.exists(game_id)

    def seed(self, game_id: str) -> bytes | None:
        """The secret server seed, stored by the first append."""
        return self.store.seed(game_id)

    def delete(self, game_id: str) -> None:
        """Operator action: the game's events, head, seed and snapshot."""
        self.store.delete_game(game_id)

    def stored(self, game_id: str) -> Iterator[StoredEvent]:
        """Every stored event as stored (hash, previous hash, payload): for records."""
        return self.store.iter_events(game_id)

    def envelopes(
        self, game_id: str, first: int = 1, last: int | None = None, count: int | None = None
    ) -> tuple[Envelope, ...]:
        """Envelopes ``first..last`` (inclusive), at most ``count``; () past the end."""
        return _envelopes(self.store.read(game_id, first, last, count))

    def ends(self, game_ids: Sequence[str]) -> dict[str, Ends]:
        """Each game's first event, head and last envelope, one round trip for them all;
        games without events are left out. Only the last envelope is decoded."""
        found = self.store.ends(game_ids)
        return {
            game_id: Ends(first.hash, Head(last.version, last.hash), _envelope(last), first.payload)
            for game_id, (first, last) in found.items()
        }

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
            # Written as the game is played, from the snapshot's encoding, so even the
            # first look back at a long game folds at most ``CHECKPOINT_EVERY`` events.
            self._checkpoints.write(game_id, SNAPSHOT_STAMP, {str(state.version): encoded})

    def state_at(self, game_id: str, version: int) -> State:
        """The state after ``version`` events, from the nearest replay checkpoint below."""
        return replays.state_at(self.store, self._checkpoints, game_id, version)


def _envelopes(stored: Sequence[StoredEvent]) -> tuple[Envelope, ...]:
    return tuple(decode_envelope(entry.payload) for entry in stored)


def _envelope(stored: StoredEvent) -> Envelope:
    return decode_envelope(stored.payload)


def _event(stored: StoredEvent) -> Event:
    return decode_envelope(stored.payload).event
