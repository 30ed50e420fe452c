"""The flow of records written before the events carried it (their version 1).

Version 2 of ``order_rolled``, ``territories_dealt``, ``territory_claimed``,
``armies_placed``, ``territory_occupied``, ``phase_ended`` and
``player_resigned`` carries the phase that follows and the setup turn that
begins (``next_phase``, ``setup_turn``). Version 1 left them to the engine,
so its upcasters mark them ``DERIVED`` and ``evolve`` asks this module,
which keeps the rules of that time as they were: each setup turn is one
army of your own, or, with neutral seats (the only game that had them),
three of your own and one for each neutral.

Frozen: a change of today's rules must never change these.
"""

from __future__ import annotations

from typing import Any

from riskcore.model.state import (
    ATTACK,
    FORTIFY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PHASES,
    SETUP_PLACE,
    State,
)
from riskcore.protocol import events as ev

DERIVED = "derived"  # a fact a version 1 event left to the engine


def flow_of(state: State, event: ev.Event) -> tuple[str | None, dict[str, Any] | None]:
    """(next phase, setup turn) as the version 1 engine worked them out, from the
    state ``event`` has just been applied to (its facts not yet)."""
    if isinstance(event, ev.OrderRolled):
        if event.purpose != "setup":
            return None, None
        phase = SETUP_PLACE if state.owner else SETUP_CLAIM
        return phase, _turn(state, _next_seat(state, event.winner, including=True))
    if isinstance(event, ev.TerritoriesDealt):
        turn = None
        if state.current is not None:
            turn = _turn(state, _next_seat(state, state.current, including=True))
        return SETUP_PLACE, turn
    if isinstance(event, ev.TerritoryClaimed):
        claimed = len(state.owner) == len(state.board.territory_names)
        return (SETUP_PLACE if claimed else None), _turn(state, _next_seat(state, event.seat))
    if isinstance(event, ev.ArmiesPlaced):
        if state.phase == SETUP_PLACE:
            done = not any(state.setup_quota.values())
            return None, _turn(state, _next_seat(state, event.seat)) if done else None
        ready = state.reserve[event.player] == 0 and state.must_trade_until is None
        return (ATTACK if ready else None), None
    if isinstance(event, ev.TerritoryOccupied):
        return (REINFORCE if state.must_trade_until is not None else ATTACK), None
    if isinstance(event, ev.PhaseEnded):
        return (FORTIFY if event.phase == ATTACK else None), None
    if isinstance(event, ev.PlayerResigned):
        if state.phase in SETUP_PHASES and state.current == event.seat:
            return None, _turn(state, _next_seat(state, event.seat))
        return None, None
    return None, None


def _turn(state: State, seat: str | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "quota": {}}
    quota = {seat: min(1 if not state.non_players() else 3, state.reserve[seat])}
    for neutral in state.non_players():
        quota[neutral] = min(1, state.reserve[neutral])
    return {"seat": seat, "quota": quota}


def _next_seat(state: State, after: str, *, including: bool = False) -> str | None:
    """Next player clockwise still to set up: while territories are unclaimed
    every active player claims in turn; after that, only those with armies left."""
    claiming = len(state.owner) < len(state.board.territory_names)
    i = state.order.index(after)
    for step in range(0 if including else 1, len(state.order) + 1):
        seat = state.order[(i + step) % len(state.order)]
        if state.is_active(seat) and (claiming or state.reserve.get(seat, 0) > 0):
            return seat
    return None


def trade_down_to(state: State, event: ev.TurnStarted) -> int | None:
    """A turn started with 5 or more cards must trade one set first (its hand
    less three), as the version 1 engine worked it out."""
    return len(state.hand(event.seat)) - 3 if event.must_trade else None
