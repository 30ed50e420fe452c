"""Setting a game up (docs/rules.md, "Setup"; "The two-player game")."""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

import pytest

from riskcore.engine.decision import Decision
from riskcore.engine.registry import mode_named
from riskcore.model.options import RuleSet
from riskcore.model.state import REINFORCE, SETUP_CLAIM, SETUP_PLACE
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules.setup import roll_for_order
from tests.riskcore.helpers import ALL_CARDS, CLASSIC, Game, ScriptedRng, new, seats, set_up

TWO = RuleSet()


E = TypeVar("E", bound=ev.Event)


def of_type(events: list[ev.Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def rotation(n: int, first: str) -> tuple[str, ...]:
    order = seats(n)
    i = order.index(first)
    return tuple(order[i:] + order[:i])


# Who starts ---------------------------------------------------------------


def test_order_roll_rerolls_ties_among_the_highest_only() -> None:
    """003_281a902b564cb498.txt: "rol één die., Wie het hoogste getal rolt" ... and
    000_ed9208fe5525be2d.txt: "Den spelare som får högst börjar och följs av spelaren till
    vänster" (docs/rules.md, "Setup": ties roll again). p2 and p3 tie on 6; only they re-roll."""
    # rule: 000-order-roll
    # rule: 004-order
    game = new(4)
    decision = Decision(game.state, ScriptedRng([5, 6, 6, 2, 3, 4]))
    roll_for_order(decision, "setup", seats(4))
    (rolled,) = decision.events
    assert isinstance(rolled, ev.OrderRolled)
    assert rolled.rounds == ({"p1": 5, "p2": 6, "p3": 6, "p4": 2}, {"p2": 3, "p3": 4})
    assert rolled.winner == "p3"
    assert rolled.order == ("p3", "p4", "p1", "p2")


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_real_order_rolls_follow_the_rule(n: int) -> None:
    """003_281a902b564cb498.txt: "Wie het hoogste getal rolt" starts, then "vanaf de
    linkerkant van de eerste speler": each round re-rolls exactly those tied for the top,
    the last round has one top roll, and play goes clockwise from the winner."""
    # rule: 001-first-claim
    # rule: 003-first-claim
    rerolled = 0
    for i in range(40):
        game = new(n, seed=b"order %d" % i)
        rolled = game.events[1]
        assert isinstance(rolled, ev.OrderRolled) and rolled.purpose == "setup"
        assert set(rolled.rounds[0]) == set(seats(n))
        for before, after in zip(rolled.rounds, rolled.rounds[1:], strict=False):
            top = max(before.values())
            assert set(after) == {s for s, v in before.items() if v == top}
        last = rolled.rounds[-1]
        assert [s for s, v in last.items() if v == max(last.values())] == [rolled.winner]
        assert all(1 <= v <= 6 for r in rolled.rounds for v in r.values())
        assert rolled.order == rotation(n, rolled.winner)
        assert game.state.order == rolled.order
        assert game.current == rolled.winner
        rerolled += len(rolled.rounds) > 1
    assert rerolled > 0  # some seed exercised a re-roll


# Claiming and placing -------------------------------------------------------


def test_claims_go_clockwise_one_at_a_time_until_all_42_are_claimed() -> None:
    """003_281a902b564cb498.txt: "plaatst iedereen op zijn beurt een leger op een onbezet
    gebied. Ga door tot alle 42 gebieden zijn opgeëist"."""
    # rule: 000-claim
    # rule: 001-claim-round
    # rule: 003-claim
    # rule: 004-claim
    game = new(4)
    order = game.state.order
    territories = list(CLASSIC.territory_names)
    for i, territory in enumerate(territories):
        assert game.state.phase == SETUP_CLAIM
        assert game.current == order[i % 4]
        (claimed,) = game.do(cmd.ClaimTerritory(seat=game.current, territory=territory))
        assert (claimed.seat, claimed.territory) == (order[i % 4], territory)
        # The event says who claims (or places) next: evolve only copies it.
        assert claimed.setup_turn == {"seat": game.current, "quota": {game.current: 1}}
        assert game.state.troops(territory) == 1
    assert game.state.phase == SETUP_PLACE
    assert len(game.state.owner) == 42
    claimed_by = Counter(game.state.owner.values())
    assert [claimed_by[s] for s in order] == [11, 11, 10, 10]
    assert [game.state.reserve[s] for s in order] == [19, 19, 20, 20]
    # The next to place is the one after the last claimer.
    assert game.current == order[42 % 4]


def test_placing_goes_clockwise_one_army_at_a_time_then_the_claimer_opens() -> None:
    """003_281a902b564cb498.txt: "plaatst elke speler op zijn beurt een extra leger op elk
    gebied dat hij of zij al bezet. ga zo door totdat iedereen geen legers meer heeft" and
    "6. degene die het eerste leger plaatste opent het spel"."""
    # rule: 000-place-in-turn
    # rule: 001-place-one
    # rule: 003-place
    # rule: 003-no-limit
    # rule: 004-place
    game = set_up(3)
    placed = of_type(game.events, ev.ArmiesPlaced)
    assert len(placed) == 3 * (35 - 14)
    order = game.state.order
    for i, event in enumerate(placed):
        assert isinstance(event, ev.ArmiesPlaced)
        assert event.count == 1
        assert event.seat == event.player == order[(42 + i) % 3]
    shuffled = game.events[-2]
    assert isinstance(shuffled, ev.DeckShuffled) and not shuffled.reshuffle
    started = game.events[-1]
    assert isinstance(started, ev.TurnStarted)
    rolled = game.events[1]
    assert isinstance(rolled, ev.OrderRolled)
    assert started.seat == order[0] == rolled.winner
    assert started.turn == 1
    assert game.state.phase == REINFORCE
    for seat in order:
        armies = sum(n for (_, p), n in game.state.armies.items() if p == seat)
        assert armies == 35


def test_deck_is_all_44_cards_shuffled_after_setup() -> None:
    """003_281a902b564cb498.txt: "5. Shuffle het pakket met risicokaarten ... Dit pakket
    vormt de trekstapel"; 000_ed9208fe5525be2d.txt: "Blanda RISK-korten (inklusive de 2
    jokrarna)"."""
    # rule: 000-shuffle-deck
    # rule: 003-shuffle
    decks = []
    for seed in (b"a", b"b"):
        game = set_up(3, seed=seed)
        shuffled = of_type(game.events, ev.DeckShuffled)
        assert len(shuffled) == 1
        deck = shuffled[0].order
        assert sorted(deck) == list(ALL_CARDS)
        assert game.state.deck == list(deck)
        assert game.state.discard == [] and all(h == [] for h in game.state.hands.values())
        decks.append(deck)
    assert decks[0] != decks[1]
    assert decks[0] != tuple(ALL_CARDS)


def test_first_player_reroll_rolls_again_after_setup() -> None:
    """000_ed9208fe5525be2d.txt: "Alla spelare kastar varsin tärning igen för att se vem som
    ska börja. Den som får högst börjar och spelet fortsätter medsols"."""
    # rule: 000-reroll-first
    winners = set()
    for i in range(12):
        game = set_up(4, RuleSet(first_player="reroll"), seed=b"reroll %d" % i)
        rolls = of_type(game.events, ev.OrderRolled)
        assert [r.purpose for r in rolls] == ["setup", "first_turn"]
        first_turn = rolls[1]
        assert isinstance(first_turn, ev.OrderRolled)
        assert isinstance(game.events[-3], ev.DeckShuffled)
        assert game.events[-2] is first_turn
        started = game.events[-1]
        assert isinstance(started, ev.TurnStarted) and started.seat == first_turn.winner
        assert game.state.order == first_turn.order == rotation(4, first_turn.winner)
        winners.add((rolls[0].winner, first_turn.winner))
    assert any(a != b for a, b in winners)  # the opener is not always the first claimer


def test_claim_order_opens_with_the_first_claimer_without_a_second_roll() -> None:
    """003_281a902b564cb498.txt: "degene die het eerste leger plaatste opent het spel"."""
    # rule: 001-first-turn
    # rule: 003-first-turn
    game = set_up(5)
    assert [r.purpose for r in of_type(game.events, ev.OrderRolled)] == ["setup"]
    first_claim = of_type(game.events, ev.TerritoryClaimed)[0]
    assert game.current == first_claim.seat


@pytest.mark.parametrize(
    ("n", "shares"), [(3, [14, 14, 14]), (4, [11, 11, 10, 10]), (5, [9, 9, 8, 8, 8])]
)
def test_deal_setup_deals_territory_cards_round_robin(n: int, shares: list[int]) -> None:
    """docs/rules.md, "Setup", option ``setup=deal``: wild cards out, the 42 territory cards dealt
    round-robin from the first player, one army on each (002_84c66041fccdfcee.txt, regular
    Risk: "Ta bort jokrarna från territoriekorten och blanda korten. Dela ut alla korten
    till spelarna ... om ni är fyra spelare, får två av spelarna ett extra kort")."""
    # rule: 000-claim-uneven
    game = new(n, RuleSet(setup="deal"))
    rolled, dealt = game.events[1], game.events[2]
    assert isinstance(rolled, ev.OrderRolled) and isinstance(dealt, ev.TerritoriesDealt)
    assert set(dealt.owners) == set(CLASSIC.territory_names)
    counts = Counter(dealt.owners.values())
    assert [counts[s] for s in rolled.order] == shares
    assert all(game.state.troops(t) == 1 for t in CLASSIC.territory_names)
    assert game.state.phase == SETUP_PLACE
    assert game.current == rolled.winner
    armies = mode_named("classic").starting_armies(RuleSet(), n)
    assert [game.state.reserve[s] for s in rolled.order] == [armies - k for k in shares]


def test_deal_setup_then_places_one_at_a_time_and_shuffles_all_44() -> None:
    """docs/rules.md, "Setup": after the deal, armies are placed as in step 3; the whole deck (wild
    cards back in) is then shuffled into the draw pile."""
    game = set_up(3, RuleSet(setup="deal"))
    assert of_type(game.events, ev.TerritoryClaimed) == []
    assert all(e.count == 1 for e in of_type(game.events, ev.ArmiesPlaced))
    assert sorted(game.state.deck) == list(ALL_CARDS)
    assert game.state.phase == REINFORCE


# Two players ----------------------------------------------------------------


def test_two_player_deal_is_12_12_9_9_before_the_order_roll() -> None:
    """000_ed9208fe5525be2d.txt: "Ta bort de 2 jokrarna från RISK-kortleken och blanda resten
    av korten. Dela ut 12 RISK-kort var till de 2 spelarna och 9 kort var till de neutrala
    ... Kasta tärningarna och se vem som ska börja med att placera ut en förstärkning"."""
    # rule: 000-two-neutrals
    # rule: 000-two-deal
    # rule: 000-two-wilds-out
    game = new(2, TWO)
    created, dealt, rolled = game.events
    assert isinstance(created, ev.GameCreated)
    assert [s["id"] for s in created.seats] == ["p1", "p2", "n1", "n2"]
    assert isinstance(dealt, ev.TerritoriesDealt)
    assert Counter(dealt.owners.values()) == {"p1": 12, "p2": 12, "n1": 9, "n2": 9}
    assert isinstance(rolled, ev.OrderRolled)
    assert set(rolled.rounds[0]) == {"p1", "p2"}  # neutrals do not roll
    assert game.state.setup_quota == {rolled.winner: 3, "n1": 1, "n2": 1}


def test_two_player_setup_alternates_3_own_and_1_per_neutral() -> None:
    """000_ed9208fe5525be2d.txt: "Spelarna turas sedan om att placera ut 3 arméer åt gången i
    sina egna territorier ... sedan 1 armé för var och en av de neutrala"."""
    # rule: 000-two-placing
    # rule: 000-two-neutral-placing
    game = new(2, TWO)
    first = game.current
    other = "p2" if first == "p1" else "p1"
    p_own = game.state.territories_of(first)[0]
    n1 = game.state.territories_of("n1")[0]
    n2 = game.state.territories_of("n2")[0]
    game.reject(cmd.PlaceArmies(seat=first, territory=p_own, count=4), "invalid_count")
    game.do(cmd.PlaceArmies(seat=first, territory=p_own, count=2))
    game.do(cmd.PlaceArmies(seat=first, territory=n1, count=1))
    game.reject(cmd.PlaceArmies(seat=first, territory=n1, count=1), "quota_used")
    game.reject(cmd.PlaceArmies(seat=first, territory=n2, count=2), "invalid_count")
    game.do(cmd.PlaceArmies(seat=first, territory=p_own))
    assert game.current == first  # still owes the second neutral its army
    (placed,) = game.do(cmd.PlaceArmies(seat=first, territory=n2))
    turn = {"seat": other, "quota": {other: 3, "n1": 1, "n2": 1}}
    assert placed == ev.ArmiesPlaced(
        seat=first, player="n2", territory=n2, count=1, setup_turn=turn
    )
    assert game.current == other
    assert game.state.setup_quota == {other: 3, "n1": 1, "n2": 1}


def test_two_player_setup_places_every_army_then_rolls_for_the_opener() -> None:
    """000_ed9208fe5525be2d.txt: "Sedan kastar spelarna om vem som ska börja. Den som får
    högst vinner"; every army is on the board: 36 each and 24 per neutral."""
    # rule: 000-two-wilds-back
    # rule: 000-two-reroll
    game = set_up(2, TWO)
    rolls = of_type(game.events, ev.OrderRolled)
    assert [r.purpose for r in rolls] == ["setup", "first_turn"]
    assert game.current == rolls[1].winner
    totals: Counter[str] = Counter()
    for (_, player), armies in game.state.armies.items():
        totals[player] += armies
    assert totals == {"p1": 36, "p2": 36, "n1": 24, "n2": 24}
    assert sorted(game.state.deck) == list(ALL_CARDS)
    assert game.state.order == ("p1", "p2") or game.state.order == ("p2", "p1")


# Refusals ---------------------------------------------------------------------


@pytest.fixture
def claiming() -> Game:
    """Four players, p-first has claimed Alaska; the next player is to claim."""
    game = new(4)
    game.do(cmd.ClaimTerritory(seat=game.current, territory="alaska"))
    return game


def test_claiming_a_taken_territory_is_refused(claiming: Game) -> None:
    """000_ed9208fe5525be2d.txt: "Du kan inte placera en armé i ett territorium som någon
    annan redan har valt"."""
    # rule: 000-claim-taken
    claiming.reject(
        cmd.ClaimTerritory(seat=claiming.current, territory="alaska"), "territory_taken"
    )


def test_claiming_out_of_turn_is_refused(claiming: Game) -> None:
    """003_281a902b564cb498.txt: "plaatst iedereen op zijn beurt een leger"."""
    waiting = next(s for s in claiming.state.order if s != claiming.current)
    claiming.reject(cmd.ClaimTerritory(seat=waiting, territory="peru"), "not_your_turn")


def test_placing_while_territories_are_unclaimed_is_refused(claiming: Game) -> None:
    """003_281a902b564cb498.txt: "4. nadat alle 42 gebieden zijn geclaimd, plaatst elke
    speler ..." — placing comes after claiming."""
    mine = claiming.state.owner["alaska"]
    claiming.do(cmd.ClaimTerritory(seat=claiming.current, territory="peru"))
    claiming.do(cmd.ClaimTerritory(seat=claiming.current, territory="japan"))
    claiming.do(cmd.ClaimTerritory(seat=claiming.current, territory="siam"))
    assert claiming.current == mine
    claiming.reject(cmd.PlaceArmies(seat=mine, territory="alaska"), "must_claim")


def test_unknown_territories_and_seats_are_refused(claiming: Game) -> None:
    """A refusal carries a stable machine-readable code naming what is wrong (docs/rules.md,
    "Error codes")."""
    claiming.reject(
        cmd.ClaimTerritory(seat=claiming.current, territory="atlantis"), "unknown_territory"
    )
    claiming.reject(cmd.ClaimTerritory(seat="p9", territory="peru"), "unknown_seat")


def test_other_commands_wait_for_the_end_of_setup(claiming: Game) -> None:
    """docs/rules.md, "Setup": the turn (reinforce, attack, fortify) begins once every army is
    placed."""
    seat = claiming.current
    claiming.reject(cmd.EndPhase(seat=seat), "wrong_phase")
    claiming.reject(cmd.Attack(seat=seat, source="alaska", target="kamchatka"), "wrong_phase")
    claiming.reject(cmd.TradeCards(seat=seat, cards=(0, 1, 2)), "wrong_phase")
    claiming.reject(cmd.Occupy(seat=seat, count=1), "nothing_to_occupy")


@pytest.fixture
def placing() -> Game:
    game = new(3)
    for territory in CLASSIC.territory_names:
        game.do(cmd.ClaimTerritory(seat=game.current, territory=territory))
    return game


def test_claiming_after_all_are_claimed_is_refused(placing: Game) -> None:
    """003_281a902b564cb498.txt: "4. nadat alle 42 gebieden zijn geclaimd, plaatst elke speler op
    zijn beurt een extra leger op elk gebied dat hij of zij al bezet"."""
    placing.reject(cmd.ClaimTerritory(seat=placing.current, territory="alaska"), "all_claimed")


def test_placing_on_another_players_territory_is_refused(placing: Game) -> None:
    """000_ed9208fe5525be2d.txt: "Du kan inte placera förstärkningar i fiendens
    territorier"."""
    # rule: 000-place-own
    seat = placing.current
    theirs = next(t for t, p in placing.state.owner.items() if p != seat)
    placing.reject(cmd.PlaceArmies(seat=seat, territory=theirs), "not_your_territory")


def test_placing_more_than_one_army_at_a_time_is_refused(placing: Game) -> None:
    """003_281a902b564cb498.txt: "plaatst elke speler op zijn beurt een extra leger"."""
    seat = placing.current
    mine = placing.state.territories_of(seat)[0]
    placing.reject(cmd.PlaceArmies(seat=seat, territory=mine, count=2), "invalid_count")
    placing.reject(cmd.PlaceArmies(seat=seat, territory=mine, count=0), "invalid_count")
    placing.do(cmd.PlaceArmies(seat=seat, territory=mine, count=1))
    placing.reject(cmd.PlaceArmies(seat=seat, territory=mine, count=1), "not_your_turn")


def test_neutral_seats_cannot_act() -> None:
    """000_ed9208fe5525be2d.txt: passive neutrals "varken förflyttar sig, får förstärkningar
    eller angriper"."""
    game = new(2, TWO)
    territory = game.state.territories_of("n1")[0]
    game.reject(cmd.PlaceArmies(seat="n1", territory=territory), "unknown_seat")


def test_claims_that_use_up_every_army_start_the_game_at_once() -> None:
    """docs/rules.md, "Setup", step 3 places until everyone has placed them all: with 14 armies
    each for 42 territories, claiming places them all."""
    game = new(3, RuleSet(starting_armies=14))
    for territory in CLASSIC.territory_names:
        game.do(cmd.ClaimTerritory(seat=game.current, territory=territory))
    assert game.state.phase == REINFORCE
    assert of_type(game.events, ev.ArmiesPlaced) == []


def test_a_dealt_setup_never_places_more_than_the_starting_armies() -> None:
    """003_281a902b564cb498.txt: "ga zo door totdat iedereen geen legers meer heeft" — placing
    stops when the armies run out. With ``setup=deal`` and 11 armies each for four players,
    the deal (11, 11, 10, 10) leaves the first player none; ``_territories_dealt`` still
    gives them a setup turn with a quota of 1 (``setup_quota`` ignores the reserve), so
    they place a twelfth army and their reserve goes to -1."""
    game = set_up(4, RuleSet(setup="deal", starting_armies=11))
    totals = Counter(p for (_, p), n in game.state.armies.items() for _ in range(n))
    assert set(totals.values()) == {11}
