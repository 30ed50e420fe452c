"""The heuristic bot pursues its own missions (riskcore/bots/heuristic.py, mission_progress.aims).

The mission rules: the classic secret missions (reference/missions.txt: "Conquer
the continents of North America and Australia", "Occupy 18 territories of your
choice and hold each with at least 2 armies", "Destroy all armies of <colour>")
and the mission game of 000_ed9208fe5525be2d.txt ("uppdragsspelet"): "Ett uppdrag
är slutfört när du har uppnått vad som stod på kortet", and "Var noggrann när du
placerar ut arméerna eftersom det kan hjälpa dig att klara av dina uppdrag".

Each test builds a position and asks the same heuristic twice, steering by its
missions and blind to them (``missions=False``, the old bot the bench compares
against): the first makes the move the mission wants, the second another.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from riskcore.bots.heuristic import HeuristicBot, HeuristicPolicy, Params
from riskcore.bots.mission_progress import aims
from riskcore.model.options import RuleSet
from riskcore.views.seatview import SeatView
from tests.riskcore.helpers import Game, continent, position, split
from tests.riskcore.missions_helpers import with_missions

SOUTH_AMERICA = continent("south_america")
OTHERS_SECRET = {"p2": ["M1"], "p3": ["M6"]}
OTHERS_GRADED = {"p2": ["C1", "J2", "O2", "G2"], "p3": ["C3", "J3", "O3", "G3"]}


def secret(owners: dict[str, str], armies: dict[str, int], mission: str) -> Game:
    game = position(owners, armies, mode="secret_missions", rules=RuleSet(setup="deal"))
    return with_missions(game, "secret-missions", {"p1": [mission], **OTHERS_SECRET})


def graded(owners: dict[str, str], armies: dict[str, int], missions: Sequence[str]) -> Game:
    game = position(owners, armies, mode="mission_game")
    return with_missions(game, "graded-house-v1", {"p1": list(missions), **OTHERS_GRADED})


def choices(game: Game) -> tuple[Mapping[str, object], Mapping[str, object]]:
    """p1's command steering by its missions, and blind to them."""
    view = SeatView(game.state, "p1")
    return HeuristicPolicy(Params()).body(view), HeuristicPolicy(Params(missions=False)).body(view)


def p3_armies(owners: dict[str, str], **more: int) -> dict[str, int]:
    return {**{t: 6 for t, p in owners.items() if p == "p3"}, **more}


def test_reinforcements_go_toward_the_continent_the_mission_wants() -> None:
    """M5, "North America and Australia": p1 holds Australia and South America;
    Venezuela faces Central America (North America), Brazil North Africa, both 3
    armies. It places on Venezuela; the blind bot elsewhere."""
    owners = split({"p1": SOUTH_AMERICA + continent("australia"), "p3": continent("europe")}, "p2")
    armies = p3_armies(owners, central_america=3, north_africa=3, venezuela=5, brazil=5)
    steering, blind = choices(secret(owners, armies, "M5"))
    assert steering == {"type": "place_armies", "territory": "venezuela", "count": 7}
    assert blind["type"] == "place_armies" and blind["territory"] != "venezuela"


def test_a_destroy_mission_attacks_the_target_colour() -> None:
    """M11, destroy p3: from Egypt (10 armies), Southern Europe (p3's) and the Middle
    East (p2's) both hold 3; it attacks p3, the blind bot p2."""
    owners = split({"p1": SOUTH_AMERICA + continent("africa"), "p3": continent("europe")}, "p2")
    armies = p3_armies(owners, egypt=10, southern_europe=3, middle_east=3)
    game = secret(owners, armies, "M11")
    game.place_all("peru")
    steering, blind = choices(game)
    assert steering["type"] == "blitz" and steering["target"] == "southern_europe"
    assert blind["type"] == "blitz" and blind["target"] == "middle_east"


def test_armies_are_placed_to_hold_eighteen_territories_with_two_each() -> None:
    """M7, 18 territories with at least 2 armies: p1 holds 20, 16 with 2, and its
    reserve fills the two shortest (one army each); the blind bot masses it on a
    border."""
    mine = continent("asia") + continent("australia") + SOUTH_AMERICA
    owners = split({"p1": mine, "p3": continent("europe")}, "p2")
    ones = ["peru", "argentina", "brazil", "venezuela"]
    armies = {t: 1 if t in ones else 2 for t in mine}
    game = secret(owners, armies, "M7")
    steering, blind = choices(game)
    assert steering["type"] == "place_armies" and steering["count"] == 1
    assert steering["territory"] in ones
    assert blind["type"] == "place_armies" and blind["count"] == game.state.reserve["p1"]
    bot = HeuristicBot()
    for _ in range(2):  # the two placements that finish it: p1 wins at once
        view = SeatView(game.state, "p1")
        game.body("p1", bot.choose(view, _listed(game), random.Random(0)))
    assert game.state.winner == "p1"


def test_the_mission_game_attacks_its_named_territories() -> None:
    """C6, "Hold North Africa and Brazil": from Brazil and Venezuela (6 each), North
    Africa and Central America hold 3; it reinforces Brazil and attacks North Africa,
    the blind bot Venezuela and Central America."""
    owners = split({"p1": SOUTH_AMERICA, "p3": continent("europe")}, "p2")
    armies = p3_armies(owners, central_america=3, north_africa=3, venezuela=6, brazil=6)
    game = graded(owners, armies, ["C6", "J1", "O1", "G1"])
    steering, blind = choices(game)
    assert steering["territory"] == "brazil" and blind["territory"] == "venezuela"
    game.place_all("peru")
    steering, blind = choices(game)
    assert (steering["source"], steering["target"]) == ("brazil", "north_africa")
    assert (blind["source"], blind["target"]) == ("venezuela", "central_america")


def test_aims_read_only_the_seats_own_missions() -> None:
    """The goals come from the seat's own view: p2's hidden missions change nothing."""
    owners = split({"p1": SOUTH_AMERICA, "p3": continent("europe")}, "p2")
    first = graded(owners, {}, ["C6", "J1", "O1", "G1"])
    game = position(owners, {}, mode="mission_game")
    other = with_missions(
        game,
        "graded-house-v1",
        {"p1": ["C6", "J1", "O1", "G1"], "p2": ["C4", "J5", "O4", "G4"], "p3": OTHERS_GRADED["p3"]},
    )
    mine = aims(SeatView(first.state, "p1"))
    assert mine is not None and mine == aims(SeatView(other.state, "p1"))
    assert mine.goals[0].named == {"north_africa"} and not mine.last


def _listed(game: Game) -> list:  # type: ignore[type-arg]
    from riskcore.engine.legal import legal_actions

    return list(legal_actions(game.state, "p1"))
