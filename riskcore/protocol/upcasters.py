"""Upcasters of the event schema versions this engine has outgrown.

Each knows the rules as they were when its version was current, so it is
frozen with them: this is the one place outside ``riskcore.modes`` allowed
to name a mode or a seat kind, because old records did.
"""

from __future__ import annotations

from typing import Any

from riskcore.protocol.codec import Upcaster, upcaster
from riskcore.protocol.legacy import DERIVED

# Starting armies of game_created v1 (docs/rules.md: the classic table; the two-player game).
_V1_CLASSIC_ARMIES = {3: 35, 4: 30, 5: 25, 6: 20}
_V1_TWO_PLAYER_ARMIES = 36
_V1_NEUTRAL_ARMIES = 24


@upcaster("game_created", 1)
def _game_created_mode_and_armies(data: dict[str, Any]) -> dict[str, Any]:
    """v1 named the mode as rule option ``variant`` and left starting armies
    to the engine; v2 records both."""
    rules = dict(data["rules"])
    mode = rules.pop("variant", "classic")
    players = sum(1 for seat in data["seats"] if seat["kind"] == "player")
    if rules.get("starting_armies"):
        armies = rules["starting_armies"]
    elif mode == "two_player":
        armies = _V1_TWO_PLAYER_ARMIES
    else:
        armies = _V1_CLASSIC_ARMIES.get(players, 0)
    seats = [
        {**seat, "armies": _V1_NEUTRAL_ARMIES if seat["kind"] == "neutral" else armies}
        for seat in data["seats"]
    ]
    return {**data, "v": 2, "mode": mode, "rules": rules, "seats": seats}


@upcaster("game_created", 2)
def _game_created_record_format(data: dict[str, Any]) -> dict[str, Any]:
    """v2 games hashed each event whole (record format 1, docs/records.md), and
    came before the team and mission games' rule options: their defaults."""
    rules = {**_OPTIONS_SINCE_V3, **data["rules"]}
    return {**data, "v": 3, "record_format": 1, "rules": rules}


# The rule options that came with game_created v3, at the defaults the games
# before them were played by.
_OPTIONS_SINCE_V3 = {
    "team_placement": "controlled",
    "mission_target_gone": "occupy_24",
    "mission_deck": "graded-house-v1",
}


@upcaster("game_created", 3)
def _game_created_options_since_v4(data: dict[str, Any]) -> dict[str, Any]:
    """v3 games came before the Middle-earth rule options: their defaults."""
    return {**data, "v": 4, "rules": {**_OPTIONS_SINCE_V4, **data["rules"]}}


# The rule options that came with game_created v4, at the defaults the games
# before them were played by.
_OPTIONS_SINCE_V4 = {"one_die_vs_one": False}


@upcaster("game_created", 4)
def _game_created_options_since_v5(data: dict[str, Any]) -> dict[str, Any]:
    """v4 games came before adventure cards were played: none."""
    return {**data, "v": 5, "rules": {**_OPTIONS_SINCE_V5, **data["rules"]}}


_OPTIONS_SINCE_V5 = {"adventure_deck": "none"}


@upcaster("game_created", 5)
def _game_created_options_since_v6(data: dict[str, Any]) -> dict[str, Any]:
    """v5 games came before a blitz had a bound on its battles: none (0)."""
    return {**data, "v": 6, "rules": {**_OPTIONS_SINCE_V6, **data["rules"]}}


_OPTIONS_SINCE_V6 = {"blitz_battles": 0}


@upcaster("game_created", 6)
def _game_created_options_since_v7(data: dict[str, Any]) -> dict[str, Any]:
    """v6 games came before the fixes of issue 35 (docs/conformance.md): the rules
    they were played by, so each replays and verifies as it was played."""
    return {**data, "v": 7, "rules": {**_OPTIONS_SINCE_V7, **data["rules"]}}


_OPTIONS_SINCE_V7 = {
    "marker_dice": "command",
    "missions_dealt": "after_setup",
    "neutrals_must_fall": False,
    "adventure_draw_closes": False,
    "second_leader": "next_turn",
    "card_sides": "trilogy",
}


@upcaster("game_created", 7)
def _game_created_marker_dice_of_issue_53(data: dict[str, Any]) -> dict[str, Any]:
    """v7 games rolled, with ``marker_dice`` ``attack``, the die of the first neutral an
    attack involved only (an ally attacking another neutral rolled for itself alone,
    issue 53): ``attack_first``, so each replays as it was played."""
    return {**data, "v": 8, "rules": _marker_dice_before_issue_53(data["rules"])}


@upcaster("game_forked", 1)
def _game_forked_marker_dice_of_issue_53(data: dict[str, Any]) -> dict[str, Any]:
    """v1 forks played as game_created v7 did: their rules, and the position's."""
    position = {
        **data["position"],
        "rules": _marker_dice_before_issue_53(data["position"]["rules"]),
    }
    rules = _marker_dice_before_issue_53(data["rules"])
    return {**data, "v": 2, "rules": rules, "position": position}


def _marker_dice_before_issue_53(rules: dict[str, Any]) -> dict[str, Any]:
    if rules.get("marker_dice") == "attack":
        return {**rules, "marker_dice": "attack_first"}
    return rules


@upcaster("turn_started", 1)
def _turn_started_phase(data: dict[str, Any]) -> dict[str, Any]:
    """v1 turns always opened with reinforcing."""
    return {**data, "v": 2, "phase": "reinforce"}


@upcaster("turn_started", 2)
def _turn_started_trade_down_to(data: dict[str, Any]) -> dict[str, Any]:
    """v1 and v2 left the forced trade's extent to the engine."""
    return {**data, "v": 3, "trade_down_to": DERIVED}


@upcaster("player_eliminated", 1)
def _player_eliminated_trade_down_to(data: dict[str, Any]) -> dict[str, Any]:
    """v1: a forced trade after an elimination went down to 4 cards."""
    return {**data, "v": 2, "trade_down_to": 4 if data["must_trade"] else None}


@upcaster("game_finished", 1)
def _game_finished_winners(data: dict[str, Any]) -> dict[str, Any]:
    """v1 games had one winning seat at most."""
    winner = data.get("winner")
    return {**data, "v": 2, "winners": [winner] if winner else []}


def _flow_left_to_the_engine(*facts: str) -> Upcaster:
    """v1 of the flow's events: the phase and setup turn that follow were worked
    out by the engine (``riskcore.protocol.legacy`` still does, for these)."""

    def lift(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "v": 2, **dict.fromkeys(facts, DERIVED)}

    return lift


for _type in ("order_rolled", "territories_dealt", "territory_claimed", "armies_placed"):
    upcaster(_type, 1)(_flow_left_to_the_engine("next_phase", "setup_turn"))
for _type in ("territory_occupied", "phase_ended"):
    upcaster(_type, 1)(_flow_left_to_the_engine("next_phase"))
upcaster("player_resigned", 1)(_flow_left_to_the_engine("setup_turn"))
