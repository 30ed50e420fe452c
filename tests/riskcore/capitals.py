"""A test-only game mode, "capitals": the worked example of docs/engine.md.

After setup each player, in turn order, picks one of their territories as
their capital. Every capital held is worth one more army a turn, and the
first player to hold every capital wins (else the last one standing does,
as in the classic game). It adds a phase, a command, two events, a view
and an outcome, and touches no engine module: importing it registers it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from riskcore.engine.decision import Decision, check_owns, check_turn, violation
from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Action, ActionGroup, Builder
from riskcore.engine.registry import register_mode
from riskcore.model.state import State
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.protocol.commands import Command, register_command
from riskcore.protocol.events import Event, register_event
from riskcore.rules import actions, setup

CHOOSE_CAPITAL = "choose_capital"  # the mode's own phase


@dataclass(frozen=True, slots=True, kw_only=True)
class ChooseCapital(Command):
    territory: str


register_command(ChooseCapital, "choose_capital", fields={"territory": "str"})


@dataclass(frozen=True, slots=True, kw_only=True)
class CapitalTurn(Event):
    """``seat`` is to choose its capital now."""

    seat: str


register_event(CapitalTurn, "capital_turn")


@dataclass(frozen=True, slots=True, kw_only=True)
class CapitalChosen(Event):
    seat: str
    territory: str


register_event(CapitalChosen, "capital_chosen")


def capitals(state: State) -> dict[str, str]:
    """Seat -> its capital (a mode-owned part of the state)."""
    chosen: dict[str, str] = state.mode_data.get("capitals", {})
    return chosen


def _capital_turn(state: State, event: CapitalTurn) -> None:
    state.phase = CHOOSE_CAPITAL
    state.current = event.seat


def _capital_chosen(state: State, event: CapitalChosen) -> None:
    state.mode_data.setdefault("capitals", {})[event.seat] = event.territory


def choose_capital(d: Decision, command: ChooseCapital) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase != CHOOSE_CAPITAL:
        raise violation("wrong_phase", f"capitals are chosen after setup, not in {s.phase!r}")
    check_owns(s, command.seat, command.territory)
    d.emit(CapitalChosen(seat=command.seat, territory=command.territory))
    _next_chooser(d)


def _next_chooser(d: Decision) -> None:
    """The next player without a capital chooses; when all have, play starts."""
    s = d.state
    waiting = [p for p in s.active_players() if p not in capitals(s)]
    if waiting:
        d.emit(CapitalTurn(seat=waiting[0]))
    else:
        setup.start_play(d)


def _capital_choices(s: State, seat: str) -> Sequence[Action]:
    def make(territory: str) -> Action:
        return {"command": {"type": "choose_capital", "territory": territory}, "bounds": {}}

    return ActionGroup(s.territories_of(seat), make)


class Capitals(GameMode):
    name = "capitals"
    title = "Capitals (a test mode)"

    def command_handlers(self) -> dict[type[Command], Handler]:
        return {**super().command_handlers(), ChooseCapital: choose_capital}

    def event_appliers(self) -> dict[type[Event], Applier]:
        own = {CapitalTurn: _capital_turn, CapitalChosen: _capital_chosen}
        return {**super().event_appliers(), **own}

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        choosing = (("choose_capital", _capital_choices), actions.RESIGN)
        return {**super().phase_actions(), CHOOSE_CAPITAL: choosing}

    def after_setup(self, d: Decision) -> None:
        _next_chooser(d)

    def next_turn(self, d: Decision, after: str) -> None:
        if d.state.phase == CHOOSE_CAPITAL:  # the chooser resigned
            _next_chooser(d)
        else:
            super().next_turn(d, after)

    def reinforcements(self, state: State, seat: str) -> int:
        held = sum(1 for t in capitals(state).values() if state.controller(t) == seat)
        return super().reinforcements(state, seat) + held

    def outcome(self, state: State) -> Outcome | None:
        holders = {state.controller(t) for t in capitals(state).values()}
        if len(capitals(state)) > 1 and len(holders) == 1:
            (holder,) = holders
            if holder is not None and state.is_active(holder):
                return Outcome(holder, (holder,), "capitals")
        return super().outcome(state)

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        return {"capitals": dict(capitals(state))}


register_mode(Capitals)
