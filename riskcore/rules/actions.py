"""The classic game's legal actions, per phase (``riskcore.engine.legal``).

Each builder lists one command type's actions for a seat; ``BY_PHASE`` says
which builders a phase offers, in listing order. A mode starts from this
table (``GameMode.phase_actions``) and adds its own phases or builders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

from riskcore.engine.legal import Action, ActionGroup, Builder
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    Occupation,
    State,
)
from riskcore.protocol import commands as cmd
from riskcore.rules.battle import _chooser, defence_cap
from riskcore.rules.cards import sets_in_hand
from riskcore.rules.reinforce import may_trade


def _action(command: dict[str, Any], **bounds: tuple[int, int]) -> Action:
    return {"command": command, "bounds": {k: list(v) for k, v in bounds.items()}}


def _placement(entry: tuple[str, int]) -> Action:
    territory, left = entry
    return {
        "command": {"type": "place_armies", "territory": territory, "count": left},
        "bounds": {"count": [1, left]},
    }


def _placement_command(entry: tuple[str, int], seat: str) -> cmd.Command:
    territory, left = entry
    return cmd.PlaceArmies(seat=seat, territory=territory, count=left)


def _placements(territories: list[str], left: int) -> list[tuple[str, int]]:
    """Place up to ``left`` armies on any of ``territories``, as ``_placement`` entries."""
    return [(t, left) for t in territories]


# The command fields of a ``_placement``, read from its entry (``command_values``).
_PLACEMENT_FIELDS = {"territory": itemgetter(0), "count": itemgetter(1)}


def _claim_action(territory: str) -> Action:
    return {"command": {"type": "claim_territory", "territory": territory}, "bounds": {}}


def _claim_command(territory: str, seat: str) -> cmd.Command:
    return cmd.ClaimTerritory(seat=seat, territory=territory)


def _claim(s: State, seat: str) -> Sequence[Action]:
    owner = s.owner
    claimable = [t for t in s.board.territory_names if t not in owner]
    return ActionGroup(claimable, _claim_action, command=_claim_command)


def _setup_place(s: State, seat: str) -> Sequence[Action]:
    entries = []
    for player, left in s.setup_quota.items():
        if left > 0:
            entries += _placements(s.territories_of(player), left)
    return ActionGroup(entries, _placement, _PLACEMENT_FIELDS, _placement_command)


def _trades(s: State, seat: str) -> list[Action]:
    """Each set in hand; with a choice of +2 territories, one action per choice.

    Each says the armies its set brings (``armies``, the +2 apart), which only the
    rules can tell: with fixed values a set's symbols price it, not the count of
    trades; a player choosing a set on the page sees it."""
    if not may_trade(s):
        return []
    actions = []
    cards = s.board.cards
    for chosen in sets_in_hand(s.board, s.hand(seat)):
        body = {"type": "trade_cards", "cards": list(chosen)}
        armies = s.mode.trade_value(s, tuple(cards[c].symbol for c in chosen))
        pictured = [cards[c].territory for c in chosen]
        held = [t for t in pictured if t is not None and s.owner.get(t) == seat]
        if s.bonus_taken or len(held) < 2:
            bodies = [body]
        else:
            bodies = [{**body, "bonus_territory": t} for t in held]
        actions += [{**_action(one), "armies": armies} for one in bodies]
    return actions


def _reinforcements(s: State, seat: str) -> Sequence[Action]:
    left = s.reserve.get(seat, 0)
    if s.must_trade_until is not None or left < 1:
        return []
    where = s.mode.placeable(s, seat)
    return ActionGroup(_placements(where, left), _placement, _PLACEMENT_FIELDS, _placement_command)


def _attackable(s: State, seat: str) -> list[tuple[str, str, int, str | None]]:
    """(source, target, armies in source, defender) for every attack ``seat`` could make."""
    armies = s.armies
    frontier = s.frontier
    # ``State.borders``, its cache read here first: the random bot lists attacks
    # after every battle, and only a conquest changes a territory's borders.
    entries: list[tuple[str, str, int, str | None]] = []
    append = entries.append
    for source in s.held_by(seat):
        in_source = armies[(source, seat)]
        if in_source < 2:
            continue
        borders = frontier.get(source)
        if borders is None:
            borders = s.borders(source)
        for target, defender in borders:
            append((source, target, in_source, defender))
    if s.shared:  # only where armies share a territory can nobody control one
        defender_of = s.mode.defender_of
        entries = [
            e if e[3] is not None else (e[0], e[1], e[2], defender_of(s, e[1])) for e in entries
        ]
        entries = [e for e in entries if e[3] is not None]
    mode = s.mode
    if mode.refuses_more_attacks:
        refusal = mode.attack_refusal
        entries = [e for e in entries if refusal(s, seat, e[0], e[1]) is None]
    return entries


def _attack_action(entry: tuple[str, str, int, str | None]) -> Action:
    source, target, armies, _ = entry
    dice = 3 if armies > 3 else armies - 1
    return {
        "command": {"type": "attack", "source": source, "target": target, "dice": dice},
        "bounds": {"dice": [1, dice]},
    }


def _blitz_action(entry: tuple[str, str, int, str | None]) -> Action:
    source, target, armies, _ = entry
    return {
        "command": {"type": "blitz", "source": source, "target": target, "stop_at": 1},
        "bounds": {"stop_at": [1, armies - 1]},
    }


def _attack_command(entry: tuple[str, str, int, str | None], seat: str) -> cmd.Command:
    source, target, armies, _ = entry
    return cmd.Attack(seat=seat, source=source, target=target, dice=3 if armies > 3 else armies - 1)


def _blitz_command(entry: tuple[str, str, int, str | None], seat: str) -> cmd.Command:
    return cmd.Blitz(seat=seat, source=entry[0], target=entry[1], stop_at=1)


def _attacks(s: State, seat: str) -> Sequence[Action]:
    return ActionGroup(_attackable(s, seat), _attack_action, command=_attack_command)


def _blitzes(s: State, seat: str) -> Sequence[Action]:
    """Blitz needs no defender's choice: every attack unless defenders choose dice."""
    entries = _attackable(s, seat)
    if s.rules.defender_chooses_dice:
        entries = [e for e in entries if e[3] is None or _chooser(s, e[3], seat) is None]
    return ActionGroup(entries, _blitz_action, command=_blitz_command)


