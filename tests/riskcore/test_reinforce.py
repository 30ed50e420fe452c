"""The reinforce phase: how many armies, card trades, placing (docs/rules.md, "Reinforce")."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from riskcore.engine.legal import legal_actions
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, REINFORCE
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from tests.riskcore.helpers import (
    CLASSIC,
    Game,
    ScriptedRng,
    card_of,
    cards_with,
    continent,
    position,
    split,
)

INFANTRY = cards_with("infantry")
CAVALRY = cards_with("cavalry")
ARTILLERY = cards_with("artillery")
WILD = cards_with("wild")


def spread(count: int) -> list[str]:
    """``count`` territories that complete no continent (one of each is left out)."""
    pool: list[str] = []
    for group in CLASSIC.groups:
        pool += sorted(group.territories)[1:]
    assert count <= len(pool)
    return pool[:count]


def holding(
    mine: Sequence[str],
    armies: dict[str, int] | None = None,
    *,
    hands: dict[str, list[int]] | None = None,
    rules: RuleSet | None = None,
) -> Game:
    """p1 holds ``mine``, p3 the first territory not in it, p2 the rest; p1 to play."""
    spare = next(t for t in CLASSIC.territory_names if t not in mine)
    owners = split({"p1": mine, "p3": [spare]}, "p2")
    return position(owners, armies, hands=hands, rules=rules)


def traded(events: list[ev.Event]) -> ev.CardsTraded:
    (event,) = events
    assert isinstance(event, ev.CardsTraded)
    return event


def started(game: Game) -> ev.TurnStarted:
    event = game.events[-1]
    assert isinstance(event, ev.TurnStarted)
    return event


# How many armies --------------------------------------------------------------


@pytest.mark.parametrize(
    ("territories", "armies"),
    [(13, 4), (5, 3), (11, 3), (14, 4), (17, 5), (1, 3), (8, 3), (9, 3), (30, 10)],
)
def test_territories_divided_by_three_at_least_three(territories: int, armies: int) -> None:
    """000_ed9208fe5525be2d.txt: "Grön kontrollerar 13 territorier. Han får 4 förstärkningar
    ... Röd kontrollerar 5 territorier. Hon får 3 förstärkningar"; 001_c708159c204162c3.txt:
    "11 territorier = 3 arméer; • 14 territorier = 4 arméer; • 17 territorier = 5 arméer ...
    Du kommer alltid att ha minst 3 arméer"; 004_780a86783e2219ae.txt: "Hvis du har 11
    territorier , for eksempel , ville du få til å plassere tre flere hærer"."""
    # rule: 000-territories-div3
    # rule: 000-min-three
    # rule: 000-example-13
    # rule: 001-territories-div3
    # rule: 001-example-11
    # rule: 001-min-three
    # rule: 002-min-three
    # rule: 003-territories
    # rule: 004-rounding
    game = holding(spread(territories))
    assert started(game) == ev.TurnStarted(
        seat="p1", turn=1, reinforcements=armies, must_trade=False
    )
    assert game.state.reserve["p1"] == armies
    assert game.state.phase == REINFORCE


@pytest.mark.parametrize(
    ("continents", "armies"),
    [
        (["australia"], 3 + 2),
        (["south_america"], 3 + 2),
        (["africa"], 3 + 3),
        (["europe"], 3 + 5),
        (["north_america"], 3 + 5),
        (["asia"], 4 + 7),
        (["south_america", "australia"], 3 + 2 + 2),
        (["north_america", "europe", "africa"], 7 + 5 + 5 + 3),
    ],
)
def test_continent_bonuses(continents: list[str], armies: int) -> None:
    """003_281a902b564cb498.txt: "u zult aan het begin van uw beurt legers ontvangen voor elk
    continent dat u beheert. (Om een continent te controleren, moet je al zijn gebieden
    bezetten aan het begin van je beurt)"; bonuses NA 5, SA 2, EU 5, AF 3, AS 7, AU 2."""
    # rule: 000-continent-bonus
    # rule: 003-continent-values
    # rule: 004-continents
    mine = [t for c in continents for t in continent(c)]
    assert started(holding(mine)).reinforcements == armies


def test_one_missing_territory_loses_the_continent_bonus() -> None:
    """000_ed9208fe5525be2d.txt: "Det räcker med att en annan spelare kontrollerar ett enda
    av territorierna för att du inte längre ska få några extra förstärkningar"."""
    # rule: 000-continent-lost
    asia = continent("asia")
    assert started(holding(asia)).reinforcements == 4 + 7
    assert started(holding(asia[1:])).reinforcements == 3


