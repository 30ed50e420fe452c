"""Forks of finished games ("continue from here", issue 37).

``fork`` creates a new game whose opening is ``riskcore.engine.fork``'s: its
first event names the parent game, the version it continues after and the
parent's head hash, and carries the position there; the draw pile's order is
drawn again from the new game's own server seed. Its seats are planned as
any game's (people, bots, bot levels), one per player seat of the parent, in
the parent's seat order; it starts at once, so no seat may be left open.

Only a finished game is forked: forking a running one would hand its hidden
cards (the position carries every hand and the draw pile) to whoever asks.
"""

from __future__ import annotations

from collections.abc import Sequence

from riskcore.engine.fork import fork_game, position_of
from riskcore.errors import RiskError
from riskcore.model.state import FINISHED
from riskcore.protocol.events import Event
from service.application.game_types import Created, SeatPlan
from service.application.games import GameService
from service.application.lobby import GameInfo

__all__ = ["ForkRefused", "fork"]


class ForkRefused(Exception):
    """A fork the game or the request does not allow; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def fork(
    service: GameService, parent_id: str, version: int, seats: Sequence[SeatPlan]
) -> tuple[Created, str, int]:
    """The new game (and its tokens), the parent's head hash it names and the
    version it continues after (``version``, or the end of its command)."""
    loaded = service.load(parent_id)
    if loaded.state.phase != FINISHED:
        raise ForkRefused(
            "game_running", f"game {parent_id!r} is running: only a finished game forks"
        )
    if not 1 <= version < loaded.version:
        raise ForkRefused(
            "version_out_of_range", f"version must be from 1 to {loaded.version - 1}: {version!r}"
        )
    players = [s for s, info in loaded.state.seats.items() if info.plays]
    if len(seats) != len(players):
        raise ForkRefused(
            "seats_mismatch", f"the game has {len(players)} player seats, not {len(seats)}"
        )
    if any(plan.kind == "open" for plan in seats):
        raise ForkRefused(
            "seats_mismatch", "a fork starts at once: every seat is a person or a bot"
        )
    version = command_end(service, parent_id, version)
    at = service.state_at(parent_id, version)
    head = loaded.hash.hex()

    def opening(info: GameInfo, seed: bytes) -> list[Event]:
        names = {s.seat: s.shown_name or s.seat for s in info.seats}
        player_seeds = {s.seat: s.seed for s in info.seats if s.seed}
        return fork_game(
            at,
            parent_head=head,
            game_id=info.game_id,
            seed=seed,
            names=names,
            player_seeds=player_seeds,
        )

    try:
        position_of(at)  # what ``fork_game`` refuses, refused before anything is stored
    except RiskError as error:
        raise ForkRefused(error.code, error.message) from None
    parent = service.info(parent_id)
    created = service.create(
        seats=seats, board=parent.board, mode=parent.mode, rules=parent.rules, opening=opening
    )
    return created, head, version


def command_end(service: GameService, parent_id: str, version: int) -> int:
    """The last event of the command event ``version`` belongs to: a command's
    events are one step (a blitz's battles and its conquest), and the position
    inside them was never one a player decided in (a territory left empty
    before its conqueror moves in).

    No command after ``version``: it is inside the final command, whose events
    end with ``game_finished``, so the game is decided there; a fork of it played
    on a won game (issue 54, item 3: the final occupation forked, the winner
    already holding every territory). Refused as ``fork_at_end``."""
    for envelope in service.log.envelopes(parent_id, version + 1):
        if envelope.command is not None:
            return envelope.version - 1
    raise ForkRefused(
        "fork_at_end",
        f"version {version} is inside the game's final command: the game is decided there;"
        " pick a version before that command",
    )
