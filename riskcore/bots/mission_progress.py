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

``aims`` reads the same goals from a ``SeatView`` as what is still missing
(territories, counts, conquests, the seat to destroy), for the heuristic,
which steers its attacks, placements and guarding by them and prices a
conquest that does a mission (``riskcore.bots.heuristic.mission_worth``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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


# What the heuristic steers by -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Goal:
    """One open mission as the heuristic reads it from the seat's own view: what is
    still missing of each part (``goal_met``'s parts, ``riskcore.modes.missions``)."""

    wanted: frozenset[str]  # named territories and those of wanted continents not held
    continents: frozenset[str]  # the continents it wants whole (named, and the best others)
    named: frozenset[str]  # the named territories not held
    focus: str | None  # the wanted continent not held with fewest territories missing
    count: int  # territories still short of ``territories`` (0: none wanted or done)
    least: int  # the armies each counted territory needs (``min_armies``)
    conquests: int  # conquests still to make this turn (0: none wanted or done)
    destroy: str | None  # the seat whose armies are to be destroyed
    destroy_left: int  # its territories


@dataclass(frozen=True, slots=True)
class Aims:
    """The seat's open missions, and whether doing one ends the game."""

    goals: tuple[Goal, ...]
    last: bool  # doing any open goal wins (one mission, or the last of four)

    def territories(self) -> frozenset[str]:
        return frozenset().union(*(g.wanted for g in self.goals))

    def continents(self) -> frozenset[str]:
        return frozenset().union(*(g.continents for g in self.goals))

    def focus(self) -> frozenset[str]:
        """The continents to take next: per goal, the wanted one missing fewest."""
        return frozenset(g.focus for g in self.goals if g.focus is not None)

    def colours(self) -> frozenset[str]:
        return frozenset(g.destroy for g in self.goals if g.destroy is not None)

    def completes(self, target: str, holder: str | None) -> bool:
        """Whether conquering ``target`` (held by ``holder``) does an open goal now."""
        return any(_done_by(g, target, holder) for g in self.goals)


def _done_by(goal: Goal, target: str, holder: str | None) -> bool:
    if goal.wanted - {target}:
        return False
    if goal.count > (1 if goal.least <= 1 else 0):
        return False
    if goal.conquests > 1:
        return False
    if goal.destroy is not None:
        return holder == goal.destroy and goal.destroy_left == 1
    return bool(goal.wanted or goal.count or goal.conquests)


def aims(view: SeatView) -> Aims | None:
    """The seat's open missions from its own view; None in a game without missions."""
    shown = view.mode_state().get("missions", {}).get(view.seat)
    if not shown:
        return None
    open_goals = [m["goal"] for m in shown if not m["claimed"] and m["goal"]]
    if not open_goals:
        return None
    owners = view.owners()
    held = {t for t, p in owners.items() if p == view.seat}
    goals = tuple(_read(view, held, owners, g) for g in open_goals)
    return Aims(goals, last=len(open_goals) == 1)


def _read(
    view: SeatView, held: set[str], owners: Mapping[str, str | None], goal: Mapping[str, Any]
) -> Goal:
    board = view.board
    groups = {g.id: g.territories for g in board.groups}
    named = set(goal.get("continents", ()))
    named_territories = set(goal.get("named", ())) - held
    wanted = set(named_territories)
    more = goal.get("more_continents", 0)
    if more:  # the other continents nearest done, smaller first on ties
        others = sorted(
            (g for g in groups if g not in named),
            key=lambda g: (-len(groups[g] & held) / len(groups[g]), len(groups[g]), g),
        )
        named |= set(others[:more])
    for continent in named:
        wanted |= groups[continent]
    target = goal.get("destroy")
    count, least = goal.get("territories", 0), goal.get("min_armies", 1)
    if target is not None and (target == view.seat or view.is_out(target)):
        target, count, least = None, 24, 1  # the classic fallback: 24 territories
    troops = view.troop_map()
    enough = sum(1 for t in held if troops[t] >= least)
    conquests = goal.get("conquests", 0)
    if conquests:
        done = view.mode_fact("conquests", 0) if view.current == view.seat else 0
        conquests = max(0, conquests - done)
    return Goal(
        wanted=frozenset(wanted - held),
        continents=frozenset(named),
        named=frozenset(named_territories),
        focus=min(
            (c for c in named if groups[c] - held),
            key=lambda c: (len(groups[c] - held), c),
            default=None,
        ),
        count=max(0, count - enough),
        least=least,
        conquests=conquests,
        destroy=target,
        destroy_left=sum(1 for p in owners.values() if p == target) if target else 0,
    )
