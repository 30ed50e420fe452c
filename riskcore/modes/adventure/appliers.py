"""How each adventure event changes the state."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from riskcore.model.state import ATTACK, FORTIFY, State, copy_json
from riskcore.modes.adventure.deck import DEFENCE_WINDOW, EVENT, UPRISING, WINDOW, deck_of
from riskcore.modes.adventure.protocol import (
    AdventureCardDrawn,
    AdventureDeckShuffled,
    AdventureDefenceWindowOpened,
    AdventureDiscarded,
    AdventureMissionClaimed,
    AdventurePlayed,
    AdventureUprisingKept,
    AdventureUprisingRevealed,
    AdventureWindowOpened,
    AdventureWindowPassed,
)
from riskcore.modes.adventure.queries import _this_turn
from riskcore.protocol.events import Event


def _shuffled(state: State, event: AdventureDeckShuffled) -> None:
    state.adventure_deck = list(event.adventure_order)


def _drawn(state: State, event: AdventureCardDrawn) -> None:
    state.adventure_deck.remove(event.adventure)
    state.adventure_hands.setdefault(event.seat, []).append(event.adventure)
    if event.reason == "draw":
        state.mode_data["adventure_drawn_turn"] = state.turn


def _from_hand(state: State, seat: str, number: int) -> None:
    state.adventure_hands[seat].remove(number)


def _to_played(state: State, seat: str, number: int) -> None:
    state.mode_data.setdefault("adventure_played", {}).setdefault(seat, []).append(number)


def _to_discard(state: State, number: int) -> None:
    state.mode_data.setdefault("adventure_discard", []).append(number)


def _apply_changes(state: State, changes: Sequence[Sequence[Any]]) -> None:
    for territory, seat, delta in changes:
        if delta > 0:
            state.gain(territory, seat, delta)
        elif delta < 0:
            state.lose(territory, seat, -delta)


def _played(state: State, event: AdventurePlayed) -> None:
    facts = event.facts
    _from_hand(state, event.seat, event.adventure)
    if deck_of(state).cards[event.adventure].kind == EVENT:
        _to_discard(state, event.adventure)
    else:
        _to_played(state, event.seat, event.adventure)
    _apply_changes(state, facts.get("changes", ()))
    data = state.mode_data
    for card in facts.get("revealed_cards", ()):
        state.deck.remove(card)
        state.discard.append(card)
    if "storm" in facts:
        data["storm"] = {"seat": event.seat, "territories": list(facts["storm"])}
    if "stronghold_off" in facts:
        off = _this_turn(state, "stronghold_off") or {"turn": state.turn, "territories": []}
        off["territories"].append(facts["stronghold_off"])
        data["stronghold_off"] = off
    if "extra_manoeuvres" in facts:
        data["extra_manoeuvres"] = {"turn": state.turn, "left": facts["extra_manoeuvres"]}
    if facts.get("second_leader"):
        data.setdefault("second_leader_due", {})[event.seat] = True
    if "leader" in facts:
        source, target = facts["leader"]
        state.leaders[event.seat] = tuple(
            target if t == source else t for t in state.leaders[event.seat]
        )
        note_arrival(state, target)
    if "fellowship_step" in facts:
        state.fellowship = facts["fellowship_step"]
    if "window" in facts:
        open_now = data["window"]
        open_now["effects"].update(facts["window"])
        open_now["waiting"].pop(0)
    if "blocked" in facts:
        data.setdefault("blocked", []).append({"seat": event.seat, "border": facts["blocked"]})
    if facts.get("defence"):
        _defence_answered(state)
    if facts.get("called_off"):
        data["called_off"] = state.turn


def _uprising_kept(state: State, event: AdventureUprisingKept) -> None:
    state.deck.remove(event.card)
    state.hands.setdefault(UPRISING + event.seat, []).append(event.card)
    state.mode_data.setdefault("uprisings", {}).setdefault(event.seat, []).append(event.adventure)


def _uprising_revealed(state: State, event: AdventureUprisingRevealed) -> None:
    kept = state.hands[UPRISING + event.seat]
    at = kept.index(event.card)
    del kept[at]
    del state.mode_data["uprisings"][event.seat][at]
    state.discard.append(event.card)
    state.gain(event.territory, event.seat, event.armies)


def _defence_opened(state: State, event: AdventureDefenceWindowOpened) -> None:
    state.phase = DEFENCE_WINDOW
    state.mode_data.pop("called_off", None)
    state.mode_data["defence_window"] = {
        "seat": event.seat,
        "defender": event.defender,
        "source": event.source,
        "target": event.target,
        "command": copy_json(event.command),
    }


def _defence_answered(state: State) -> None:
    """The attacked player answered: back to the attack, this territory asked once."""
    attacked = state.mode_data.pop("defence_window")
    state.phase = ATTACK
    answered = _this_turn(state, "defence_answered") or {"turn": state.turn, "targets": []}
    answered["targets"].append(attacked["target"])
    state.mode_data["defence_answered"] = answered


def _window_opened(state: State, event: AdventureWindowOpened) -> None:
    state.phase = WINDOW
    state.mode_data["window"] = {
        "seat": event.seat,
        "roll": event.roll,
        "waiting": list(event.waiting),
        "effects": {},
    }


def _window_passed(state: State, event: AdventureWindowPassed) -> None:
    if state.phase == DEFENCE_WINDOW:
        _defence_answered(state)
        return
    state.mode_data["window"]["waiting"].pop(0)


def window_closed(state: State) -> None:
    """The Fellowship moved (or stayed): the window closes, the turn goes on ending."""
    if state.mode_data.pop("window", None) is not None:
        state.phase = FORTIFY
        state.mode_data["window_done_turn"] = state.turn


def _claimed(state: State, event: AdventureMissionClaimed) -> None:
    _from_hand(state, event.seat, event.adventure)
    _to_played(state, event.seat, event.adventure)
    _apply_changes(state, event.facts.get("changes", ()))
    state.mode_data["mission_leader"] = {
        "seat": event.seat,
        "territory": event.territory,
        "turn": state.turn,
    }


def _discarded(state: State, event: AdventureDiscarded) -> None:
    _from_hand(state, event.seat, event.adventure)
    _to_discard(state, event.adventure)


def note_arrival(state: State, target: str) -> None:
    """A leader conquered or moved onto a site of power: a card at the turn's end."""
    if target in state.board.sites_of_power:
        state.mode_data["site_reached_turn"] = state.turn


