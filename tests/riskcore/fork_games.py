"""A finished game and a fork of it played to its end, for the fork tests (issue 37)."""

from __future__ import annotations

from functools import cache

from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.bots.base import get_bot
from riskcore.engine.decide import execute
from riskcore.engine.evolve import fold
from riskcore.engine.fork import fork_game
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.protocol import events as ev
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import DEFAULT_MAX_COMMANDS, GameResult, bot_rng, play_game, record_of
from riskcore.views.seatview import SeatView

PARENT_SEED, FORK_SEED = b"an1", b"fork seed"
AT = 400  # the parent's version the fork continues after (mid-game)


@cache
def parent() -> tuple[GameResult, str]:
    bots = [get_bot("heuristic"), get_bot("random"), get_bot("heuristic")]
    result = play_game(bots, seed=PARENT_SEED, game_id="parent")
    return result, record_of(result, PARENT_SEED)


def head(record: str) -> str:
    return str(parse_record(record).entries[-1].hash)


def play_on(
    opening: list[ev.Event],
    seed: bytes,
    game_id: str,
    bot_name: str = "heuristic",
    max_commands: int = DEFAULT_MAX_COMMANDS,
) -> GameResult:
    """Bots (heuristic unless named) play the fork to its end, as the workers would (or
    until ``max_commands``, as ``play_game`` stops: then its ``reason`` is None)."""
    state = fold(opening)
    events, moves = list(opening), []
    bot = get_bot(bot_name)
    while state.phase != FINISHED and len(moves) < max_commands:
        seat = state.mode.waiting_for(state)
        assert seat is not None
        body = bot.choose(
            SeatView(state, seat),
            legal_actions(state, seat),
            bot_rng(seed, game_id, seat, state.turn),
        )
        caused = execute(
            state, command_from_dict(body, seat), GameRng(seed, game_id, state.version)
        )
        events += caused
        moves.append((seat, body, len(caused)))
    return GameResult(
        game_id=game_id,
        winner=state.winner,
        reason=state.finish_reason,
        winners=state.winners,
        seats={},
        events=events,
        commands=len(moves),
        turns=state.turn,
        moves=moves,
        opening=len(opening),
    )


def recorded_events(record: str) -> list[ev.Event]:
    """A record's events as a reader decodes them (the server's ``state_at`` folds
    these: a decoded event's maps are in the canonical order of their keys)."""
    return [envelope_from_dict(e.envelope()).event for e in parse_record(record).entries]


def command_ends(result: GameResult) -> list[int]:
    """The versions at which no command is half applied: the opening's end and each
    command's, the last (the game over) left out."""
    ends, version = [result.opening], result.opening
    for _, _, caused in result.moves:
        version += caused
        ends.append(version)
    return [v for v in ends if v < len(result.events)]


@cache
def fork_record() -> str:
    result, record = parent()
    at = fold(result.events[:AT])
    opening = fork_game(
        at, parent_head=head(record), game_id="fork", seed=FORK_SEED, names={"p2": "me"}
    )
    return record_of(play_on(opening, FORK_SEED, "fork"), FORK_SEED)
