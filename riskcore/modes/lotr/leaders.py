"""Where each player's leaders stand and what is owed of them."""

from __future__ import annotations

from riskcore.model.state import State
from riskcore.modes import adventure


def leaders_of(state: State, seat: str | None) -> tuple[str, ...]:
    return state.leaders.get(seat, ()) if seat is not None else ()


def second_leader_owed(state: State, seat: str) -> bool:
    """A second leader drawn this turn waits to be placed before the turn ends
    (``second_leader`` ``at_once``; 002_84c66041fccdfcee.txt: «SÄTT EN ANDRA LEDARE I
    SPEL SPELAS OMEDELBART Placera en andra Ledare i valfritt territorium»)."""
    return (
        state.rules.second_leader == "at_once"
        and adventure.second_leader_due(state, seat)
        and bool(state.leaders.get(seat))
    )


def leaderless(state: State, seat: str) -> bool:
    """No leader of ``seat`` on the board while it holds territory: one must be placed."""
    return not state.leaders.get(seat) and bool(state.territories_of(seat))
