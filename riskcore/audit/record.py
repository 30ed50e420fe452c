"""Stored event envelopes: what one entry of a game's event stream holds.

The event store keeps opaque bytes; these are they. One envelope per event:

    {"n": <version>, "t": <unix ms>, "a": <actor>, "e": <event>, "c": <command>?,
     "b": <bot provenance>?, "x": <commitment>?}

``n`` is the game version the event creates (1 for ``game_created``); ``t``
the server time the batch was accepted; ``a`` the seat that acted, or
``"system"`` for events the server makes on its own (game creation, clock
timeouts). The first envelope of a batch carries ``c``, the command body
that caused the batch, and ``b`` (``{"name", "version", "ms"}``) when a bot
chose it, so an auditor can replay commands and compare events. ``x`` is
the commitment to the event's secret fields (``riskcore.audit.sealing``), on
the events of a format-2 game that have any. Keys are one letter because
every byte is paid for in Redis memory per event.

Envelopes are stored canonically (``riskcore.protocol.codec.canonical``). The
hash chain (``riskcore.audit.chain``) covers ``hashed_bytes``: those same
bytes for an envelope without ``x``, else the envelope with the secret
fields hidden (docs/records.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from riskcore.audit.sealing import public_envelope
from riskcore.errors import RecordError
from riskcore.protocol import events as ev
from riskcore.protocol.codec import canonical, event_from_dict, event_to_dict
from riskcore.protocol.frozen import fast_init

SYSTEM = "system"


@fast_init  # a verification or a load builds one per event
@dataclass(frozen=True, slots=True, kw_only=True)
class Envelope:
    version: int
    time_ms: int
    actor: str
    event: ev.Event
    command: dict[str, Any] | None = None
    bot: dict[str, Any] | None = None
    commitment: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "n": self.version,
            "t": self.time_ms,
            "a": self.actor,
            "e": event_to_dict(self.event),
        }
        if self.command is not None:
            data["c"] = self.command
        if self.bot is not None:
            data["b"] = self.bot
        if self.commitment is not None:
            data["x"] = self.commitment
        return data

    def encode(self) -> bytes:
        return canonical(self.to_dict())


def hashed_bytes(envelope: Envelope, encoded: bytes, record_format: int) -> bytes:
    """What the chain hashes for ``envelope``, stored as ``encoded``.

    Refuses an event with secret fields and no commitment in a format-2
    game: hashing it whole would publish a hash anyone can test guesses
    against (``riskcore.audit.sealing.seal`` adds the commitment).
    """
    if envelope.commitment is None:
        if record_format >= 2 and type(envelope.event).SECRET:
            raise ValueError(f"event {envelope.version} has secret fields: seal it first")
        return encoded
    return canonical(public_envelope(envelope.to_dict()))


def envelopes(
    events: Sequence[ev.Event],
    *,
    first_version: int,
    time_ms: int,
    actor: str,
    command: dict[str, Any] | None = None,
    bot: dict[str, Any] | None = None,
) -> list[Envelope]:
    """Wrap one batch: consecutive versions, the command on the first only."""
    return [
        Envelope(
            version=first_version + i,
            time_ms=time_ms,
            actor=actor,
            event=event,
            command=command if i == 0 else None,
            bot=bot if i == 0 else None,
        )
        for i, event in enumerate(events)
    ]


def envelope_from_dict(data: Any) -> Envelope:
    if not isinstance(data, dict):
        raise RecordError("an envelope must be a JSON object")
    try:
        return Envelope(
            version=int(data["n"]),
            time_ms=int(data["t"]),
            actor=str(data["a"]),
            event=event_from_dict(data["e"]),
            command=data.get("c"),
            bot=data.get("b"),
            commitment=data.get("x"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"bad envelope: {error!r}") from None


def decode_envelope(raw: bytes | str) -> Envelope:
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise RecordError(f"envelope is not JSON: {error}") from None
    return envelope_from_dict(data)
