"""Upcasters of the event schema versions this engine has outgrown.

Each knows the rules as they were when its version was current, so it is
frozen with them: this is the one place outside ``riskcore.modes`` allowed
to name a mode or a seat kind, because old records did.
"""

from __future__ import annotations

from typing import Any

from riskcore.protocol.codec import upcaster

# Starting armies of game_created v1 (RULES.md §1 table; §2 two players).
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


@upcaster("turn_started", 1)
def _turn_started_phase(data: dict[str, Any]) -> dict[str, Any]:
    """v1 turns always opened with reinforcing."""
    return {**data, "v": 2, "phase": "reinforce"}


@upcaster("game_finished", 1)
def _game_finished_winners(data: dict[str, Any]) -> dict[str, Any]:
    """v1 games had one winning seat at most."""
    winner = data.get("winner")
    return {**data, "v": 2, "winners": [winner] if winner else []}
