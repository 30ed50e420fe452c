"""The legal actions the mode adds, and the base ones it wraps."""

from __future__ import annotations

from collections.abc import Sequence

from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Action, Builder
from riskcore.model.state import ATTACK, FORTIFY, REINFORCE, State
from riskcore.modes import adventure
from riskcore.modes.lotr.handlers import _blocked_manoeuvre
from riskcore.modes.lotr.leaders import leaderless, second_leader_owed
from riskcore.modes.lotr.protocol import IN_TURN
from riskcore.protocol import events as ev


def _placements(s: State, seat: str) -> list[Action]:
    if s.phase in IN_TURN and adventure.second_leader_due(s, seat) and s.leaders.get(seat):
        own = s.leaders[seat]
        return [
            {"command": {"type": "place_leader", "territory": t}, "bounds": {}}
            for t in s.territories_of(seat)
            if t not in own
        ]
    if s.phase in (REINFORCE, ATTACK):
        return []
    if s.phase == FORTIFY and not leaderless(s, seat):
        return []
    return [
        {"command": {"type": "place_leader", "territory": t}, "bounds": {}}
        for t in s.territories_of(seat)
    ]


def _leader_moves(s: State, seat: str) -> list[Action]:
    if s.mode_data.get("leader_moved_turn", {}).get(seat) == s.turn:
        return []
    actions: list[Action] = []
    own = s.leaders.get(seat, ())
    for source in own:
        if adventure.mission_leader(s, seat) == source:
            continue
        for target in sorted(s.mode.fortify_reach(s, seat, source)):
            if target not in own:
                actions.append(
                    {
                        "command": {"type": "move_leader", "source": source, "target": target},
                        "bounds": {},
                    }
                )
    return actions


def _unless_leaderless(builder: Builder) -> Builder:
    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if leaderless(s, seat) or second_leader_owed(s, seat) else builder(s, seat)

    return build


def _unless_discarding(builder: Builder) -> Builder:
    """With four adventure cards drawn, the only move is a discard (or resigning)."""

    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if adventure.discard_due(s, seat) else builder(s, seat)

    return build


def _unless_owing_a_leader(builder: Builder) -> Builder:
    """With a second leader drawn at the turn's end, the only move is placing it."""

    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if second_leader_owed(s, seat) else builder(s, seat)

    return build


def _fortifies(builder: Builder) -> Builder:
    def build(s: State, seat: str) -> Sequence[Action]:
        listed: Sequence[Action] = adventure.extra_fortifies(s, seat, builder)
        if not adventure.blocked_borders(s):
            return listed
        return [
            a
            for a in listed
            if not _blocked_manoeuvre(s, seat, a["command"]["source"], a["command"]["target"])
        ]

    return build


def _turn_started(base: Applier) -> Applier:
    def started(state: State, event: ev.TurnStarted) -> None:
        base(state, event)
        adventure.turn_started(state, event.seat)

    return started


def _fortified(base: Applier) -> Applier:
    def fortified(state: State, event: ev.Fortified) -> None:
        adventure.note_extra_fortify(state)
        base(state, event)

    return fortified
