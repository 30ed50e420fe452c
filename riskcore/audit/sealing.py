"""Commitments to an event's secret fields: what record format 2 hashes instead of them.

A drawn card hides one of 44 values; hashing the event whole would let any
viewer holding its hash try them all. So in format 2 an event's chain hash
covers its *public* part (the secret fields hidden: an int as -1, a list as
that many -1, exactly as spectators see it) and a commitment ``x`` to the
secret fields::

    salt(n)  = HMAC-SHA256(key = server seed, msg = "risk/salt/v1" | game_id | n)
    x        = HMAC-SHA256(key = salt(n), msg = canonical({field: value, ...}))

``|`` is a 0x1f byte and ``n`` the event's version (decimal). The seed is
committed in ``game_created`` and revealed in ``game_finished``: before the
end nobody but the server can compute a salt, so a commitment tells a
viewer nothing; after it, anyone recomputes every salt and checks every
commitment. A seat that may see a secret is given that one event's salt
with it and can check its own card at once; one salt reveals nothing about
another (HMAC is a pseudorandom function of the seed). The format and its
threat model are in docs/records.md.

Everything here works on envelope *dicts* as stored, not on decoded events,
so an event written today hashes the same after its schema gains a version
(which is why a secret field must keep its name in later versions: the
current ``SECRET`` declaration finds it in old events too).
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from riskcore.protocol.codec import EVENT_CLASSES, canonical, event_to_dict

if TYPE_CHECKING:
    from riskcore.audit.record import Envelope

SALT_DOMAIN = b"risk/salt/v1"
_SEP = b"\x1f"


def salt(seed: bytes, game_id: str, version: int) -> bytes:
    """The salt of event ``version``: secret until the seed is revealed."""
    message = _SEP.join((SALT_DOMAIN, game_id.encode(), str(version).encode()))
    return hmac.digest(seed, message, "sha256")


def commit(event_salt: bytes, secret: dict[str, Any]) -> str:
    """The commitment (hex) to an event's secret fields under its salt."""
    return hmac.digest(event_salt, canonical(secret), "sha256").hex()


def secret_fields(event: dict[str, Any]) -> tuple[str, ...]:
    """The secret fields of an event dict, by its type's ``SECRET`` declaration."""
    cls = EVENT_CLASSES.get(event.get("type", ""))
    return cls.SECRET if cls is not None else ()


def hidden(value: Any) -> Any:
    """A secret value as the public part shows it: -1, or a list of that many -1."""
    if isinstance(value, list | tuple):
        return [-1] * len(value)
    return -1


def secret_of(event: dict[str, Any]) -> dict[str, Any]:
    """The secret fields of an event dict and their values ({} for a public event)."""
    return {name: event[name] for name in secret_fields(event) if name in event}


def public_event(event: dict[str, Any], secret: dict[str, Any]) -> dict[str, Any]:
    """The event dict with its ``secret`` fields hidden."""
    return {**event, **{name: hidden(value) for name, value in secret.items()}}


def public_envelope(envelope: dict[str, Any]) -> dict[str, Any]:
    """What a format-2 chain hashes for a stored envelope dict: the public event,
    and the commitment ``x`` the envelope carries (an envelope without one is
    hashed whole: a public event, or one of a format-1 game)."""
    if "x" not in envelope:
        return envelope
    return {**envelope, "e": public_event(envelope["e"], secret_of(envelope["e"]))}


def matches(secret: dict[str, Any], event_salt: bytes, commitment: str) -> bool:
    """Whether ``secret`` opens ``commitment`` under ``event_salt`` (constant time)."""
    return hmac.compare_digest(commit(event_salt, secret), commitment)


def seal(batch: Sequence[Envelope], seed: bytes, game_id: str) -> list[Envelope]:
    """The batch with a commitment on every envelope whose event has secret fields."""
    sealed = []
    for envelope in batch:
        if type(envelope.event).SECRET:
            secret = secret_of(event_to_dict(envelope.event))
            envelope = replace(
                envelope, commitment=commit(salt(seed, game_id, envelope.version), secret)
            )
        sealed.append(envelope)
    return sealed
