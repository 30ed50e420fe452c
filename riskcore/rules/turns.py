"""The turn's own commands: placing (in setup or reinforcing), ending a phase,
ending the turn, drawing its card, and resigning.

This is the top of the rule areas: it may call setup, reinforce and battle;
none of them calls back here (``riskcore.rules.flow`` holds what they share).
"""

from __future__ import annotations

from riskcore.engine.decision import Decision, check_can_act, check_turn, violation
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FINISHED,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_PHASES,
)
from riskcore.protocol import events as ev
from riskcore.protocol.commands import Abandon, EndPhase, PlaceArmies, Resign
from riskcore.rules import battle, reinforce, setup
from riskcore.rules.flow import finish_if_decided


def place_armies(d: Decision, command: PlaceArmies) -> None:
    check_turn(d.state, command.seat)
    if d.state.phase in SETUP_PHASES:
        setup.place_in_setup(d, command)
    else:
        reinforce.place(d, command)


def end_phase(d: Decision, command: EndPhase) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase == ATTACK:
        d.emit(
            ev.PhaseEnded(seat=command.seat, phase=ATTACK, next_phase=s.mode.phase_after(s, ATTACK))
        )
    elif s.phase == FORTIFY:
        end_turn(d, command.seat)
    elif s.phase in (REINFORCE, OCCUPY, DEFEND):
        battle.check_attack_phase(s)
    else:
        raise violation("wrong_phase", f"there is no phase to end in {s.phase!r}")


def end_turn(d: Decision, seat: str) -> None:
    """The mode's end-of-turn steps (a card if anything was conquered), then the next player."""
    s = d.state
    s.mode.end_of_turn(d, seat)
    d.emit(ev.TurnEnded(seat=seat))
    if not finish_if_decided(d):
        s.mode.next_turn(d, seat)


def draw_card(d: Decision, seat: str) -> None:
    """The top card; an empty pile is first refilled from the shuffled discards."""
    s = d.state
    if not s.deck and s.discard:
        order = list(s.discard)
        d.rng.shuffle(order)
        d.emit(ev.DeckShuffled(order=tuple(order), reshuffle=True))
    if s.deck:
        d.emit(ev.CardDrawn(seat=seat, card=s.deck[0]))


def abandon(d: Decision, command: Abandon) -> None:
    """The server ends a game left idle (docs/api.md, "Limits"): no winner, the seed
    revealed as at any end, so the record verifies."""
    s = d.state
    if s.phase == FINISHED:
        raise violation("game_finished", f"the game is over (winner {s.winner!r})")
    d.emit(ev.GameFinished(winner=None, reason="abandoned", seed=d.rng.seed_hex(), winners=()))


def resign_command(d: Decision, command: Resign) -> None:
    check_can_act(d.state, command.seat)
    resign(d, command.seat, "resigned")


def resign(d: Decision, seat: str, reason: str) -> None:
    """The seat leaves; if it was its turn (or its defence), play moves on."""
    s = d.state
    was_current = s.current == seat
    defending = s.phase == DEFEND and battle.defending_seat(s) == seat
    occupation = s.occupation if was_current else None
    if occupation is not None:  # never leave a conquered territory empty
        d.emit(
            ev.TerritoryOccupied(
                seat=seat,
                source=occupation.source,
                target=occupation.target,
                count=occupation.min_move,
                next_phase=battle.phase_after_occupying(s),
            )
        )
    d.emit(ev.PlayerResigned(seat=seat, reason=reason, discarded=tuple(s.hand(seat))))
    if s.phase in SETUP_PHASES and was_current:
        d.amend(setup_turn=setup.next_setup_turn(s, seat))
    if finish_if_decided(d):
        return
    if s.phase in SETUP_PHASES:
        setup.begin_play_if_placed(d)
    elif defending:
        battle.resolve_pending_with_max_dice(d)
    elif was_current:
        d.emit(ev.TurnEnded(seat=seat))
        s.mode.next_turn(d, seat)
