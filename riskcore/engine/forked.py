"""The state a fork starts from: its first event's position, made its own game's.

A fork (``game_forked``, issue 37) carries the parent's state at the version
it continues from (``riskcore.engine.snapshot``'s form). What belongs to the
new game replaces the parent's: its id, seats' names, seed commitment,
players' seeds and record format, and its version starts at 1 again.
"""

from __future__ import annotations

from riskcore.engine.snapshot import state_from_dict
from riskcore.model.state import Seat, State, copy_json
from riskcore.protocol import events as ev


def forked_state(created: ev.GameForked) -> State:
    # A copy: the state is played on in place, the event must stay as it was.
    state = state_from_dict(copy_json(created.position))
    state.game_id = created.game_id
    state.seats = {
        s["id"]: Seat(s["id"], s["kind"], s.get("name", s["id"]), s.get("team"), s.get("side"))
        for s in created.seats
    }
    state.seed_commitment = created.seed_commitment
    state.player_seeds = dict(created.player_seeds)
    state.record_format = created.record_format
    state.revealed_seed = None
    state.version = 1
    return state
