"""Turn clocks as the API shows them: who must move, and by when.

The workers set a deadline when a person must act in a game with a clock
(``workers.jobs``) and keep it in one hash per game (``service.store.clocks``); a
deadline covers one seat's whole turn, or one setup step or defence.
``clock_key_of`` names that span, so the API shows a deadline only while
it still applies, and the job that enforces it checks the same.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from riskcore.model.state import DEFEND, State
from riskcore.simulate import acting_seat
from service.store.clocks import Clocks


def clock_key_of(state: State, seat: str) -> str:
    """What one deadline covers: a seat's whole turn, or one setup step or defence."""
    if state.turn == 0 or state.phase == DEFEND:
        return f"{state.turn}.{seat}.{state.version}"
    return f"{state.turn}.{seat}"


def deadline(clocks: Clocks, game_id: str, state: State) -> dict[str, Any] | None:
    """``{"seat", "at"}`` while a deadline runs for the seat that must act, else None."""
    seat = acting_seat(state)
    if seat is None:
        return None
    running = clocks.running(game_id)
    if running is None or running.key != clock_key_of(state, seat):
        return None
    at = datetime.fromtimestamp(running.at_ms / 1000, UTC).isoformat(timespec="milliseconds")
    return {"seat": seat, "at": at}
