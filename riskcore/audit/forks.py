"""A fork checked against its parent's record: it starts where the parent stood.

``verify_text`` checks a fork on its own like any game (chain, commitment,
replay from its first event's position with its own seed). Given the
parent's record too, ``check_parent`` adds what the fork's first event
claims of the parent: the parent's record verifies, is the game named, has
the head hash named, and its state at the version named is the position the
fork carries (``riskcore.engine.fork.position_of``: the draw pile in card
order, since the fork drew its order again).
"""

from __future__ import annotations

from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.audit.verify import Divergence, verify_text
from riskcore.engine.evolve import fold
from riskcore.engine.fork import position_of
from riskcore.errors import RiskError
from riskcore.protocol import events as ev
from riskcore.protocol.codec import canonical


def check_parent(fork_text: str, parent_text: str) -> Divergence | None:
    """None when the fork's first event is true of the parent, else what is not."""
    try:
        first = envelope_from_dict(parse_record(fork_text).entries[0].envelope()).event
    except (RiskError, IndexError) as error:
        return Divergence("parent", f"the fork's record cannot be read: {error}")
    if not isinstance(first, ev.GameForked):
        return Divergence("parent", "the record is not a fork (no game_forked)", version=1)
    verdict = verify_text(parent_text)
    if not verdict.ok:
        return Divergence("parent", "the parent's record does not verify", found=verdict.status)
    claims = (
        ("parent_game_id", first.parent_game_id, verdict.game_id),
        ("parent_head", first.parent_head, verdict.head),
    )
    for name, claimed, found in claims:
        if claimed != found:
            return Divergence("parent", f"the parent's {name} differs", 1, name, claimed, found)
    return _position(first, parent_text)


def _position(first: ev.GameForked, parent_text: str) -> Divergence | None:
    entries = parse_record(parent_text).entries
    if not 1 <= first.parent_version < len(entries):
        return Divergence("parent", "the parent has no such version", 1, "parent_version")
    events = [envelope_from_dict(e.envelope()).event for e in entries[: first.parent_version]]
    try:
        expected = position_of(fold(events))
    except RiskError as error:
        return Divergence("parent", f"that version cannot be forked: {error.message}", 1)
    if canonical(expected) != canonical(first.position):
        return Divergence(
            "parent",
            f"the position is not the parent's at version {first.parent_version}",
            version=1,
            field="position",
        )
    return None
