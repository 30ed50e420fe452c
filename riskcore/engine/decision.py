"""The working context of one ``decide`` call, and the checks rules share.

``Decision`` holds a private copy of the state and applies each event as it
is emitted, so a rule that emits several events (a blitz, the end of a
turn) reads the state as those events leave it, and the events a command
returns are exactly the ones that ``evolve`` will replay. Nothing reaches
the caller's state: a rejected command changes nothing.

Every rule validates the whole command before its first ``emit``. That is
what lets ``execute`` (for runners that own their state, like simulations)
work on the caller's state directly: a rejection still changes nothing.
"""

from __future__ import annotations

from typing import Any

from riskcore.engine.evolve import follow
from riskcore.errors import RuleViolation
from riskcore.model.state import FINISHED, State
from riskcore.protocol import events as ev
from riskcore.protocol.dice import GameRng


class Decision:
    __slots__ = ("_appliers", "events", "rng", "state")

    def __init__(self, state: State, rng: GameRng, *, in_place: bool = False) -> None:
        self.state = state if in_place else state.copy()
        self.rng = rng
        self.events: list[ev.Event] = []
        self._appliers = state.mode.appliers

    def amend(self, **facts: Any) -> None:
        """Complete the last event with facts worked out from the state it left
        (the setup turn that follows a claim, say) and apply them as ``evolve``
        will: the event stays one event, its facts inside it.

        The event has not left this decision yet (events are immutable once
        ``decide`` returns them), so it is completed in place: setup amends
        every placement, and a copy of the event would cost more than the rule.
        """
        event = self.events[-1]
        for name, value in facts.items():
            object.__setattr__(event, name, value)
        follow(self.state, facts.get("next_phase"), facts.get("setup_turn"))

    def emit(self, event: ev.Event) -> None:
        state = self.state
        self._appliers[type(event)](state, event)  # ``evolve.apply``, inlined: the hot path
        state.version += 1
        self.events.append(event)


def violation(code: str, message: str) -> RuleViolation:
    return RuleViolation(code, message)


def check_can_act(state: State, seat: str) -> None:
    """The game runs, the seat exists and is still in it."""
    if state.phase == FINISHED:
        raise violation("game_finished", f"the game is over (winner {state.winner!r})")
    if seat not in state.order:  # the players, in turn order (neutrals take no turns)
        raise violation("unknown_seat", f"no player seat {seat!r} in this game")
    if seat in state.out:
        raise violation("player_out", f"seat {seat!r} is out of the game ({state.out[seat]})")


def check_turn(state: State, seat: str) -> None:
    check_can_act(state, seat)
    if state.current != seat:
        raise violation("not_your_turn", f"it is {state.current}'s turn, not {seat}'s")


def check_phase(state: State, *phases: str) -> None:
    if state.phase not in phases:
        wanted = " or ".join(phases)
        raise violation(
            "wrong_phase", f"this needs the {wanted} phase; the game is in {state.phase!r}"
        )


def check_territory(state: State, territory: str) -> None:
    if territory not in state.board.territory_names:
        raise violation("unknown_territory", f"no territory {territory!r} on {state.board.name}")


def check_owns(state: State, seat: str, territory: str) -> None:
    check_territory(state, territory)
    if state.owner.get(territory) != seat:  # ``controller``, inlined
        owner = state.owner.get(territory)
        raise violation("not_your_territory", f"{territory!r} is held by {owner!r}, not {seat!r}")
