"""Forks: a new game that continues a finished one from a chosen version.

``fork_game`` makes a fork's opening events: ``game_forked`` (a game_created
that names the parent game, the version it continues after and the parent's
head hash, and carries the position there), then ``deck_shuffled``: the draw
pile's order is the one thing of the position that the parent's record would
give away (the parent is finished, so all of it is public, hands included),
so it is drawn again from the fork's own committed seed. Everything else
continues as it stood, down to a pending battle or occupation. ``opening``
gives the same events again from the first one and the seed, which is how
``risk verify`` replays a fork without its parent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskcore.engine.decision import Decision
from riskcore.engine.evolve import initial_state
from riskcore.engine.snapshot import state_to_dict
from riskcore.errors import RiskError
from riskcore.model.state import FINISHED, State, copy_json
from riskcore.protocol import events as ev
from riskcore.protocol.dice import GameRng, commitment


def position_of(parent: State) -> dict[str, Any]:
    """The parent's state as a fork's first event carries it: the draw pile in
    card order (its real order is redrawn), and refused where the fork could
    not continue fairly: a finished position, one inside a command's events
    (which no player ever decided in), a Lord of the Rings adventure pile (its
    order would need a shuffle of its own: not supported yet)."""
    if parent.phase == FINISHED:
        raise RiskError("the game is over at that version: pick an earlier one", code="fork_at_end")
    if parent.adventure_deck:
        raise RiskError(
            "a position with an adventure pile cannot be forked yet", code="fork_not_supported"
        )
    moving_in = parent.occupation.target if parent.occupation else None  # empty till the move
    held = (t for t, holder in parent.owner.items() if holder is not None and t != moving_in)
    if any(parent.troops(t) == 0 for t in held):
        raise RiskError(
            "that version is inside a command (a territory emptied by a battle waits for"
            " its conqueror): fork after the command's last event",
            code="fork_mid_command",
        )
    position: dict[str, Any] = copy_json(state_to_dict(parent))  # shares no list with it
    position["deck"] = sorted(parent.deck)
    return position


def fork_game(
    parent: State,
    *,
    parent_head: str,
    game_id: str,
    seed: bytes,
    names: Mapping[str, str],
    player_seeds: Mapping[str, str] | None = None,
) -> list[ev.Event]:
    """The opening events of a fork of ``parent`` (the parent's state at the
    version it continues after), its seats renamed by ``names`` (seat -> name)."""
    seats = tuple(
        {
            "id": seat,
            "kind": info.kind,
            "name": names.get(seat, info.name),
            "armies": parent.reserve.get(seat, 0),
            **({"team": info.team} if info.team is not None else {}),
            **({"side": info.side} if info.side is not None else {}),
        }
        for seat, info in parent.seats.items()
    )
    created = ev.GameForked(
        game_id=game_id,
        board=parent.board.name,
        mode=parent.mode.name,
        rules=parent.rules.to_dict(),
        seats=seats,
        seed_commitment=commitment(seed),
        player_seeds=dict(player_seeds or {}),
        record_format=ev.RECORD_FORMAT,
        parent_game_id=parent.game_id,
        parent_version=parent.version,
        parent_head=parent_head,
        position=position_of(parent),
    )
    return opening(created, seed)


def opening(created: ev.GameForked, seed: bytes) -> list[ev.Event]:
    """``created`` and the draw pile shuffled with the fork's seed."""
    state = initial_state(created)
    decision = Decision(state, GameRng(seed, created.game_id, 0, created.player_seeds))
    decision.events.append(created)
    order = sorted(state.deck)
    decision.rng.shuffle(order)
    decision.emit(ev.DeckShuffled(order=tuple(order)))
    return decision.events
