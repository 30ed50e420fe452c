"""Mission cards: claimed with a leader on their site of power, the reward paid at once."""

from __future__ import annotations

from typing import Any

from riskcore.engine.decision import Decision, check_owns, violation
from riskcore.model.state import ATTACK, FORTIFY, State
from riskcore.modes.adventure.deck import MISSION
from riskcore.modes.adventure.powers import _held, drawn_closes
from riskcore.modes.adventure.protocol import AdventureMissionClaimed, ClaimAdventure
from riskcore.rules import turns


def claim(d: Decision, command: ClaimAdventure) -> None:
    """002: "Du kan förklara ett uppdrag genomfört ... när som helst under faserna Strid
    och Manöver, genom att flytta din ledare till det aktuella territoriet"."""
    s = d.state
    seat = command.seat
    card = _held(s, seat, command.adventure)
    if card.kind != MISSION:
        raise violation("not_a_mission_card", f"{card.name!r} is a {card.kind} card, not a mission")
    if drawn_closes(s, seat):
        raise violation(
            "adventure_drawn", "you drew an adventure card this turn: no more cards but events"
        )
    if s.phase not in (ATTACK, FORTIFY):
        raise violation(
            "adventure_wrong_moment", "a mission is claimed in the battle or manoeuvre phase"
        )
    assert card.site is not None
    if card.site not in s.leaders.get(seat, ()):
        raise violation(
            "no_leader_at_site", f"{card.name!r} needs a leader of yours in {card.site!r}"
        )
    reward = card.effect
    changes: list[list[Any]] = []
    if "armies" in reward:
        side = s.seats[seat].side or "good"
        where = reward.get("where", "site")
        place = card.site if where == "site" else _region_territory(s, seat, where, command)
        changes.append([place, seat, reward["armies"][side]])
    d.emit(
        AdventureMissionClaimed(
            seat=seat, adventure=command.adventure, territory=card.site, facts={"changes": changes}
        )
    )
    for _ in range(reward.get("territory_cards", 0)):
        turns.draw_card(d, seat)


def _region_territory(s: State, seat: str, where: Any, command: ClaimAdventure) -> str:
    region = next(g for g in s.board.groups if g.id == where["region"])
    if command.territory is None or command.territory not in region.territories:
        raise violation(
            "adventure_needs_target", f"name a territory of yours in {region.id!r} for the reward"
        )
    check_owns(s, seat, command.territory)
    return command.territory
