"""The strong bot's measure of its own mission progress (riskcore/bots/mission_progress.py).

The missions are the classic secret-mission cards (001_c708159c204162c3.txt,
"spelets hemliga uppdrag": one secret mission each); the progress is read
from the seat's own view, so another seat's hidden mission never changes it.
"""

from __future__ import annotations

import random

import pytest

from riskcore.bots.evaluate import DEFAULT_WEIGHTS, Weights, evaluate
from riskcore.bots.mission_progress import progress
from riskcore.model.options import RuleSet
from riskcore.views.seatview import SeatView
from tests.riskcore.helpers import continent, position, split
from tests.riskcore.missions_helpers import with_missions

DECK = "secret-missions"


def _game(owners: dict[str, str], dealt: dict[str, list[str]], armies=None):  # type: ignore[no-untyped-def]
    game = position(owners, armies, mode="secret_missions", rules=RuleSet(setup="deal"))
    return with_missions(game, DECK, dealt)


def test_a_continent_mission_counts_the_share_of_each_continent_held() -> None:
    """M5, North America and Australia: all of Australia and 4 of North America's 9
    territories is (1 + 4/9) / 2."""
    north = continent("north_america")
    owners = split({"p1": continent("australia") + north[:4], "p3": north[4:]}, "p2")
    game = _game(owners, {"p1": ["M5"], "p2": ["M8"], "p3": ["M6"]})
    assert progress(game.state, "p1") == pytest.approx((1 + 4 / 9) / 2)


def test_a_territory_mission_counts_territories_with_enough_armies() -> None:
    """M7: 18 territories with at least 2 armies each; p1 holds 16, 10 of them with 3."""
    mine = continent("asia") + continent("australia")  # 12 + 4 territories
    owners = split({"p1": mine, "p3": continent("south_america")}, "p2")
    armies = {t: 3 if i < 10 else 1 for i, t in enumerate(mine)}
    game = _game(owners, {"p1": ["M7"], "p2": ["M8"], "p3": ["M6"]}, armies)
    assert progress(game.state, "p1") == pytest.approx(10 / 18)


def test_another_seats_hidden_mission_changes_nothing() -> None:
    """Only the seat's own mission is read: swapping p2's card (hidden from p1) leaves
    p1's progress and its evaluation as they were."""
    owners = split({"p1": continent("africa"), "p3": continent("south_america")}, "p2")
    first = _game(owners, {"p1": ["M3"], "p2": ["M8"], "p3": ["M6"]}).state
    other = _game(owners, {"p1": ["M3"], "p2": ["M1"], "p3": ["M7"]}).state
    weights = Weights(mission=0.5)
    assert progress(first, "p1") == progress(other, "p1")
    assert evaluate(first, "p1", weights) == evaluate(other, "p1", weights)
    world = SeatView(first, "p1").determinize(random.Random(1))
    assert progress(world, "p1") == progress(first, "p1")
    # p2's mission in p1's world is a guess (``missions.deal_unseen``), whatever p2 holds:
    guessed = SeatView(other, "p1").determinize(random.Random(1))
    assert world.missions["p2"] == guessed.missions["p2"]
    assert progress(world, "p2") == progress(guessed, "p2")


def test_the_evaluation_mixes_in_progress_only_where_seats_have_missions() -> None:
    owners = split({"p1": continent("africa"), "p3": continent("south_america")}, "p2")
    game = _game(owners, {"p1": ["M3"], "p2": ["M8"], "p3": ["M6"]})
    plain = evaluate(game.state, "p1", DEFAULT_WEIGHTS)
    mixed = evaluate(game.state, "p1", Weights(mission=0.5))
    done = progress(game.state, "p1")
    assert done is not None
    assert mixed == pytest.approx(0.5 * plain + 0.5 * done)
    classic = position(owners, None)
    assert evaluate(classic.state, "p1", Weights(mission=0.5)) == evaluate(classic.state, "p1")
