"""How far a seat is along its own missions (the mission games), from 0 to 1.

Read from what the seat may see: its missions' goals as the mode's part of
its view shows them (``view()["mode_state"]["missions"]``; other seats'
missions are hidden there, and blank in a determinised state). Each goal
(see ``riskcore.modes.missions``) is measured part by part and the parts
averaged:

- ``continents``: the share of each named continent held;
- ``more_continents``: the shares of the best other continents, that many;
- ``named``: the share of the named territories held;
- ``territories`` (with ``min_armies``): territories with enough armies,
  over the number wanted;
- ``destroy``: 1 once the target is out, else how far it is below an
  equal share of the board;
- ``conquests`` (in one turn) is not a position, and is left out.

A claimed mission counts 1. The strong bot's evaluation mixes this in, so
rollouts that bring a mission nearer score higher before it is done
(``evaluate.Weights.mission``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskcore.model.state import State
from riskcore.views.seatview import SeatView


def progress(state: State, seat: str) -> float | None:
    """The mean progress over ``seat``'s missions, or None when it has none."""
    shown = SeatView(state, seat).mode_state().get("missions", {}).get(seat)
    if not shown:
        return None
    held = set(state.territories_of(seat))
    parts = [
        1.0 if m["claimed"] else goal_progress(state, seat, held, m["goal"] or {}) for m in shown
    ]
    return sum(parts) / len(parts)


def goal_progress(state: State, seat: str, held: set[str], goal: Mapping[str, Any]) -> float:
    """How much of one goal ``seat`` (holding ``held``) has done, 0 to 1."""
    parts: list[float] = []
    share = {g.id: len(g.territories & held) / len(g.territories) for g in state.board.groups}
    named_groups = list(goal.get("continents", ()))
    parts.extend(share.get(c, 0.0) for c in named_groups)
    more = goal.get("more_continents", 0)
    if more:
        others = sorted((v for g, v in share.items() if g not in named_groups), reverse=True)
        parts.extend(others[:more])
    named = goal.get("named", ())
    if named:
        parts.append(sum(1 for t in named if t in held) / len(named))
    wanted = goal.get("territories", 0)
    if wanted:
        least = goal.get("min_armies", 1)
        armies = state.armies
        enough = sum(1 for t in held if armies.get((t, seat), 0) >= least)
        parts.append(min(1.0, enough / wanted))
    target = goal.get("destroy")
    if target is not None:
        parts.append(_destroy_progress(state, seat, target))
    return sum(parts) / len(parts) if parts else 0.0


def _destroy_progress(state: State, seat: str, target: str) -> float:
    if target == seat:  # a card naming the seat itself: 24 territories instead
        return min(1.0, len(state.territories_of(seat)) / 24)
    if target in state.out:
        return 1.0
    fair = len(state.owner) / max(1, len(state.active_players()))
    left = len(state.territories_of(target))
    return max(0.0, 1.0 - left / fair)
