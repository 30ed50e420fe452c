"""The heuristic's turn plans (issue 34, riskcore/bots/plan.py): an elimination the
turn's armies can finish is planned at placing and followed through the attacks.
The prize is the victim's cards, handed to the seat that takes its last territory
(RULES.md, "Eliminating a player": its cards go to the one who eliminated it)."""

from __future__ import annotations

import random

from riskcore.bots.features import Position
from riskcore.bots.heuristic import HeuristicBot, HeuristicPolicy
from riskcore.bots.plan import groups_of, hunt
from riskcore.engine.legal import legal_actions
from riskcore.views.seatview import SeatView
from tests.riskcore.helpers import Game, position, split

# p2 is down to Indonesia and New Guinea (one army each) with three cards; p1's
# Siam (two armies) touches Indonesia, and its 15 territories bring 5 armies;
# p3 and p4 hold the rest of the board.
ASIA_EAST = ["siam", "china", "india", "mongolia", "japan", "kamchatka", "irkutsk", "yakutsk"]
EUROPE = ["iceland", "scandinavia", "ukraine", "great_britain", "northern_europe"]
EUROPE += ["western_europe", "southern_europe"]


def _hunted(victim_armies: int = 1, hand: int = 3) -> Game:
    owners = split(
        {
            "p1": ASIA_EAST + EUROPE,
            "p2": ["indonesia", "new_guinea"],
            "p4": ["western_australia", "eastern_australia"],
        },
        "p3",
    )
    armies = {"indonesia": victim_armies, "new_guinea": victim_armies, "siam": 2}
    return position(owners, armies, n=4, hands={"p2": list(range(hand))})


def test_groups_are_joined_through_the_victims_own_borders() -> None:
    pos = Position(SeatView(_hunted().state, "p1"))
    assert groups_of(pos, ["indonesia", "new_guinea", "siam"]) == [
        ["indonesia", "new_guinea", "siam"]
    ]
    assert groups_of(pos, ["indonesia", "japan"]) == [["indonesia"], ["japan"]]


def test_a_rival_the_reserve_can_put_out_is_hunted_from_the_stack_next_to_it() -> None:
    """Two one-army territories cost a big stack about 2 × (0.5 + 1) armies and a
    margin of one each: the reserve must bring Siam's one spare army to about 5."""
    game = _hunted()
    view = SeatView(game.state, "p1")
    pos = Position(view)
    planned = hunt(pos, view.reserve(), card=2.0, margin=1.0, most=8, ratio=0.5)
    assert planned is not None and planned.victim == "p2"
    ((source, missing),) = planned.needs
    assert source == "siam" and 4 <= missing <= view.reserve()
    body = HeuristicBot().choose(view, legal_actions(game.state, "p1"), random.Random(0))
    assert body == {"type": "place_armies", "territory": "siam", "count": missing}


def test_no_plan_when_the_reserve_cannot_finish_it() -> None:
    game = _hunted(victim_armies=12)
    view = SeatView(game.state, "p1")
    assert hunt(Position(view), view.reserve(), 2.0, 1.0, 8, 0.5) is None


def test_the_attacks_roll_through_the_victims_territories_until_it_is_out() -> None:
    """Placed on Siam, the plan attacks Indonesia, then New Guinea from there."""
    game = _hunted()
    bot = HeuristicBot()
    while game.state.current == "p1" and game.state.phase in ("reinforce", "attack", "occupy"):
        state = game.state
        if state.phase == "attack" and not state.territories_of("p2"):
            break
        body = bot.choose(SeatView(state, "p1"), legal_actions(state, "p1"), random.Random(0))
        if state.phase == "attack" and state.territories_of("p2"):
            assert body["type"] == "blitz" and state.owner[body["target"]] == "p2"
        game.body("p1", body)
    assert not game.state.is_active("p2")
    assert len(game.state.hand("p1")) >= 3  # p2's three cards


def test_the_easy_level_plans_nothing() -> None:
    game = _hunted()
    view = SeatView(game.state, "p1")
    easy = HeuristicBot(plans=False)
    assert easy.policy.hunting(Position(view), view.reserve()) is None
    assert HeuristicPolicy().hunting(Position(view), view.reserve()) is not None
