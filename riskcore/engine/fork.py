"""Forks: a new game that continues a finished one from a chosen version.

``fork_game`` makes a fork's opening events: ``game_forked`` (a game_created
that names the parent game, the version it continues after and the parent's
head hash, and carries the position there), then the shuffles of the mode's
hidden piles (``GameMode.shuffle_for_fork``: ``deck_shuffled``, and a Lord of
the Rings game's ``adventure_deck_shuffled``): a pile's order is the one thing
of the position that the parent's record would give away (the parent is
finished, so all of it is public, hands included), so it is drawn again from
the fork's own committed seed (issue 53). Everything else continues as it
stood, down to a pending battle or occupation. ``opening`` gives the same
events again from the first one and the seed, which is how ``risk verify``
replays a fork without its parent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from riskcore.engine.decision import Decision
from riskcore.engine.evolve import initial_state
from riskcore.engine.snapshot import state_to_dict
from riskcore.errors import RiskError
from riskcore.model.state import FIELDS, FINISHED, FLAT, SECRET, State, copy_json
from riskcore.protocol import events as ev
from riskcore.protocol.dice import GameRng, commitment

# The state's lists whose order is secret: the piles a fork must draw again.
_PILES = tuple(
    f.name for f in FIELDS if f.metadata["secrecy"] == SECRET and f.metadata["copying"] == FLAT
)


def position_of(parent: State) -> dict[str, Any]:
    """The parent's state as a fork's first event carries it: every hidden pile in
    card order (its real order is redrawn), and refused where the fork could
    not continue fairly: a finished position, one inside a command's events
    (which no player ever decided in), a pile the mode does not shuffle again
    (``GameMode.hidden_piles``: its order would be given away)."""
    if parent.phase == FINISHED:
        raise RiskError("the game is over at that version: pick an earlier one", code="fork_at_end")
    kept = [p for p in _PILES if getattr(parent, p) and p not in parent.mode.hidden_piles]
    if kept:
        raise RiskError(
            f"the {parent.mode.name} mode cannot draw its {kept[0]} again for a fork",
            code="fork_not_supported",
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
    for pile in parent.mode.hidden_piles:
        position[pile] = sorted(getattr(parent, pile))
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
    """``created`` and the hidden piles shuffled with the fork's seed."""
    state = initial_state(created)
    decision = Decision(state, GameRng(seed, created.game_id, 0, created.player_seeds))
    decision.events.append(created)
    state.mode.shuffle_for_fork(decision)
    return decision.events
