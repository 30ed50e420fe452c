"""The example bot plays every rule option (issue 14): where defenders choose their
dice there is no blitz among the legal actions, and it must still attack, roll by roll."""

from __future__ import annotations

import random
from typing import Any

from tests.e2e.test_play_over_http import load_example_bot

example = load_example_bot()


def attack(source: str, target: str, most_dice: int) -> dict[str, Any]:
    command = {"type": "attack", "source": source, "target": target, "dice": most_dice}
    return {"command": command, "bounds": {"dice": [1, most_dice]}}


END = {"command": {"type": "end_phase"}, "bounds": {}}


def test_it_attacks_when_defenders_choose_their_dice() -> None:
    """The attack phase as /legal-actions lists it when ``defender_chooses_dice`` is on."""
    actions = [attack("alaska", "kamchatka", 3), attack("peru", "brazil", 1), END]
    for seed in range(10):
        chosen = example.choose(actions, random.Random(seed))
        assert chosen == actions[0]["command"], "attack from strength, never from one army"


def test_it_ends_the_phase_when_no_attack_is_strong() -> None:
    actions = [attack("peru", "brazil", 2), END]
    assert example.choose(actions, random.Random(0)) == {"type": "end_phase"}


def test_it_moves_in_all_it_may_after_a_conquest() -> None:
    occupy = {"command": {"type": "occupy", "count": 3}, "bounds": {"count": [3, 7]}}
    assert example.choose([occupy], random.Random(0)) == {"type": "occupy", "count": 7}


def test_it_says_what_it_does() -> None:
    command = attack("alaska", "kamchatka", 3)["command"]
    assert example.describe(command) == "attack kamchatka from alaska with 3 dice"
    place = {"type": "place_armies", "territory": "peru", "count": 4}
    assert example.describe(place) == "place armies 4 on peru"
    assert example.describe({"type": "end_phase"}) == "end phase"
