"""``decide``: validate a command against the rules and return its events.

A command either yields the events it causes or raises a ``RuleViolation``
whose code names the broken rule; the state passed in is never modified.
Randomness comes only from the ``GameRng`` handed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from riskcore.engine.decision import Decision, check_can_act, check_turn, violation
from riskcore.model.options import RuleSet
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    State,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import battle, reinforce, setup
from riskcore.rules.dice import GameRng
from riskcore.rules.fortify import fortify
from riskcore.rules.turns import end_turn, resign

Handler = Callable[[Decision, Any], None]


def decide(state: State, command: cmd.Command, rng: GameRng) -> list[ev.Event]:
    """The events ``command`` causes in ``state``, or a RuleViolation."""
    handler = _HANDLERS[type(command)]
    decision = Decision(state, rng)
    handler(decision, command)
    return decision.events


def execute(state: State, command: cmd.Command, rng: GameRng) -> list[ev.Event]:
    """``decide`` and apply in one step, on ``state`` itself (no copy).

    For callers that own ``state`` (simulations, bots' look-ahead). A
    rejected command raises before any change, as with ``decide``.
    """
    handler = _HANDLERS[type(command)]
    decision = Decision(state, rng, in_place=True)
    handler(decision, command)
    return decision.events


def new_game(
    *,
    game_id: str,
    players: Sequence[str],
    seed: bytes,
    board: str = "classic",
    rules: RuleSet | None = None,
    player_seeds: Mapping[str, str] | None = None,
) -> list[ev.Event]:
    """The opening events of a game: creation, the order roll, any deal."""
    from riskcore.engine.evolve import initial_state
    from riskcore.rules.dice import commitment

    rules = rules or RuleSet()
    rng = setup.new_game_rng(seed, game_id, player_seeds)
    seats = setup.seat_list(players, rules)
    created = ev.GameCreated(
        game_id=game_id,
        board=board,
        rules=rules.to_dict(),
        seats=tuple(seats),
        seed_commitment=commitment(seed),
        player_seeds=dict(player_seeds or {}),
    )
    decision = Decision(initial_state(created), rng)
    decision.events.append(created)
    setup.open_game(decision, rules, seats)
    return decision.events


def _place(d: Decision, command: cmd.PlaceArmies) -> None:
    check_turn(d.state, command.seat)
    if d.state.phase in (SETUP_CLAIM, SETUP_PLACE):
        setup.place_in_setup(d, command)
    else:
        reinforce.place(d, command)


def _end_phase(d: Decision, command: cmd.EndPhase) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase == ATTACK:
        d.emit(ev.PhaseEnded(seat=command.seat, phase=ATTACK))
    elif s.phase == FORTIFY:
        end_turn(d, command.seat)
    elif s.phase in (REINFORCE, OCCUPY, DEFEND):
        battle.check_attack_phase(s)
    else:
        raise violation("wrong_phase", f"there is no phase to end in {s.phase!r}")


def _resign(d: Decision, command: cmd.Resign) -> None:
    check_can_act(d.state, command.seat)
    resign(d, command.seat, "resigned")


_HANDLERS: dict[type[cmd.Command], Handler] = {
    cmd.ClaimTerritory: setup.claim,
    cmd.PlaceArmies: _place,
    cmd.TradeCards: reinforce.trade,
    cmd.Attack: battle.attack,
    cmd.Blitz: battle.blitz,
    cmd.Defend: battle.defend,
    cmd.Occupy: battle.occupy,
    cmd.Fortify: fortify,
    cmd.EndPhase: _end_phase,
    cmd.Resign: _resign,
}
assert set(_HANDLERS) == set(cmd.COMMAND_TYPES.values())