def test_a_continent_taken_mid_turn_pays_from_the_next_turn() -> None:
    """003_281a902b564cb498.txt: "(Om een continent te controleren, moet je al zijn gebieden
    bezetten aan het begin van je beurt)"."""
    # rule: 001-continent-start
    # rule: 003-continents
    owners = split({"p1": ["venezuela", "peru", "argentina"], "p3": ["japan"]}, "p2")
    game = position(owners, {"peru": 4})
    assert started(game).reinforcements == 3
    game.place_all("peru")
    game.do(cmd.Attack(seat="p1", source="peru", target="brazil"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    assert set(continent("south_america")) <= set(game.state.territories_of("p1"))
    assert game.state.reserve["p1"] == 0  # nothing added mid-turn
    game.end_turn()
    for _ in ("p2", "p3"):
        game.place_all()
        game.end_turn()
    assert started(game) == ev.TurnStarted(
        seat="p1", turn=4, reinforcements=3 + 2, must_trade=False
    )


# Card sets --------------------------------------------------------------------


@pytest.mark.parametrize(
    "cards",
    [
        (INFANTRY[0], INFANTRY[1], INFANTRY[2]),
        (CAVALRY[0], CAVALRY[1], CAVALRY[2]),
        (ARTILLERY[0], ARTILLERY[1], ARTILLERY[2]),
        (INFANTRY[0], CAVALRY[0], ARTILLERY[0]),
        (INFANTRY[0], INFANTRY[1], WILD[0]),
        (CAVALRY[0], ARTILLERY[0], WILD[0]),
        (WILD[0], WILD[1], ARTILLERY[0]),
    ],
)
def test_sets_are_three_alike_one_of_each_or_two_and_a_wild(cards: tuple[int, int, int]) -> None:
    """003_281a902b564cb498.txt: "3 kaarten van hetzelfde ontwerp (infanterie, cavalerie of
    artillerie), 1 elk van 3 ontwerpen, of elke 2 plus een “wild” kaart"."""
    # rule: 000-sets
    # rule: 000-wild
    # rule: 001-sets
    # rule: 003-sets
    # rule: 004-sets
    game = holding(["japan"], hands={"p1": list(cards)})  # Japan's card is in no set here
    (done,) = game.do(cmd.TradeCards(seat="p1", cards=cards))
    assert done == ev.CardsTraded(
        seat="p1", cards=cards, armies=4, bonus_territory=None, bonus_armies=0
    )
    assert game.state.reserve["p1"] == 3 + 4
    assert game.state.hands["p1"] == []
    assert game.state.discard == list(cards)
    assert game.state.sets_traded == 1


@pytest.mark.parametrize(
    "cards",
    [
        (INFANTRY[0], INFANTRY[1], CAVALRY[0]),
        (ARTILLERY[0], ARTILLERY[1], CAVALRY[0]),
        (INFANTRY[0], INFANTRY[1]),
        (INFANTRY[0], INFANTRY[1], INFANTRY[2], INFANTRY[3]),
        (INFANTRY[0], INFANTRY[0], INFANTRY[1]),
    ],
)
def test_anything_else_is_not_a_set(cards: tuple[int, ...]) -> None:
    """003_281a902b564cb498.txt: "u probeert sets van 3 kaarten te verzamelen in een van de
    volgende combinaties"; two alike and one other is none of them."""
    game = holding(["peru"], hands={"p1": sorted(set(cards))})
    game.reject(cmd.TradeCards(seat="p1", cards=cards), "not_a_set")


def test_trading_cards_not_held_is_refused() -> None:
    """003_281a902b564cb498.txt: "als u een set van 3 risicokaarten hebt verzameld, kunt u deze
    inleveren": only cards one holds, and only on one's own turn."""
    game = holding(["peru"], hands={"p1": INFANTRY[:2], "p2": [INFANTRY[2]]})
    game.reject(cmd.TradeCards(seat="p1", cards=tuple(INFANTRY[:3])), "cards_not_held")
    game.reject(cmd.TradeCards(seat="p2", cards=tuple(INFANTRY[:3])), "not_your_turn")


def test_progressive_values_count_every_players_trades() -> None:
    """003_281a902b564cb498.txt: "als je de 3e set in het spel inruilt, ontvang je 8 legers,
    zelfs als het de eerste set is die je hebt ingeruild"."""
    # rule: 000-progressive
    # rule: 001-count-all
    # rule: 003-count-all
    owners = split({"p1": ["peru"], "p3": ["japan"]}, "p2")
    hands = {
        "p1": INFANTRY[:3] + INFANTRY[3:6],
        "p2": CAVALRY[:3],
        "p3": ARTILLERY[:3],
    }
    game = position(owners, hands=hands)
    first = game.do(cmd.TradeCards(seat="p1", cards=tuple(INFANTRY[:3])))
    second = game.do(cmd.TradeCards(seat="p1", cards=tuple(INFANTRY[3:6])))
    game.place_all()
    game.end_turn()
    third = game.do(cmd.TradeCards(seat="p2", cards=tuple(CAVALRY[:3])))
    game.place_all()
    game.end_turn()
    fourth = game.do(cmd.TradeCards(seat="p3", cards=tuple(ARTILLERY[:3])))
    values = [traded(e).armies for e in (first, second, third, fourth)]
    assert values == [4, 6, 8, 10]
    assert game.state.sets_traded == 4


def test_fixed_values_go_by_the_symbols() -> None:
    """000_ed9208fe5525be2d.txt (mission game): "3 infanteri 4 3 kavalleri 6 3 artilleri 8
    1 av varje 10"."""
    # rule: 000-mission-fixed-values
    # rule: 002-fixed-values
    hands = {"p1": [*ARTILLERY[:3], INFANTRY[0], CAVALRY[0], WILD[0]]}
    game = holding(["peru"], rules=RuleSet(card_values="fixed"), hands=hands)
    art = traded(game.do(cmd.TradeCards(seat="p1", cards=tuple(ARTILLERY[:3]))))
    mixed = traded(game.do(cmd.TradeCards(seat="p1", cards=(INFANTRY[0], CAVALRY[0], WILD[0]))))
    assert (art.armies, mixed.armies) == (8, 10)


def test_each_offered_trade_says_the_armies_its_set_brings() -> None:
    """The set's worth goes with each trade offered (the page shows it beside the set):
    with fixed values by its symbols (000_ed9208fe5525be2d.txt: "3 infanteri 4 3
    kavalleri 6 3 artilleri 8 1 av varje 10"), with progressive values by the sets traded
    before; what the action says is what the trade then gives."""
    # rule: 000-mission-fixed-values
    hands = {"p1": [*ARTILLERY[:3], *INFANTRY[:3], CAVALRY[0]]}
    for rules, traded_before in ((RuleSet(card_values="fixed"), 0), (RuleSet(), 2)):
        game = holding(["peru"], rules=rules, hands=hands)
        game.state.sets_traded = traded_before
        offered = {
            tuple(sorted(a["command"]["cards"])): a["armies"]
            for a in legal_actions(game.state, "p1")
            if a["command"]["type"] == "trade_cards"
        }
        assert len(offered) > 3
        if rules.card_values == "fixed":
            assert offered[tuple(sorted(ARTILLERY[:3]))] == 8
            assert offered[tuple(sorted(INFANTRY[:3]))] == 4
            assert offered[tuple(sorted((ARTILLERY[0], INFANTRY[0], CAVALRY[0])))] == 10
        else:
            assert set(offered.values()) == {8}  # the third set of the game: 4, 6, then 8
        for cards, armies in list(offered.items())[:3]:
            again = holding(["peru"], rules=rules, hands=hands)
            again.state.sets_traded = traded_before
            assert traded(again.do(cmd.TradeCards(seat="p1", cards=cards))).armies == armies


# The territory bonus ------------------------------------------------------------


def test_a_traded_card_of_an_owned_territory_gives_2_armies_there() -> None:
    """003_281a902b564cb498.txt: "als een van de 3 kaarten die u inruilt een afbeelding toont
    van een gebied dat u bezet, ontvangt u 2 extra legers. Je moet beide legers op dat
    specifieke gebied plaatsen"."""
    # rule: 001-territory-bonus
    # rule: 002-territory-bonus
    # rule: 003-territory-bonus
    # rule: 004-territory-bonus
    peru = card_of("peru")  # infantry
    cards = (peru, INFANTRY[0], INFANTRY[-1])
    assert CLASSIC.card(peru).symbol == "infantry"
    game = holding(["peru", "siam"], {"peru": 2}, hands={"p1": list(cards)})
    (done,) = game.do(cmd.TradeCards(seat="p1", cards=cards))
    assert done == ev.CardsTraded(
        seat="p1", cards=cards, armies=4, bonus_territory="peru", bonus_armies=2
    )
    assert game.state.troops("peru") == 2 + 2
    assert game.state.reserve["p1"] == 3 + 4  # the 2 are not in the reserve


def test_the_player_names_which_pictured_territory_gets_the_bonus() -> None:
    """docs/rules.md, "Reinforce": the 2 armies go on that territory; with two pictured and
    owned, the player names one, and a territory not pictured (or not owned) is refused."""
    peru, venezuela, siam = card_of("peru"), card_of("venezuela"), card_of("siam")
    cards = (peru, venezuela, siam)  # three infantry
    game = holding(["peru", "venezuela"], hands={"p1": list(cards)})
    trade = cmd.TradeCards(seat="p1", cards=cards, bonus_territory="siam")
    game.reject(trade, "invalid_bonus_territory")  # pictured, not owned
    trade = cmd.TradeCards(seat="p1", cards=cards, bonus_territory="argentina")
    game.reject(trade, "invalid_bonus_territory")  # not pictured
    done = traded(game.do(cmd.TradeCards(seat="p1", cards=cards, bonus_territory="venezuela")))
    assert (done.bonus_territory, done.bonus_armies) == ("venezuela", 2)
    assert game.state.troops("venezuela") == 3 and game.state.troops("peru") == 1


def test_the_territory_bonus_is_at_most_2_armies_a_turn() -> None:
    """001_c708159c204162c3.txt: "Du kan få upp till 2 arméer mer per tur än vad du skulle få
    för de samlade uppsättningarna kort"."""
    # rule: 001-bonus-once
    first = (card_of("peru"), card_of("venezuela"), card_of("argentina"))  # I, I, I
    second = (card_of("brazil"), card_of("great_britain"), card_of("central_america"))  # A x3
    assert {CLASSIC.card(c).symbol for c in second} == {"artillery"}
    game = holding(["peru", "venezuela", "argentina", "brazil"], hands={"p1": [*first, *second]})
    one = traded(game.do(cmd.TradeCards(seat="p1", cards=first)))
    two = traded(game.do(cmd.TradeCards(seat="p1", cards=second, bonus_territory="brazil")))
    assert one.bonus_armies == 2
    assert (two.bonus_territory, two.bonus_armies) == (None, 0)
    assert game.state.troops("brazil") == 1


def test_no_bonus_when_no_pictured_territory_is_owned() -> None:
    """003_281a902b564cb498.txt: "als een van de 3 kaarten die u inruilt een afbeelding toont van
    een gebied dat u bezet" — and only then."""
    cards = (card_of("kamchatka"), card_of("siam"), card_of("mongolia"))  # three infantry
    game = holding(["peru"], hands={"p1": list(cards)})
    done = traded(game.do(cmd.TradeCards(seat="p1", cards=cards)))
    assert (done.bonus_territory, done.bonus_armies) == (None, 0)


# The forced trade -----------------------------------------------------------------


def test_five_cards_at_turn_start_force_a_trade_before_placing() -> None:
    """003_281a902b564cb498.txt: "als je aan het begin van je beurt 5 of 6 kaarten hebt,
    moet je minstens één set inruilen en mag je een tweede set inruilen als je er een
    hebt"."""
    # rule: 000-forced-trade
    # rule: 002-trade-five
    # rule: 003-forced
    hand = INFANTRY[:3] + CAVALRY[:2]
    game = holding(["peru", "siam"], hands={"p1": hand})
    assert started(game).must_trade
    game.reject(cmd.PlaceArmies(seat="p1", territory="peru"), "must_trade_cards")
    game.reject(cmd.EndPhase(seat="p1"), "must_trade_cards")
    game.reject(cmd.Attack(seat="p1", source="peru", target="brazil"), "must_trade_cards")
    game.do(cmd.TradeCards(seat="p1", cards=tuple(INFANTRY[:3])))
    game.do(cmd.PlaceArmies(seat="p1", territory="peru", count=7))
    assert game.state.phase == ATTACK


def test_a_second_set_may_be_traded_after_the_forced_one() -> None:
    """003_281a902b564cb498.txt: "en mag je een tweede set inruilen als je er een hebt"."""
    # rule: 001-forced-5-6
    hand = INFANTRY[:3] + CAVALRY[:3]
    game = holding(["peru"], hands={"p1": hand})
    game.do(cmd.TradeCards(seat="p1", cards=tuple(INFANTRY[:3])))
    game.do(cmd.PlaceArmies(seat="p1", territory="peru", count=1))
    game.do(cmd.TradeCards(seat="p1", cards=tuple(CAVALRY[:3])))
    assert game.state.reserve["p1"] == 3 + 4 - 1 + 6


def test_four_cards_do_not_force_a_trade() -> None:
    """000_ed9208fe5525be2d.txt: "Om du har 5 eller fler kort MÅSTE du växla in"."""
    game = holding(["peru"], hands={"p1": INFANTRY[:3] + CAVALRY[:1]})
    assert not started(game).must_trade
    game.do(cmd.PlaceArmies(seat="p1", territory="peru", count=3))
    assert game.state.phase == ATTACK


# Placing ----------------------------------------------------------------------------


def test_every_reinforcement_must_be_placed_before_attacking() -> None:
    """000_ed9208fe5525be2d.txt: "När du har samlat in dina förstärkningar måste du placera ut
    ALLA arméer i territorier du kontrollerar"."""
    # rule: 000-place-all
    game = holding(["peru", "brazil"], {"peru": 3})
    game.do(cmd.PlaceArmies(seat="p1", territory="peru", count=2))
    assert game.state.phase == REINFORCE and game.state.reserve["p1"] == 1
    game.reject(cmd.Attack(seat="p1", source="peru", target="venezuela"), "armies_to_place")
    game.reject(cmd.EndPhase(seat="p1"), "armies_to_place")
    game.reject(cmd.Fortify(seat="p1", source="peru", target="brazil", count=1), "armies_to_place")
    (placed,) = game.do(cmd.PlaceArmies(seat="p1", territory="brazil", count=1))
    assert placed == ev.ArmiesPlaced(
        seat="p1", player="p1", territory="brazil", count=1, next_phase="attack"
    )
    assert game.state.phase == ATTACK
    assert game.state.troops("peru") == 5 and game.state.troops("brazil") == 2


def test_placing_refusals() -> None:
    """000_ed9208fe5525be2d.txt: "placera ut ALLA arméer i territorier du kontrollerar"."""
    game = holding(["peru"])
    game.reject(cmd.PlaceArmies(seat="p1", territory="peru", count=4), "too_many_armies")
    game.reject(cmd.PlaceArmies(seat="p1", territory="peru", count=0), "invalid_count")
    game.reject(cmd.PlaceArmies(seat="p1", territory="brazil", count=1), "not_your_territory")
    game.reject(cmd.PlaceArmies(seat="p1", territory="atlantis", count=1), "unknown_territory")
    game.reject(cmd.PlaceArmies(seat="p2", territory="brazil", count=1), "not_your_turn")
    game.place_all()
    game.reject(cmd.PlaceArmies(seat="p1", territory="peru", count=1), "wrong_phase")
    game.reject(cmd.TradeCards(seat="p1", cards=(0, 1, 2)), "wrong_phase")


# The discard pile ---------------------------------------------------------------------


def test_an_empty_draw_pile_is_refilled_from_the_shuffled_discards() -> None:
    """Traded cards go to a discard pile; when the draw pile is empty, the discard pile is
    shuffled into a new draw pile (docs/rules.md, "Reinforce", "Drawing a card")."""
    # rule: 002-discard-reshuffle
    every = list(range(44))
    traded = (INFANTRY[0], INFANTRY[1], INFANTRY[2])
    rest = [c for c in every if c not in traded]
    hands = {"p1": [*traded, *rest[:2]], "p2": rest[2:23], "p3": rest[23:]}
    owners = split({"p1": ["brazil"], "p3": ["japan"]}, "p2")
    game = position(owners, {"brazil": 4}, hands=hands)
    assert game.state.deck == []
    game.do(cmd.TradeCards(seat="p1", cards=traded))
    game.place_all("brazil")
    game.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1])
    )
    game.do(cmd.Occupy(seat="p1", count=3))
    game.end_attack()
    ended = game.do(cmd.EndPhase(seat="p1"))
    reshuffled, drawn = ended[0], ended[1]
    assert isinstance(reshuffled, ev.DeckShuffled) and reshuffled.reshuffle
    assert sorted(reshuffled.order) == sorted(traded)
    assert drawn == ev.CardDrawn(seat="p1", card=reshuffled.order[0])
    assert game.state.discard == []
    assert game.state.deck == list(reshuffled.order[1:])
    assert reshuffled.order[0] in game.state.hands["p1"]
