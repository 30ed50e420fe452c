"""Playing whole games in process: for bots, tournaments and benchmarks.

``play_game`` runs one game from its opening events to a winner with a bot
on every seat, recording every event exactly as the server would (the same rules and
generator as ``decide``, applied in place by ``execute`` since the runner
owns its state). Bot generators are seeded per game and turn so a game replays
identically from its seed.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from riskcore.bots.base import Bot
from riskcore.engine.decide import execute, new_game
from riskcore.engine.evolve import apply, fold, initial_state
from riskcore.engine.legal import LegalActions, legal_actions
from riskcore.model.options import RuleSet
from riskcore.model.state import FINISHED, SETUP_PHASES, State
from riskcore.protocol import events as ev
from riskcore.protocol.commands import Command, command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.views.seatview import SeatView

DEFAULT_MAX_COMMANDS = 50_000


@dataclass
class GameResult:
    game_id: str
    winner: str | None
    reason: str | None
    winners: tuple[str, ...]  # every winning seat (a team's players in the team game)
    seats: dict[str, str]  # seat -> bot name
    events: list[ev.Event] = field(repr=False)
    commands: int
    turns: int
    # (seat, command or its body, events caused) per command: ``batches`` reads them.
    moves: list[tuple[str, Command | dict[str, Any], int]] = field(default_factory=list, repr=False)
    opening: int = 0

    @property
    def batches(self) -> list[tuple[str, dict[str, Any], int]]:
        """(seat, command body, events caused) per command, for building records.

        A bot that chose a ``Command`` (``choose_command``) chose a listed action;
        its body is the action's, the command's fields without those left None.
        """
        return [
            (seat, move if isinstance(move, dict) else move.to_body(), caused)
            for seat, move, caused in self.moves
        ]


def acting_seat(state: State) -> str | None:
    """Whose decision the game waits for (``GameMode.waiting_for``)."""
    seat: str | None = state.mode.waiting_for(state)
    return seat


def bot_rng(
    seed: bytes, game_id: str, seat: str, turn: int, reuse: random.Random | None = None
) -> random.Random:
    """A bot's generator, fixed per game, seat and turn (replays identically).

    ``reuse``: a generator to seed again and return, the same as a new one but
    cheaper (making one first seeds it from the OS, ~0.1 ms on a busy machine).
    """
    digest = hashlib.sha256(b"bot|" + seed + f"|{game_id}|{seat}|{turn}".encode()).digest()
    value = int.from_bytes(digest[:8], "big")
    if reuse is None:
        return random.Random(value)
    reuse.seed(value)
    return reuse


Chooser = Callable[[SeatView, LegalActions, random.Random], Command | dict[str, Any]]


def chooser_of(bot: Bot) -> Chooser:
    """The bot's ``choose_command`` where it has one (a command built straight from
    the listed action: no body to build and parse), else its ``choose``."""
    typed: Chooser | None = getattr(bot, "choose_command", None)
    return typed if typed is not None else bot.choose


def play_game(
    bots: Sequence[Bot],
    *,
    seed: bytes,
    game_id: str = "sim",
    rules: RuleSet | None = None,
    board: str | None = None,
    mode: str = "classic",
    max_commands: int = DEFAULT_MAX_COMMANDS,
    player_seeds: dict[str, str] | None = None,
) -> GameResult:
    events = new_game(
        game_id=game_id,
        players=[b.name for b in bots],
        seed=seed,
        board=board,
        mode=mode,
        rules=rules,
        player_seeds=player_seeds,
    )
    state = fold(events)
    seats = {f"p{i}": bot for i, bot in enumerate(bots, 1)}
    opening = len(events)
    moves: list[tuple[str, Command | dict[str, Any], int]] = []
    commands = 0
    # One generator per seat and turn (setup is turn 0), made when first needed.
    generators: dict[str, random.Random] = {}
    generators_turn = -1
    waiting_for = state.mode.waiting_for
    choosers = {seat: chooser_of(bot) for seat, bot in seats.items()}
    while state.phase != FINISHED and commands < max_commands:
        seat = waiting_for(state)
        assert seat is not None, f"nobody to act in {state.summary()}"
        if generators_turn != state.turn:
            generators_turn = state.turn
            generators = {}
        bot_random = generators.get(seat)
        if bot_random is None:
            bot_random = generators[seat] = bot_rng(seed, game_id, seat, state.turn)
        move = choosers[seat](SeatView(state, seat), legal_actions(state, seat), bot_random)
        command = move if isinstance(move, Command) else command_from_dict(move, seat)
        rng = GameRng(seed, game_id, state.version, state.player_seeds)
        caused = execute(state, command, rng)
        events.extend(caused)
        moves.append((seat, move, len(caused)))
        commands += 1
    return GameResult(
        game_id=game_id,
        winner=state.winner,
        reason=state.finish_reason,
        winners=state.winners,
        seats={s: b.name for s, b in seats.items()},
        events=events,
        commands=commands,
        turns=state.turn,
        moves=moves,
        opening=opening,
    )


def record_of(result: GameResult, seed: bytes, *, start_ms: int = 1_764_000_000_000) -> str:
    """The game as a verifiable record (``riskcore.audit.gamerecord``), one ms per command."""
    from riskcore.audit.chain import GENESIS, event_hash
    from riskcore.audit.gamerecord import Reader, event_lines, header_for, record_lines
    from riskcore.audit.record import SYSTEM, envelopes, hashed_bytes
    from riskcore.audit.sealing import seal
    from riskcore.protocol.codec import event_to_dict

    created = result.events[0]
    assert isinstance(created, ev.GameCreated)
    wrapped = envelopes(
        result.events[: result.opening], first_version=1, time_ms=start_ms, actor=SYSTEM
    )
    position = result.opening
    for tick, (seat, body, count) in enumerate(result.batches, 1):
        batch = result.events[position : position + count]
        wrapped += envelopes(
            batch, first_version=position + 1, time_ms=start_ms + tick, actor=seat, command=body
        )
        position += count
    if created.record_format >= 2:
        wrapped = seal(wrapped, seed, result.game_id)
    stored = []
    prev = GENESIS
    for envelope in wrapped:
        payload = envelope.encode()
        digest = event_hash(prev, hashed_bytes(envelope, payload, created.record_format))
        stored.append((envelope.version, digest, prev, payload))
        prev = digest
    finished = result.winner is not None
    reader = Reader(result.game_id, created.record_format, complete=True)
    header = header_for(event_to_dict(created), redacted=False, complete=finished)
    lines = event_lines(stored, reader)
    return "\n".join(record_lines(header, lines, seed.hex() if finished else None)) + "\n"


def turn_starts(result: GameResult) -> Iterator[State]:
    """The game's state at the start of every turn after the setup, replayed from its
    events (one state, updated in place between yields: copy one to keep it)."""
    created = result.events[0]
    assert isinstance(created, ev.GameCreated)
    state = initial_state(created)
    for event in result.events[1:]:
        apply(state, event)
        if isinstance(event, ev.TurnStarted) and state.phase not in SETUP_PHASES:
            yield state