def _end_phase(s: State, seat: str) -> list[Action]:
    return [_action({"type": "end_phase"})]


def _resign(s: State, seat: str) -> list[Action]:
    return [_action({"type": "resign"})]


def _defend(s: State, seat: str) -> list[Action]:
    assert s.pending_battle is not None
    target, defender = s.pending_battle.target, s.pending_battle.defender
    cap = defence_cap(s, target, s.pending_battle.dice)
    most = min(cap, s.armies[(target, defender)])
    return [_action({"type": "defend", "dice": most}, dice=(1, most))]


def _occupy_action(occ: Occupation) -> Action:
    # Written out rather than through ``_action``: every conquest lists it.
    return {
        "command": {"type": "occupy", "count": occ.max_move},
        "bounds": {"count": [occ.min_move, occ.max_move]},
    }


def _occupy_command(occ: Occupation, seat: str) -> cmd.Command:
    return cmd.Occupy(seat=seat, count=occ.max_move)


def _occupy(s: State, seat: str) -> Sequence[Action]:
    occ = s.occupation
    assert occ is not None
    return ActionGroup([occ], _occupy_action, command=_occupy_command)


def _fortify_action(entry: tuple[str, str, int]) -> Action:
    source, target, most = entry
    return {
        "command": {"type": "fortify", "source": source, "target": target, "count": most},
        "bounds": {"count": [1, most]},
    }


def _fortify_command(entry: tuple[str, str, int], seat: str) -> cmd.Command:
    source, target, most = entry
    return cmd.Fortify(seat=seat, source=source, target=target, count=most)


def _fortify(s: State, seat: str) -> Sequence[Action]:
    if s.fortified:
        return []
    entries = []
    reach = s.mode.fortify_reach
    for source in s.territories_of(seat):
        most = s.armies[(source, seat)] - 1
        if most >= 1:
            entries += [(source, target, most) for target in sorted(reach(s, seat, source))]
    return ActionGroup(entries, _fortify_action, command=_fortify_command)


RESIGN: tuple[str, Builder] = ("resign", _resign)
BY_PHASE: Mapping[str, tuple[tuple[str, Builder], ...]] = {
    SETUP_CLAIM: (("claim_territory", _claim), RESIGN),
    SETUP_PLACE: (("place_armies", _setup_place), RESIGN),
    REINFORCE: (("trade_cards", _trades), ("place_armies", _reinforcements), RESIGN),
    ATTACK: (("attack", _attacks), ("blitz", _blitzes), ("end_phase", _end_phase), RESIGN),
    DEFEND: (("defend", _defend), RESIGN),
    OCCUPY: (("occupy", _occupy), RESIGN),
    FORTIFY: (("fortify", _fortify), ("end_phase", _end_phase), RESIGN),
}
