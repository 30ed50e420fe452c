"""What each viewer may see: ``view`` of a state and ``redact`` of an event.

A seat sees its own hand (and missions); everyone else sees counts.
Spectators (viewer ``None``) see public facts only. The deck order and the
server seed are seen by nobody until the game ends; after that, all is
public, so a finished game can be audited by anyone.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from riskcore.model.state import FINISHED, State
from riskcore.protocol import events as ev
from riskcore.rules.battle import defending_seat


def view(state: State, viewer: str | None) -> dict[str, Any]:
    """The state as ``viewer`` (a seat id, or None for a spectator) may see it."""
    s = state
    reveal = s.phase == FINISHED
    return {
        "game_id": s.game_id,
        "version": s.version,
        "board": s.board.name,
        "mode": s.mode.name,
        "rules": s.rules.to_dict(),
        "phase": s.phase,
        "turn": s.turn,
        "current": s.current,
        "defender_to_choose": defending_seat(s),
        "viewer": viewer,
        "seats": [_seat(s, seat, viewer, reveal) for seat in s.seats],
        "order": list(s.order),
        "territories": _territories(s),
        "reinforcements": s.reserve.get(s.current, 0) if s.current else 0,
        "setup_quota": dict(s.setup_quota),
        "must_trade": s.must_trade_until is not None,
        "occupation": _plain(s.occupation),
        "pending_battle": _plain(s.pending_battle),
        "conquered_this_turn": s.conquered,
        "fortified_this_turn": s.fortified,
        "sets_traded": s.sets_traded,
        "next_trade_value": s.mode.trade_value(s, ("infantry",) * 3)
        if s.rules.card_values == "progressive"
        else None,
        "deck_size": len(s.deck),
        "deck": list(s.deck) if reveal else None,
        "discard": list(s.discard),
        "winner": s.winner,
        "winners": list(s.winners),
        "finish_reason": s.finish_reason,
        "seed_commitment": s.seed_commitment,
        "seed": s.revealed_seed,
        "mode_state": s.mode.view(s, viewer),
    }


def _territories(s: State) -> dict[str, dict[str, Any]]:
    """Each territory's controller and armies; where armies of several seats
    stand (the team game), every army there and each seat's ``stacks``."""
    territories: dict[str, dict[str, Any]] = {
        t: {"owner": s.controller(t), "armies": s.troops(t)} for t in s.board.territory_names
    }
    armies = s.armies
    for t in s.shared:
        stacks = {p: n for p in s.seats if (n := armies.get((t, p), 0)) > 0}
        territories[t] = {
            "owner": s.controller(t),
            "armies": sum(stacks.values()),
            "stacks": stacks,
        }
    return territories


def _seat(s: State, seat: str, viewer: str | None, reveal: bool) -> dict[str, Any]:
    info = s.seats[seat]
    hand = s.hand(seat)
    sees_hand = reveal or (viewer is not None and s.hand_id(viewer) == s.hand_id(seat))
    return {
        "id": seat,
        "name": info.name,
        "kind": info.kind,
        "team": info.team,
        "status": s.out.get(seat, "playing"),
        "territories": sum(1 for p in s.owner.values() if p == seat),
        "armies": sum(n for (_, p), n in s.armies.items() if p == seat),
        "card_count": len(hand),
        "cards": list(hand) if sees_hand else None,
        "reserve": s.reserve.get(seat, 0),
    }


def _plain(value: Any) -> dict[str, Any] | None:
    return dataclasses.asdict(value) if value is not None else None


def redact(event: ev.Event, viewer: str | None, *, reveal: bool = False) -> ev.Event:
    """The event as ``viewer`` may see it; secrets become ``-1`` or are emptied.

    ``reveal`` is true once the game has ended. Hidden card ids are -1 so
    the shape of the event stays the same and counts stay visible.
    """
    if reveal:
        return event
    if isinstance(event, ev.DeckShuffled):
        return dataclasses.replace(event, order=(-1,) * len(event.order))
    if isinstance(event, ev.CardDrawn) and event.seat != viewer:
        return dataclasses.replace(event, card=-1)
    if isinstance(event, ev.PlayerEliminated) and viewer != event.seat:
        # Only the conqueror: the cards are now in its hand (the player who
        # lost them knew them, but need not be told who holds them now).
        return dataclasses.replace(event, cards=(-1,) * len(event.cards))
    return event.redacted_for(viewer)
