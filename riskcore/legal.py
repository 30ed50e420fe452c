"""``legal_actions``: what a seat may do now, as ready-to-send commands.

Each action is ``{"command": {...}, "bounds": {...}}``: the command body is
accepted by ``decide`` as it is (its numeric fields set to the most useful
value), and ``bounds`` gives the inclusive range each numeric field may
take. Clients and bots build their moves from this list alone.
"""

from __future__ import annotations

from typing import Any

from riskcore.battle import _chooser, defending_seat
from riskcore.cards import sets_in_hand
from riskcore.fortify import reachable
from riskcore.reinforce import may_trade
from riskcore.state import (
    ATTACK,
    DEFEND,
    FINISHED,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    State,
)

Action = dict[str, Any]


def _action(command: dict[str, Any], **bounds: tuple[int, int]) -> Action:
    return {"command": command, "bounds": {k: list(v) for k, v in bounds.items()}}


def _placements(territories: list[str], left: int) -> list[Action]:
    """Place up to ``left`` armies on any of ``territories`` (built inline: a hot path)."""
    return [
        {
            "command": {"type": "place_armies", "territory": t, "count": left},
            "bounds": {"count": [1, left]},
        }
        for t in territories
    ]


def legal_actions(state: State, seat: str) -> list[Action]:
    """Every action ``seat`` may take now (empty when it has none)."""
    if state.phase == FINISHED or seat not in state.seats or not state.is_active(seat):
        return []
    resign = _action({"type": "resign"})
    if state.phase == DEFEND:
        # Only the seat the game waits for has actions (resigning is always
        # accepted by ``decide``, but listing it would say "your move").
        return [*_defend(state), resign] if defending_seat(state) == seat else []
    if state.current != seat:
        return []
    actions = _BY_PHASE[state.phase](state, seat)
    actions.append(resign)
    return actions


def _claim(s: State, seat: str) -> list[Action]:
    owner = s.owner
    return [
        {"command": {"type": "claim_territory", "territory": t}, "bounds": {}}
        for t in s.board.territory_names
        if t not in owner
    ]


def _setup_place(s: State, seat: str) -> list[Action]:
    actions = []
    for player, left in s.setup_quota.items():
        if left > 0:
            actions += _placements(s.territories_of(player), left)
    return actions


def _reinforce(s: State, seat: str) -> list[Action]:
    sets = sets_in_hand(s.board, s.hand(seat)) if may_trade(s) else []
    actions = [_action({"type": "trade_cards", "cards": list(cards)}) for cards in sets]
    left = s.reserve.get(seat, 0)
    if s.must_trade_until is None and left > 0:
        actions += _placements(s.territories_of(seat), left)
    return actions


def _attack(s: State, seat: str) -> list[Action]:
    actions: list[Action] = []
    owner = s.owner
    blitz_ok = not s.rules.defender_chooses_dice
    for source in s.territories_of(seat):
        armies = s.armies[(source, seat)]
        if armies < 2:
            continue
        dice = min(3, armies - 1)
        for target in s.board.neighbours[source]:
            defender = owner.get(target)
            if defender == seat:
                continue
            actions.append(
                {
                    "command": {"type": "attack", "source": source, "target": target, "dice": dice},
                    "bounds": {"dice": [1, dice]},
                }
            )
            if blitz_ok or defender is None or _chooser(s, defender, seat) is None:
                actions.append(
                    {
                        "command": {
                            "type": "blitz",
                            "source": source,
                            "target": target,
                            "stop_at": 1,
                        },
                        "bounds": {"stop_at": [1, armies - 1]},
                    }
                )
    actions.append(_action({"type": "end_phase"}))
    return actions


def _defend(s: State) -> list[Action]:
    assert s.pending_battle is not None
    most = min(2, s.troops(s.pending_battle.target))
    return [_action({"type": "defend", "dice": most}, dice=(1, most))]


def _occupy(s: State, seat: str) -> list[Action]:
    occ = s.occupation
    assert occ is not None
    body = {"type": "occupy", "count": occ.max_move}
    return [_action(body, count=(occ.min_move, occ.max_move))]


def _fortify(s: State, seat: str) -> list[Action]:
    if s.fortified:
        return []
    actions: list[Action] = []
    for source in s.territories_of(seat):
        most = s.armies[(source, seat)] - 1
        if most < 1:
            continue
        for target in sorted(reachable(s, seat, source)):
            actions.append(
                {
                    "command": {
                        "type": "fortify",
                        "source": source,
                        "target": target,
                        "count": most,
                    },
                    "bounds": {"count": [1, most]},
                }
            )
    return actions


def _fortify_phase(s: State, seat: str) -> list[Action]:
    return [*_fortify(s, seat), _action({"type": "end_phase"})]


_BY_PHASE = {
    SETUP_CLAIM: _claim,
    SETUP_PLACE: _setup_place,
    REINFORCE: _reinforce,
    ATTACK: _attack,
    OCCUPY: _occupy,
    FORTIFY: _fortify_phase,
}
