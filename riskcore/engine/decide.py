"""``decide``: validate a command against the rules and return its events.

A command either yields the events it causes or raises a ``RuleViolation``
whose code names the broken rule; the state passed in is never modified.
Randomness comes only from the ``GameRng`` handed in. Which rule handles a
command is the game mode's table (``GameMode.handlers``): the engine itself
knows no rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from riskcore.engine.decision import Decision, violation
from riskcore.engine.evolve import initial_state
from riskcore.engine.registry import mode_named
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.dice import GameRng, commitment


def decide(state: State, command: cmd.Command, rng: GameRng) -> list[ev.Event]:
    """The events ``command`` causes in ``state``, or a RuleViolation."""
    try:
        handler = state.mode.handlers[type(command)]
    except KeyError:
        raise _not_in_this_game(state, command) from None
    decision = Decision(state, rng)
    handler(decision, command)
    return decision.events


def execute(state: State, command: cmd.Command, rng: GameRng) -> list[ev.Event]:
    """``decide`` and apply in one step, on ``state`` itself (no copy).

    For callers that own ``state`` (simulations, bots' look-ahead). A
    rejected command raises before any change, as with ``decide``.
    """
    try:
        handler = state.mode.handlers[type(command)]
    except KeyError:
        raise _not_in_this_game(state, command) from None
    decision = Decision(state, rng, in_place=True)
    handler(decision, command)
    return decision.events


def _not_in_this_game(state: State, command: cmd.Command) -> Exception:
    return violation(
        "not_in_this_game", f"{command.TYPE} is not a command of the {state.mode.name} game"
    )


def new_game(
    *,
    game_id: str,
    players: Sequence[str],
    seed: bytes,
    board: str | None = None,
    mode: str = "classic",
    rules: RuleSet | None = None,
    player_seeds: Mapping[str, str] | None = None,
    record_format: int = ev.RECORD_FORMAT,
) -> list[ev.Event]:
    """The opening events of a game: creation, then what the mode opens with
    (the order roll, any deal). ``record_format`` is for replaying old records;
    ``board`` defaults to the mode's own (``GameMode.board``)."""
    game_mode = mode_named(mode)
    board = board or game_mode.board
    rules = rules or game_mode.rule_set()
    rng = GameRng(seed, game_id, 0, player_seeds)
    seats = game_mode.seat_list(players, rules)
    created = ev.GameCreated(
        game_id=game_id,
        board=board,
        mode=mode,
        rules=rules.to_dict(),
        seats=tuple(seats),
        seed_commitment=commitment(seed),
        player_seeds=dict(player_seeds or {}),
        record_format=record_format,
    )
    decision = Decision(initial_state(created), rng)
    decision.events.append(created)
    game_mode.open_game(decision)
    return decision.events
