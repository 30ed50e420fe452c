"""The Domination arena's mission table (bench/domination/dom_modes.py): runs without Java.

Each card of our secret-missions deck must become the Domination mission
whose goal is the same, so that Domination's AI pursues the card our rules
will judge. Continent places are those of Domination's classic map
(North America 1, South America 2, Europe 3, Africa 4, Asia 5, Australia 6).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "domination"))
from dom_modes import dom_mission, mission_table  # bench/ is no package: imported from its folder

PLACES = {
    "north_america": 1,
    "south_america": 2,
    "europe": 3,
    "africa": 4,
    "asia": 5,
    "australia": 6,
}


def test_every_card_of_the_deck_has_its_domination_mission() -> None:
    table = mission_table(PLACES, ["p1", "p2", "p3", "p4"])
    assert table == {
        "M1": [-1, 0, 0, "5", "2", "0"],
        "M2": [-1, 0, 0, "3", "6", "*"],
        "M3": [-1, 0, 0, "5", "4", "0"],
        "M4": [-1, 0, 0, "3", "2", "*"],
        "M5": [-1, 0, 0, "1", "6", "0"],
        "M6": [-1, 0, 0, "1", "4", "0"],
        "M7": [-1, 18, 2, "0", "0", "0"],
        "M8": [-1, 24, 1, "0", "0", "0"],
        "M9": [0, 24, 1, "0", "0", "0"],
        "M10": [1, 24, 1, "0", "0", "0"],
        "M11": [2, 24, 1, "0", "0", "0"],
        "M12": [3, 24, 1, "0", "0", "0"],
    }


def test_a_destroy_card_names_the_java_player_of_its_seat() -> None:
    # Java players are in turn order: seat p3 moving first is Java player 0.
    assert dom_mission({"destroy": "p3"}, PLACES, {"p3": 0, "p1": 1, "p2": 2})[0] == 0


def test_a_goal_domination_cannot_state_is_refused() -> None:
    with pytest.raises(ValueError):
        dom_mission({"named": ["alaska"]}, PLACES, {})
