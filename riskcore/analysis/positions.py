"""The positions an analysis looks at, read once from a finished game's events.

One pass folds the game and keeps a copy of the state at the start of every
turn (the points of the win-chance graph), the commands that were played
(each with the state it was played in, for the turns whose decisions are
judged) and each player's dice luck turn by turn (``riskcore.audit.summary``:
armies destroyed against what exact odds expect for those dice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from riskcore.audit.record import Envelope
from riskcore.audit.summary import summarize
from riskcore.engine.evolve import apply, initial_state
from riskcore.model.state import FINISHED, State
from riskcore.protocol import events as ev


@dataclass(slots=True)
class Move:
    """One command of the game: who played it, its body, and the state before it."""

    version: int  # of the command's first event
    seat: str
    body: dict[str, Any]
    before: State


@dataclass(slots=True)
class Turn:
    """A turn from its start (``state``, after ``turn_started``) to the next one's."""

    number: int
    seat: str
    version: int
    state: State
    moves: list[Move] = field(default_factory=list)
    luck: dict[str, float] = field(default_factory=dict)  # dice, armies, in this turn


@dataclass(slots=True)
class Game:
    turns: list[Turn]
    final: State
    winners: tuple[str, ...]


def read_game(envelopes: Sequence[Envelope]) -> Game:
    """The turns of a finished game (ValueError for one that has not ended)."""
    created = envelopes[0].event
    if not isinstance(created, ev.GameCreated):
        raise ValueError("a game starts with game_created")
    state = initial_state(created)
    turns: list[Turn] = []
    for envelope in envelopes[1:]:
        if envelope.command is not None and turns:
            turns[-1].moves.append(
                Move(envelope.version, envelope.actor, envelope.command, state.copy())
            )
        apply(state, envelope.event)
        if isinstance(envelope.event, ev.TurnStarted):
            turns.append(Turn(state.turn, envelope.event.seat, state.version, state.copy()))
    if state.phase != FINISHED:
        raise ValueError("only a finished game is analysed")
    _add_luck(turns, envelopes)
    winners = state.winners or ((state.winner,) if state.winner else ())
    return Game(turns, state, tuple(winners))


def _add_luck(turns: list[Turn], envelopes: Sequence[Envelope]) -> None:
    """Each turn's dice luck per player: the summary's running luck, differenced."""
    timeline = summarize(e.event for e in envelopes)["timeline"]
    by_version = {point["version"]: point["luck"] for point in timeline}
    ends = [turn.version for turn in turns[1:]] + [timeline[-1]["version"]]
    for turn, end in zip(turns, ends, strict=True):
        start, stop = by_version.get(turn.version, {}), by_version.get(end, {})
        turn.luck = {p: round(stop.get(p, 0.0) - start.get(p, 0.0), 2) for p in stop}
