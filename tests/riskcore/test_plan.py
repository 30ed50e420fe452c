"""The heuristic's turn plans (issue 34, riskcore/bots/plan.py): an elimination the
turn's armies can finish is planned at placing and followed through the attacks.
The prize is the victim's cards, handed to the seat that takes its last territory
(docs/rules.md, "Attack", elimination: its cards go to the one who eliminated it)."""

from __future__ import annotations

import random

from pytest import approx

from riskcore.bots.features import Position
from riskcore.bots.heuristic import HeuristicBot, HeuristicPolicy, Params, card_worth, target_worth
from riskcore.bots.plan import elimination_cost, groups_of, hunt, striking_power, threat
from riskcore.engine.legal import legal_actions
from riskcore.views.seatview import SeatView
from tests.riskcore.helpers import CLASSIC, Game, cards_with, position, split

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


# Card timing (issue 34): p1 holds 14 territories of 4 armies and three infantry
# cards (a set); p2, p3 and p4 hold the rest with an army each, too many
# territories to hunt.
def _holding(big_rival: bool) -> Game:
    names = list(CLASSIC.territory_names)
    owners = {
        t: "p1" if i < 14 else "p2" if i < 24 else "p3" if i < 33 else "p4"
        for i, t in enumerate(names)
    }
    armies = dict.fromkeys(names[:14], 4)
    if big_rival:
        armies[names[20]] = 60  # p2's stack could pay for p1's 14 territories
    return position(owners, armies, n=4, hands={"p1": cards_with("infantry")[:3]})


def _choice(game: Game, bot: HeuristicBot) -> dict[str, object]:
    view = SeatView(game.state, "p1")
    return bot.choose(view, legal_actions(game.state, "p1"), random.Random(0))


def test_a_safe_seat_holds_its_set_below_four_cards() -> None:
    game = _holding(big_rival=False)
    pos = Position(SeatView(game.state, "p1"))
    assert threat(pos, 3 * card_worth(pos)) < 1.0
    assert _choice(game, HeuristicBot())["type"] == "place_armies"
    # the easy level (and hold: false) trades every set at once, as before issue 34
    assert _choice(game, HeuristicBot(plans=False, hold=False))["type"] == "trade_cards"


def test_a_seat_a_rival_could_put_out_trades_its_set() -> None:
    game = _holding(big_rival=True)
    pos = Position(SeatView(game.state, "p1"))
    assert threat(pos, 3 * card_worth(pos)) >= 1.0
    assert striking_power(pos, "p2", 3 * card_worth(pos)) >= elimination_cost(pos, "p1")
    assert _choice(game, HeuristicBot())["type"] == "trade_cards"


# The leader (issue 34): Domination's AIs all turn on whoever looks strongest,
# so the heuristic may price a territory of the strongest rival higher
# (``Params.leader``), and the strong bot's rollouts may have rivals do so.


def _leading(p3_armies: int = 90) -> Game:
    """p3 holds South America with a stack bigger than the others' armies together."""
    owners = split(
        {
            "p1": ASIA_EAST,
            "p2": [*EUROPE, "egypt", "north_africa"],
            "p3": ["brazil", "argentina", "peru", "venezuela"],
        },
        "p4",
    )
    return position(owners, {"brazil": p3_armies}, n=4)


def test_the_leader_is_the_strongest_rival_by_the_ratio_asked() -> None:
    pos = Position(SeatView(_leading().state, "p1"))
    card = card_worth(pos)
    power = pos.strengths(card)
    assert max(power, key=lambda p: power[p]) == "p3"
    assert pos.leader(card, 1.0) == "p3"
    assert pos.leader(card, 100.0) is None  # not a hundred times anyone
    # Seen from the leader itself, ratio 0 names its strongest rival, 1 nobody.
    own = Position(SeatView(_leading().state, "p3"))
    assert own.leader(card, 1.0) is None
    strongest_rival = max((p for p in power if p != "p3"), key=lambda p: (power[p], p))
    assert own.leader(card, 0.0) == strongest_rival


def test_a_conquest_among_rivals_is_worth_less() -> None:
    """docs/bots.md, "Seventh round": a conquest is worth ``Params.take_contact``
    (0.2) less for each rival's territory next to it, a border the rivals can
    take back; own territories next to it cost nothing. ``gather: false`` (the
    ``easy`` level) prices conquests as before."""
    pos = Position(SeatView(_leading().state, "p4"))
    apart = Params(take_contact=0.0)
    # Peru: Venezuela, Brazil and Argentina are p3's.
    assert target_worth(pos, "peru", Params()) == approx(target_worth(pos, "peru", apart) - 0.6)
    # Siam: China and India are p1's, Indonesia is p4's own.
    assert target_worth(pos, "siam", Params()) == approx(target_worth(pos, "siam", apart) - 0.4)
    assert HeuristicBot(gather=False).policy.params.take_contact == 0.0


def test_a_territory_of_the_leader_is_worth_more_when_asked() -> None:
    pos = Position(SeatView(_leading().state, "p4"))
    plain, leaning = Params(), Params(leader=2.0)
    assert target_worth(pos, "peru", leaning) == target_worth(pos, "peru", plain) + 2.0
    assert target_worth(pos, "siam", leaning) == target_worth(pos, "siam", plain)  # p1's
