"""How each event of the mode changes the state."""

from __future__ import annotations

from riskcore.model.state import State
from riskcore.modes import adventure
from riskcore.modes.lotr.protocol import (
    SETUP_LEADER,
    FellowshipMoved,
    LeaderLost,
    LeaderMoved,
    LeaderPlaced,
    LeadersCalled,
    ScoreTieRolled,
)


def _leaders_called(state: State, event: LeadersCalled) -> None:
    state.phase = SETUP_LEADER
    state.current = event.seat


def _leader_placed(state: State, event: LeaderPlaced) -> None:
    state.leaders[event.seat] = (*state.leaders.get(event.seat, ()), event.territory)
    if event.reason == "setup":
        state.current = event.next_seat
    elif event.reason == "second":
        adventure.second_leader_placed(state, event.seat)


def _leader_moved(state: State, event: LeaderMoved) -> None:
    state.leaders[event.seat] = tuple(
        event.target if t == event.source else t for t in state.leaders[event.seat]
    )
    if event.reason == "manoeuvre":
        state.mode_data.setdefault("leader_moved_turn", {})[event.seat] = state.turn
    adventure.note_arrival(state, event.target)


def _leader_lost(state: State, event: LeaderLost) -> None:
    state.leaders[event.seat] = tuple(t for t in state.leaders[event.seat] if t != event.territory)


def _fellowship_moved(state: State, event: FellowshipMoved) -> None:
    state.fellowship = event.step
    adventure.window_closed(state)


def _tie_rolled(state: State, event: ScoreTieRolled) -> None:
    state.mode_data["tie_winner"] = event.winner
