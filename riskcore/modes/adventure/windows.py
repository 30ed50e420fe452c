"""The Fellowship's window and the defender's window: opened, passed."""

from __future__ import annotations

from riskcore.engine.decision import Decision, check_can_act, violation
from riskcore.modes.adventure.protocol import (
    AdventureDefenceWindowOpened,
    AdventureWindowOpened,
    AdventureWindowPassed,
    PassAdventure,
)
from riskcore.modes.adventure.queries import defence_window, window, window_holders, window_seat
from riskcore.protocol import commands as cmd


def pass_window(d: Decision, command: PassAdventure) -> None:
    s = d.state
    check_can_act(s, command.seat)
    if window(s) is None and defence_window(s) is None:
        raise violation("no_window", "there is no adventure window open to pass in")
    if window_seat(s) != command.seat:
        raise violation("not_your_turn", f"the Fellowship's window waits for {window_seat(s)}")
    d.emit(AdventureWindowPassed(seat=command.seat))


def open_window(d: Decision, ender: str) -> bool:
    """The end of ``ender``'s turn, before the Fellowship moves: a window if anyone
    holds an adventure card (True), the die of a marked square rolled first."""
    s = d.state
    holders = window_holders(s, ender)
    path = s.board.path
    step = s.fellowship or 0
    if not holders or step >= len(path):
        return False
    roll = d.rng.die() if path[step].needs_roll else None
    d.emit(AdventureWindowOpened(seat=ender, roll=roll, waiting=holders))
    return True


def open_defence_window(d: Decision, command: cmd.Attack | cmd.Blitz) -> None:
    s = d.state
    defender = s.owner.get(command.target)
    assert defender is not None
    d.emit(
        AdventureDefenceWindowOpened(
            seat=command.seat,
            defender=defender,
            source=command.source,
            target=command.target,
            command=command.to_dict(),
        )
    )
