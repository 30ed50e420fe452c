"""What each viewer sees of adventure cards, and a bot's guess at what it cannot see."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from riskcore.model.state import FINISHED, State
from riskcore.modes.adventure.deck import NO_DECK, UPRISING, deck_of, load_deck, plays
from riskcore.modes.adventure.queries import (
    _this_turn,
    blocked_borders,
    defence_window,
    discard_due,
    extra_manoeuvres,
    hand,
    uprising_cards,
    window,
)


def view(state: State, viewer: str | None) -> dict[str, Any]:
    """The adventure cards as ``viewer`` may see them: its own hand, everyone's counts,
    the played cards and discards; the pile's order and other hands only at the end."""
    if not plays(state):
        return {"deck": NO_DECK}
    over = state.phase == FINISHED
    data = state.mode_data
    storm = data.get("storm")
    return {
        "deck": state.rules.adventure_deck,
        "catalogue": list(_catalogue(state.rules.adventure_deck, state.board.name)),
        "pile_size": len(state.adventure_deck),
        "adventure_order": list(state.adventure_deck) if over else None,
        "hands": {
            seat: {
                "count": len(hand(state, seat)),
                "adventure_hand": list(hand(state, seat)) if over or seat == viewer else None,
            }
            for seat in state.order
        },
        "played": {s: list(v) for s, v in data.get("adventure_played", {}).items()},
        "discard": list(data.get("adventure_discard", [])),
        "discard_due": [s for s in state.order if discard_due(state, s)],
        "second_leader_due": sorted(data.get("second_leader_due", {})),
        "mission_leader": _this_turn(state, "mission_leader"),
        "storm": storm["territories"] if storm else [],
        "stronghold_off": (_this_turn(state, "stronghold_off") or {}).get("territories", []),
        "extra_manoeuvres": extra_manoeuvres(state),
        "window": _window_view(state),
        "defence_window": _defence_view(state),
        "blocked": sorted(sorted(b) for b in blocked_borders(state)),
        "uprisings": {
            seat: {
                "count": len(uprising_cards(state, seat)),
                "cards": list(uprising_cards(state, seat)) if over or seat == viewer else None,
            }
            for seat in state.order
            if uprising_cards(state, seat)
        },
    }


def _defence_view(state: State) -> dict[str, Any] | None:
    attacked = defence_window(state)
    if attacked is None:
        return None
    return {k: attacked[k] for k in ("seat", "defender", "source", "target")}


def _window_view(state: State) -> dict[str, Any] | None:
    open_now = window(state)
    if open_now is None:
        return None
    return {
        "roll": open_now["roll"],
        "waiting": list(open_now["waiting"]),
        "effects": dict(open_now["effects"]),
    }


@cache
def _catalogue(name: str, board: str) -> tuple[dict[str, Any], ...]:
    """Every card of the deck as the view lists it (made once: views are asked often)."""
    return tuple(c.to_dict() for c in load_deck(name, board).cards)


def unseen(state: State, seat: str) -> list[int]:
    """Card numbers ``seat`` cannot place: the other hands and the pile."""
    if not plays(state):
        return []
    data = state.mode_data
    known = set(hand(state, seat)) | set(data.get("adventure_discard", ()))
    for played in data.get("adventure_played", {}).values():
        known |= set(played)
    return [n for n in deck_of(state).numbers() if n not in known]


def deal_unseen(real: State, state: State, seat: str, rng: random.Random) -> None:
    """A bot's guess: the other hands (their counts are public) and the pile, dealt at
    random from the cards ``seat`` cannot place (``SeatView.determinize``)."""
    cards = unseen(real, seat)
    rng.shuffle(cards)
    hands: dict[str, list[int]] = {}
    for holder, held in real.adventure_hands.items():
        if holder == seat:
            hands[holder] = list(held)
        else:
            hands[holder], cards = cards[: len(held)], cards[len(held) :]
    state.adventure_hands = hands
    state.adventure_deck = cards
    _own_uprisings(real, state, seat)


def _own_uprisings(real: State, state: State, seat: str) -> None:
    """The territory cards are dealt to every hand the seat cannot see, its own
    uprisings' hand too: that one is put back, the cards it held swapped away."""
    key = UPRISING + seat
    mine = list(real.hands.get(key, ()))
    dealt = state.hands.get(key, [])
    if key not in real.hands or dealt == mine:
        return
    spare = iter([c for c in dealt if c not in mine])
    swap = {c: next(spare) for c in mine if c not in dealt}
    for hand_id, cards in state.hands.items():
        if hand_id != key:
            state.hands[hand_id] = [swap.get(c, c) for c in cards]
    state.deck = [swap.get(c, c) for c in state.deck]
    state.hands[key] = mine