def note_extra_fortify(state: State) -> None:
    """Before a ``fortified`` is applied: one of Move by night's manoeuvres is used."""
    extra = _this_turn(state, "extra_manoeuvres")
    if extra and state.fortified and state.phase == FORTIFY:
        extra["left"] -= 1


def turn_started(state: State, seat: str) -> None:
    """A storm lasts until the start of its drawer's next turn."""
    storm = state.mode_data.get("storm")
    if storm and storm["seat"] == seat:
        del state.mode_data["storm"]
    blocked = state.mode_data.get("blocked")
    if blocked:  # You shall not pass lasts until the start of its player's next turn
        state.mode_data["blocked"] = [b for b in blocked if b["seat"] != seat]
        if not state.mode_data["blocked"]:
            del state.mode_data["blocked"]
    state.mode_data.pop("window", None)  # its turn's player resigned in it
    state.mode_data.pop("defence_window", None)


def second_leader_placed(state: State, seat: str) -> None:
    state.mode_data.get("second_leader_due", {}).pop(seat, None)


APPLIERS: dict[type[Event], Callable[[State, Any], None]] = {
    AdventureDeckShuffled: _shuffled,
    AdventureCardDrawn: _drawn,
    AdventurePlayed: _played,
    AdventureMissionClaimed: _claimed,
    AdventureDiscarded: _discarded,
    AdventureWindowOpened: _window_opened,
    AdventureWindowPassed: _window_passed,
    AdventureDefenceWindowOpened: _defence_opened,
    AdventureUprisingKept: _uprising_kept,
    AdventureUprisingRevealed: _uprising_revealed,
}
