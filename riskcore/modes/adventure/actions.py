"""The legal actions adventure cards add."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from riskcore.engine.legal import Action
from riskcore.model.state import ATTACK, State
from riskcore.modes.adventure.deck import (
    BEFORE_ATTACK,
    BEFORE_ATTACK_STRONGHOLD,
    MISSION,
    POWER,
    POWER_MOMENTS,
    WINDOWS,
    AdventureCard,
    deck_of,
    plays,
)
from riskcore.modes.adventure.powers import _window_fits, _withdrawals, drawn_closes, roll_choices
from riskcore.modes.adventure.queries import (
    blocked_borders,
    discard_due,
    extra_manoeuvres,
    hand,
    window_seat,
)


def _body(kind: str, number: int, **fields: str | None) -> Action:
    command: dict[str, Any] = {"type": kind, "adventure": number}
    command.update({k: v for k, v in fields.items() if v is not None})
    return {"command": command, "bounds": {}}


def discards(s: State, seat: str) -> list[Action]:
    if not discard_due(s, seat):
        return []
    return [_body("discard_adventure", n) for n in hand(s, seat)]


def power_plays(s: State, seat: str) -> list[Action]:
    """Each power card of ``seat``'s hand playable now, with each way to play it."""
    acting = window_seat(s) if s.phase in WINDOWS else s.current
    if not plays(s) or discard_due(s, seat) or acting != seat or drawn_closes(s, seat):
        return []
    cards = deck_of(s).cards
    actions: list[Action] = []
    attacks: list[tuple[str, str]] | None = None
    for number in dict.fromkeys(hand(s, seat)):
        card = cards[number]
        if card.kind != POWER or s.phase not in POWER_MOMENTS[card.moment]:
            continue
        if not _window_fits(s, card):
            continue
        if card.moment in (BEFORE_ATTACK, BEFORE_ATTACK_STRONGHOLD):
            if attacks is None:
                attacks = _attacks(s, seat)
            strong = card.moment == BEFORE_ATTACK_STRONGHOLD
            actions.extend(
                _body("play_adventure", number, source=a, target=t)
                for a, t in attacks
                if (not strong or t in s.board.strongholds) and _takes_something(s, card, t)
            )
        elif card.primitive == "withdraw":
            attacked = s.mode_data["defence_window"]["target"]
            actions.extend(
                _body("play_adventure", number, target=t) for t in _withdrawals(s, seat, attacked)
            )
        elif card.primitive in _LISTED:
            actions.extend(_LISTED[card.primitive](s, seat, number, card))
        elif card.primitive == "move_own_leader":
            own = s.leaders.get(seat, ())
            actions.extend(
                _body("play_adventure", number, source=a, target=t)
                for a in own
                for t in s.territories_of(seat)
                if t not in own
            )
        else:
            actions.append(_body("play_adventure", number))
    return actions


def _takes_something(s: State, card: AdventureCard, target: str) -> bool:
    """Grima Wormtongue takes defenders over, "1 always stays": against a territory of
    one army it takes none, so it is not offered there (issue 51). The engine still
    accepts such a play, a card spent for nothing: records that hold one replay."""
    return card.primitive != "take_defenders" or s.troops(target) > 1


def _shift_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    """One ready body per choice (+2 or -2, nothing between: no range to list in
    ``bounds``, which bots read as one to clamp into)."""
    return [
        {"command": {"type": "play_adventure", "adventure": number, "shift": shift}, "bounds": {}}
        for shift in roll_choices(card)
    ]


def _border_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    blocked = blocked_borders(s)
    kind = card.params["kind"]
    ends = sorted(
        sorted(pair)
        for pair, k in s.board.border_kinds.items()
        if k == kind and pair not in blocked
    )
    return [_body("play_adventure", number, source=a, target=b) for a, b in ends]


def _storm_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    attacked = s.mode_data["defence_window"]
    by_sea = s.board.border_kind(attacked["source"], attacked["target"]) == card.params["border"]
    return [_body("play_adventure", number)] if by_sea else []


_LISTED: dict[str, Callable[[State, str, int, AdventureCard], list[Action]]] = {
    "fellowship_roll_choice": _shift_plays,
    "block_border": _border_plays,
    "destroy_attackers": _storm_plays,
}


def _attacks(s: State, seat: str) -> list[tuple[str, str]]:
    from riskcore.rules.actions import BY_PHASE

    (builder,) = [b for name, b in BY_PHASE[ATTACK] if name == "attack"]
    return [(a["command"]["source"], a["command"]["target"]) for a in builder(s, seat)]


def passes(s: State, seat: str) -> list[Action]:
    return [{"command": {"type": "pass_adventure"}, "bounds": {}}] if window_seat(s) == seat else []


def mission_claims(s: State, seat: str) -> list[Action]:
    if not plays(s) or discard_due(s, seat) or s.current != seat or drawn_closes(s, seat):
        return []
    cards = deck_of(s).cards
    leaders = s.leaders.get(seat, ())
    actions: list[Action] = []
    for number in dict.fromkeys(hand(s, seat)):
        card = cards[number]
        if card.kind != MISSION or card.site not in leaders:
            continue
        where = card.effect.get("where", "site")
        if "armies" in card.effect and isinstance(where, dict):
            region = next(g for g in s.board.groups if g.id == where["region"])
            actions.extend(
                _body("claim_adventure", number, territory=t)
                for t in s.territories_of(seat)
                if t in region.territories
            )
        else:
            actions.append(_body("claim_adventure", number))
    return actions


def extra_fortifies(s: State, seat: str, builder: Callable[[State, str], Sequence[Action]]) -> Any:
    """The manoeuvres Move by night still allows, listed as the first one is."""
    if not s.fortified or extra_manoeuvres(s) < 1 or s.current != seat:
        return builder(s, seat)
    fresh = s.copy()
    fresh.fortified = False
    return builder(fresh, seat)
