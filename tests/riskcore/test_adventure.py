"""Adventure cards of Lord of the Rings Risk (docs/rules.md, "Adventure cards"; the Swedish 2002
book, 002_84c66041fccdfcee.txt, "ÄVENTYRSKORT"), played from the deck ``adventure-northern-v1``
(riskcore/modes/decks/).

Positions are built as in test_lotr.py; the adventure pile and hands are put in
with the events a deal makes (``AdventureDeckShuffled``, ``AdventureCardDrawn``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from riskcore.audit.verify import verify_text
from riskcore.boards.board import load_board
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, REINFORCE
from riskcore.modes import adventure
from riskcore.modes.adventure import (
    AdventureCardDrawn,
    AdventureDeckShuffled,
    AdventureDiscarded,
    AdventureMissionClaimed,
    AdventurePlayed,
    ClaimAdventure,
    DiscardAdventure,
    PassAdventure,
    PlayAdventure,
)
from riskcore.modes.lotr import (
    FellowshipMoved,
    LeaderPlaced,
    MoveLeader,
    PlaceLeader,
    score_table,
    second_leader_owed,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.simulate import play_game, record_of
from riskcore.views.seatview import SeatView
from riskcore.views.view import redact, view
from tests.riskcore.helpers import Game, ScriptedRng, new, setup_policy
from tests.riskcore.test_lotr import P1, P2, attacking, lotr, to_fortify
from tests.riskcore.test_simulate import replay

SEED_FILE = "002_84c66041fccdfcee.txt"
ME = load_board("middle_earth")
DECK = adventure.load_deck("adventure-northern-40-v1", "middle_earth")
DECK_FILE = adventure.DECKS / "adventure-northern-40-v1.json"


def numbers(card_id: str) -> list[int]:
    """The card numbers of every copy of ``card_id``."""
    return [n for n, c in enumerate(DECK.cards) if c.id == card_id]


def number(card_id: str) -> int:
    return numbers(card_id)[0]


def with_cards(
    groups: Mapping[str, Sequence[str]],
    armies: Mapping[str, int] | None = None,
    *,
    hands: Mapping[str, Sequence[str]] = {},
    pile: Sequence[str] = (),
    leaders: Mapping[str, Sequence[str]] | None = None,
    steps: int = 0,
    rules: RuleSet | None = None,
) -> Game:
    """A Lord of the Rings position with these adventure hands (card ids) and the pile
    starting with ``pile`` (the rest of the deck after it, in number order)."""
    game = lotr(groups, armies, leaders=leaders, steps=steps, rules=rules)
    taken: list[int] = []
    for cards in hands.values():
        for c in cards:
            taken.append(next(n for n in numbers(c) if n not in taken))
    top = []
    for c in pile:
        top.append(next(n for n in numbers(c) if n not in taken + top))
    rest = [n for n in DECK.numbers() if n not in taken and n not in top]
    events: list[ev.Event] = [
        AdventureDeckShuffled(adventure_order=tuple(taken + top + rest), purpose="pile")
    ]
    held = iter(taken)
    for seat, cards in hands.items():
        events += [
            AdventureCardDrawn(seat=seat, adventure=next(held), reason="deal") for _ in cards
        ]
    at = game.events.index(next(e for e in game.events if isinstance(e, ev.TurnStarted)))
    all_events = game.events[:at] + events + game.events[at:]
    return Game(fold(all_events), all_events, game.seed)


def pass_windows(game: Game) -> list[ev.Event]:
    """Every player the Fellowship's window asks passes."""
    events: list[ev.Event] = []
    while game.state.phase == adventure.WINDOW:
        seat = adventure.window_seat(game.state)
        assert seat is not None
        events += game.do(PassAdventure(seat=seat))
    return events


def end_turn(game: Game) -> list[ev.Event]:
    """The current player's turn to its end, the window passed (a second leader drawn
    on the way placed at once, on the first own territory without a leader)."""
    if game.state.phase == ATTACK:
        game.end_attack()
    seat = game.current
    events = game.do(cmd.EndPhase(seat=seat))
    if second_leader_owed(game.state, seat):
        free = [t for t in game.state.territories_of(seat) if t not in game.state.leaders[seat]]
        events += game.do(PlaceLeader(seat=seat, territory=free[0]))
        events += game.do(cmd.EndPhase(seat=seat))
    return events + pass_windows(game)


def _actions(game: Game, seat: str, kind: str) -> list[dict[str, Any]]:
    return [a for a in legal_actions(game.state, seat) if a["command"]["type"] == kind]


def held(game: Game, seat: str) -> list[str]:
    return [DECK.cards[n].id for n in game.state.adventure_hands.get(seat, [])]


def card_in_hand(game: Game, seat: str, card_id: str) -> int:
    return next(n for n in game.state.adventure_hands[seat] if DECK.cards[n].id == card_id)


# The deck as data ------------------------------------------------------------------


def test_the_deck_file_says_where_every_card_and_number_comes_from() -> None:
    """002: "40 äventyrskort" of three kinds, "UPPDRAGSKORT", "HÄNDELSEKORT", "MAKTKORT":
    the printed list is not known, so every card and number of the reconstruction names
    its source, and the deck's name says it is not the printed one."""
    data = json.loads(DECK_FILE.read_text())
    assert "not the printed" in data["title"] and data["left_out"]
    for card in data["cards"]:
        assert card["kind"] in ("event", "mission", "power")
        assert set(card["source"]) >= {"card", "copies", "effect", "points"}
        assert set(card["source"].values()) <= {"2002 book", "trilogy", "ours"}
    kinds = {c.kind for c in DECK.cards}
    assert kinds == {"event", "mission", "power"}
    # The sites the missions name are the board's sites of power.
    assert {c.site for c in DECK.cards if c.kind == "mission"} <= set(ME.sites_of_power)


REWARD = {"armies": {"good": 1, "evil": 1}}
TROLL = {"territory": "moria", "side": "evil", "gain": 2, "else_lose": 2}


def _broken(change: Mapping[str, Any]) -> dict[str, Any]:
    data = json.loads(DECK_FILE.read_text())
    data["cards"][0] = {**data["cards"][0], **change}
    return data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"kind": "mission", "moment": "site", "site": "brown_lands", "effect": REWARD},
            "no site of power",
        ),
        ({"moment": "whenever"}, "unknown moment"),
        ({"effect": {"summon_dragon": {}}}, "unknown effect"),
        (
            {
                "effect": {
                    "side_holds": {"territory": "gondor", "side": "evil", "gain": 2, "else_lose": 2}
                }
            },
            "unknown territory",
        ),
        ({"kind": "villain"}, "unknown kind"),
        (
            {"kind": "power", "moment": "turn_start", "effect": {"block_border": {"kind": "ford"}}},
            "no border of kind",
        ),
        ({"source": {"card": "a rumour"}}, "source"),
        ({"copies": 0}, "copies"),
    ],
)
def test_a_deck_that_names_what_the_game_lacks_is_refused_naming_the_card(
    change: Mapping[str, Any], words: str
) -> None:
    with pytest.raises(RuleOptionError, match=words) as caught:
        adventure.parse_deck(_broken(change), ME, "adventure-broken")
    assert "second_leader" in str(caught.value)


def test_a_game_names_its_deck_and_an_unknown_one_is_refused() -> None:
    game = new(3, mode="lotr")
    created = game.events[0]
    assert isinstance(created, ev.GameCreated)
    assert created.rules["adventure_deck"] == "adventure-northern-40-v1"
    with pytest.raises(RuleOptionError):
        RuleSet(adventure_deck="adventure-southern")
    with pytest.raises(RuleOptionError, match="no adventure deck"):
        adventure.load_deck("../secret-missions", "middle_earth")


# Setup --------------------------------------------------------------------------------


def _set_up(n: int, seed: bytes = b"adventure setup") -> Game:
    game = new(n, mode="lotr", seed=seed)
    while game.state.phase != REINFORCE:
        seat = game.current
        if game.state.phase == "setup_leader":
            game.do(PlaceLeader(seat=seat, territory=game.state.territories_of(seat)[0]))
        else:
            game.do(setup_policy(game.state, seat))
    return game


@pytest.mark.parametrize("n", [2, 3, 4])
def test_three_cards_are_dealt_each_with_the_events_taken_out_and_then_shuffled_in(
    n: int,
) -> None:
    """002, FÖRBEREDELSER 9-10: "Ta bort händelsekorten från högen med äventyrskort och ge 3
    äventyrskort (med framsidan ner) till varje spelare. Lägg tillbaka händelsekorten i
    korthögen, blanda"."""
    # rule: 002-adventure-deal
    game = _set_up(n)
    s = game.state
    players = s.active_players()
    assert sorted(s.adventure_hands) == sorted(players)  # the neutral army gets none
    for seat in players:
        hand = s.adventure_hands[seat]
        assert len(hand) == 3 and all(DECK.cards[c].kind != "event" for c in hand)
    shuffles = [e for e in game.events if isinstance(e, AdventureDeckShuffled)]
    assert [e.purpose for e in shuffles] == ["deal", "pile"]
    assert all(DECK.cards[c].kind != "event" for c in shuffles[0].adventure_order)
    assert set(DECK.numbers("event")) <= set(s.adventure_deck)
    assert sorted(s.adventure_deck + [c for h in s.adventure_hands.values() for c in h]) == (
        DECK.numbers()
    )
    # The deal comes from the game's seeded generator: another seed, another deal.
    other = _set_up(n, seed=b"another seed")
    assert other.state.adventure_hands != s.adventure_hands or other.state.adventure_deck != (
        s.adventure_deck
    )


def test_games_recorded_before_adventure_cards_replay_without_them() -> None:
    """game_created v4 carried no ``adventure_deck``: such games upcast to none."""
    rules = RuleSet.from_dict(
        {**new(3, mode="lotr").state.rules.to_dict(), "adventure_deck": "none"}
    )
    game = new(3, rules, mode="lotr")
    while game.state.phase != REINFORCE:
        seat = game.current
        if game.state.phase == "setup_leader":
            game.do(PlaceLeader(seat=seat, territory=game.state.territories_of(seat)[0]))
        else:
            game.do(setup_policy(game.state, seat))
    assert not game.state.adventure_hands and not game.state.adventure_deck
    assert not any(isinstance(e, AdventureDeckShuffled) for e in game.events)


# Drawing --------------------------------------------------------------------------------


def test_a_card_is_drawn_when_a_leader_moved_onto_a_site_of_power_one_only() -> None:
    """002, DRA KORT: "Dra högst ett äventyrskort om din ledare har erövrat eller flyttats
    till ett territorium med ett maktfäste under den aktuella spelrundan"; "Du får bara dra
    ett kort oavsett hur många maktfästen din ledare har erövrat"."""
    # rule: 002-draw-adventure
    # rule: 002-draw-one
    game = attacking(with_cards({"p1": P1, "p2": P2}, leaders={"p1": ["buckland"]}), "fornost")
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="buckland", target="fornost"))  # Bree
    top = game.state.adventure_deck[0]
    events = end_turn(game)
    drawn = [e for e in events if isinstance(e, AdventureCardDrawn)]
    assert [(e.seat, e.adventure) for e in drawn][:1] == [("p1", top)]
    assert len([e for e in drawn if DECK.cards[e.adventure].kind != "event"]) == 1
    assert game.state.current == "p2"


def test_no_card_without_a_site_of_power_reached() -> None:
    game = attacking(with_cards({"p1": P1, "p2": P2}, leaders={"p1": ["fornost"]}), "fornost")
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="fornost", target="buckland"))  # no site there
    events = end_turn(game)
    assert not [e for e in events if isinstance(e, AdventureCardDrawn)]


def test_an_event_is_played_at_once_and_another_card_drawn() -> None:
    """002, HÄNDELSEKORT: "måste spelas omedelbart ... När händelsekorten har spelats läggs
    de i en hög bredvid spelplanen, och sedan drar man ett nytt äventyrskort". Here the troll
    (DE HAR MED SIG ETT TROLL!): p1, evil, holds Moria and gets 2 armies there."""
    # rule: 002-events-at-once
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, pile=["troll", "ambush"], leaders={"p1": ["buckland"]}),
        "fornost",
    )
    before = game.state.troops("moria")
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="buckland", target="the_shire"))  # Hobbiton
    events = end_turn(game)
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    assert DECK.cards[played.adventure].id == "troll"
    assert played.facts["changes"] == [["moria", "p1", 2]]
    assert game.state.troops("moria") == before + 2
    assert held(game, "p1") == ["ambush"]
    assert game.state.mode_data["adventure_discard"] == [played.adventure]
    assert score_table(game.state)["p1"]["adventure"] == 0  # events count nothing


def three_cards_at_fortify() -> Game:
    """p1 holds Ambush, Grima and Hobbiton, its leader in Buckland, has conquered Fornost
    (a site of power) and manoeuvres; Bree is the pile's top card."""
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            hands={"p1": ["ambush", "grima", "hobbiton"]},
            pile=["bree"],
            leaders={"p1": ["buckland"]},
        ),
        "fornost",
    )
    to_fortify(game)
    return game


def test_a_fourth_card_makes_its_holder_discard_one_before_the_turn_ends() -> None:
    """002: "Du kan ha högst tre äventyrskort på hand på en gång. Du kan ta upp ett fjärde,
    men då måste du kasta ett från din hand till högen vid spelplanen. Korten i den här
    högen är inte värda några poäng"."""
    # rule: 002-hand-limit
    game = three_cards_at_fortify()
    game.reject(DiscardAdventure(seat="p1", adventure=number("ambush")), "adventure_hand_not_full")
    game.do(MoveLeader(seat="p1", source="buckland", target="fornost"))
    game.do(cmd.EndPhase(seat="p1"))
    assert game.state.current == "p1" and len(game.state.adventure_hands["p1"]) == 4
    kinds = {a["command"]["type"] for a in legal_actions(game.state, "p1")}
    assert kinds == {"discard_adventure", "resign"}
    game.reject(cmd.EndPhase(seat="p1"), "adventure_discard_due")
    game.reject(PlayAdventure(seat="p1", adventure=number("ambush")), "adventure_discard_due")
    game.reject(DiscardAdventure(seat="p1", adventure=number("elven_halls")), "adventure_not_held")
    events = game.do(DiscardAdventure(seat="p1", adventure=number("ambush"))) + pass_windows(game)
    assert isinstance(events[0], AdventureDiscarded)
    assert any(isinstance(e, ev.TurnEnded) for e in events) and game.state.current == "p2"
    assert sorted(held(game, "p1")) == ["bree", "grima", "hobbiton"]


# Missions -------------------------------------------------------------------------------


def test_a_mission_is_claimed_with_a_leader_at_its_site_and_the_leader_stays() -> None:
    """002, FÖRKLARA UPPDRAGET GENOMFÖRT: "när som helst under faserna Strid och Manöver,
    genom att flytta din ledare till det aktuella territoriet. När du har gjort det måste
    den ledaren vara kvar i det territoriet tills det är nästa spelares tur"; "Belöning för
    onda krafter": Bree gives evil 6."""
    # rule: 002-mission-leader-stays
    game = with_cards(
        {"p1": P1, "p2": P2}, hands={"p1": ["bree", "hobbiton"]}, leaders={"p1": ["buckland"]}
    )
    bree = number("bree")
    game.reject(ClaimAdventure(seat="p1", adventure=bree), "adventure_wrong_moment")
    attacking(game, "fornost")
    game.reject(ClaimAdventure(seat="p1", adventure=bree), "no_leader_at_site")
    game.reject(ClaimAdventure(seat="p2", adventure=bree), "not_your_turn")
    game.reject(ClaimAdventure(seat="p1", adventure=number("weathertop")), "adventure_not_held")
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="buckland", target="fornost"))
    armies = game.state.troops("fornost")
    claims = [a["command"] for a in _actions(game, "p1", "claim_adventure")]
    assert claims == [{"type": "claim_adventure", "adventure": bree}]
    events = game.do(ClaimAdventure(seat="p1", adventure=bree))
    assert isinstance(events[0], AdventureMissionClaimed)
    assert game.state.troops("fornost") == armies + 6  # p1 plays evil
    assert held(game, "p1") == ["hobbiton"]
    assert score_table(game.state)["p1"]["adventure"] == 1
    # The leader stays put this turn; the next turn it is free.
    game.state.mode_data["leader_moved_turn"] = {}
    game.reject(MoveLeader(seat="p1", source="fornost", target="buckland"), "leader_on_mission")
    end_turn(game)
    assert adventure.mission_leader(game.state, "p1") is None


def test_a_power_card_is_no_mission() -> None:
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, hands={"p1": ["ambush"]}, leaders={"p1": ["fornost"]}),
        "fornost",
    )
    game.reject(ClaimAdventure(seat="p1", adventure=number("ambush")), "not_a_mission_card")


def test_a_reward_of_extra_territory_cards_draws_them() -> None:
    """Lothlorien (trilogy): one extra territory card."""
    game = attacking(
        with_cards(
            {"p1": [*P1, "lorien"], "p2": P2},
            hands={"p1": ["lothlorien"]},
            leaders={"p1": ["lorien"]},
        ),
        "fornost",
    )
    events = game.do(ClaimAdventure(seat="p1", adventure=number("lothlorien")))
    assert [type(e) for e in events] == [AdventureMissionClaimed, ev.CardDrawn]
    assert len(game.state.hand("p1")) == 1


# Power cards --------------------------------------------------------------------------------


def test_a_power_card_is_played_at_its_moment_only() -> None:
    """002, MAKTKORT: "Du kan behålla maktkorten och spela dem när du vill under Stridsfasen
    när det är din tur, om det inte står något annat på kortet"; "När du har spelat ett
    maktkort behåller du det framför dig eftersom det är värt det antal poäng". Ambush
    (trilogy): 3 armies join the attack, 1 point."""
    game = with_cards(
        {"p1": P1, "p2": P2},
        {"weather_hills": 4},
        hands={"p1": ["ambush", "hobbiton"]},
        leaders={"p1": ["fornost"]},
    )
    ambush = number("ambush")
    play = PlayAdventure(seat="p1", adventure=ambush, source="weather_hills", target="rhudaur")
    game.reject(play, "adventure_wrong_moment")
    game.reject(dataclasses.replace(play, seat="p2"), "not_your_turn")
    attacking(game, "fornost")
    game.reject(dataclasses.replace(play, adventure=number("grima")), "adventure_not_held")
    game.reject(dataclasses.replace(play, adventure=number("hobbiton")), "not_a_power_card")
    game.reject(dataclasses.replace(play, target="fornost"), "own_territory")
    game.reject(PlayAdventure(seat="p1", adventure=ambush), "adventure_needs_attack")
    bodies = [a["command"] for a in _actions(game, "p1", "play_adventure")]
    sent = {k: v for k, v in play.to_dict().items() if v is not None}
    assert {**sent, "type": "play_adventure"} in bodies
    game.do(play)
    assert game.state.troops("weather_hills") == 7
    assert held(game, "p1") == ["hobbiton"]
    assert score_table(game.state)["p1"]["adventure"] == 1
    to_fortify(game)
    assert not _actions(game, "p1", "play_adventure")


def test_siege_machines_take_the_strongholds_bonus_away() -> None:
    """Siege machines (trilogy), played before attacking a stronghold: "the stronghold
    gives no +1" (002: "BEFÄSTNINGAR ... + på det högsta tärningsslaget för försvararen")."""
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"weather_hills": 6},
            hands={"p1": ["siege_machines"]},
            leaders={"p1": ["fornost"]},
        ),
        "fornost",
    )
    siege = number("siege_machines")
    game.reject(
        PlayAdventure(seat="p1", adventure=siege, source="weather_hills", target="borderlands"),
        "adventure_not_a_stronghold",
    )
    assert game.state.mode.battle_bonus(game.state, "weather_hills", "rhudaur") == (0, 1)
    game.do(PlayAdventure(seat="p1", adventure=siege, source="weather_hills", target="rhudaur"))
    assert game.state.mode.battle_bonus(game.state, "weather_hills", "rhudaur") == (0, 0)
    end_turn(game)
    assert game.state.mode.battle_bonus(game.state, "weather_hills", "rhudaur") == (0, 1)


def test_grima_takes_two_of_the_defenders_armies_over() -> None:
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"weather_hills": 3, "rhudaur": 5},
            hands={"p1": ["grima"]},
            leaders={"p1": ["fornost"]},
        ),
        "fornost",
    )
    grima = number("grima")
    game.do(PlayAdventure(seat="p1", adventure=grima, source="weather_hills", target="rhudaur"))
    assert (game.state.troops("weather_hills"), game.state.troops("rhudaur")) == (5, 3)


def test_grima_is_not_offered_against_a_territory_of_one_army() -> None:
    """Grima Wormtongue (docs/rules.md, "Power cards"; the card: "up to 2 of its armies
    (1 always stays) go over to you"): against a territory of one army it takes nothing,
    so legal actions offer it only against attacks on territories of two or more (issue
    51: the board offered it where it could do nothing). Ambush, which takes nothing from
    the defender, is still offered against both."""
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"weather_hills": 3, "fornost": 3, "rhudaur": 1, "borderlands": 2},
            hands={"p1": ["grima", "ambush"]},
            leaders={"p1": ["the_shire"]},
        ),
        "fornost",
    )
    grima, ambush = number("grima"), number("ambush")
    attacks = {
        (a["command"]["source"], a["command"]["target"]) for a in _actions(game, "p1", "attack")
    }
    assert {t for _, t in attacks} >= {"rhudaur", "borderlands"}
    plays = _actions(game, "p1", "play_adventure")
    targets = {
        card: {
            (a["command"]["source"], a["command"]["target"])
            for a in plays
            if a["command"]["adventure"] == card
        }
        for card in (grima, ambush)
    }
    assert targets[ambush] == attacks
    assert targets[grima] == {(s, t) for s, t in attacks if game.state.troops(t) > 1}
    assert {t for _, t in targets[grima]} == {"borderlands"}


def test_move_by_night_gives_three_manoeuvres_more() -> None:
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"fornost": 10},
            hands={"p1": ["move_by_night"]},
            leaders={"p1": ["the_shire"]},
        ),
        "fornost",
    )
    night = number("move_by_night")
    game.reject(PlayAdventure(seat="p1", adventure=night), "adventure_wrong_moment")
    to_fortify(game)
    game.do(PlayAdventure(seat="p1", adventure=night))
    for _ in range(4):
        game.do(cmd.Fortify(seat="p1", source="fornost", target="buckland", count=1))
    game.reject(
        cmd.Fortify(seat="p1", source="fornost", target="buckland", count=1), "already_fortified"
    )
    assert game.state.troops("buckland") == 5


def test_hunt_for_the_ring_bearer_at_the_start_of_the_turn() -> None:
    """Hunt for the Ring-bearer (trilogy): holding the Fellowship's territory, 4 armies there;
    else the Fellowship moves one step on without a roll."""
    game = with_cards({"p1": P1, "p2": P2}, hands={"p1": ["hunt"]}, leaders={"p1": ["fornost"]})
    hunt = number("hunt")
    assert game.state.phase == REINFORCE
    game.do(PlayAdventure(seat="p1", adventure=hunt))
    assert game.state.troops("the_shire") == 5  # the Fellowship is in the Shire, p1's
    game = with_cards({"p1": P1, "p2": P2}, hands={"p2": ["hunt"]}, leaders={"p1": ["fornost"]})
    game.place_all("fornost")
    end_turn(game)
    assert game.state.current == "p2" and game.state.phase == REINFORCE
    step = game.state.fellowship or 0
    game.do(PlayAdventure(seat="p2", adventure=hunt))
    assert game.state.fellowship == step + 1


def test_borne_to_another_place_moves_a_leader_anywhere_of_yours() -> None:
    game = with_cards(
        {"p1": P1, "p2": P2}, hands={"p1": ["borne_away"]}, leaders={"p1": ["fornost"]}
    )
    borne = number("borne_away")
    game.reject(
        PlayAdventure(seat="p1", adventure=borne, source="fornost", target="rhudaur"),
        "not_your_territory",
    )
    game.reject(
        PlayAdventure(seat="p1", adventure=borne, source="buckland", target="moria"),
        "no_leader_there",
    )
    game.do(PlayAdventure(seat="p1", adventure=borne, source="fornost", target="moria"))
    assert game.state.leaders["p1"] == ("moria",)


# Events --------------------------------------------------------------------------------------


THREE_LEADERS = {"p1": ["buckland"], "p2": ["rhudaur"], "p3": ["angmar"]}


def _drawing(
    pile: Sequence[str], armies: Mapping[str, int] | None = None, rules: RuleSet | None = None
) -> tuple[Game, list[ev.Event]]:
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, armies, pile=pile, leaders=THREE_LEADERS, rules=rules),
        "fornost",
    )
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="buckland", target="the_shire"))
    return game, end_turn(game)


def test_a_second_leader_comes_into_play_next_turn_in_games_recorded_before() -> None:
    """002: "SÄTT EN ANDRA LEDARE I SPEL ... Om du redan har två Ledare kastar du det här
    kortet"; "Det går att ha två ledare om du får en extra genom ett äventyrskort". Games
    recorded before ``second_leader`` placed it in the next turn (test_conformance_fixes
    has the book's "SPELAS OMEDELBART")."""
    rules = mode_named("lotr").rule_set({"second_leader": "next_turn"})
    game, events = _drawing(["second_leader", "ambush"], rules=rules)
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    assert played.facts == {"second_leader": True}
    while game.state.current != "p1":
        if game.state.phase == REINFORCE:
            game.place_all()
        end_turn(game)
    places = [a["command"] for a in _actions(game, "p1", "place_leader")]
    assert places and {"type": "place_leader", "territory": "the_shire"} not in places
    game.reject(PlaceLeader(seat="p1", territory="the_shire"), "leader_already_there")
    events = game.do(PlaceLeader(seat="p1", territory="moria"))
    assert events == [LeaderPlaced(seat="p1", territory="moria", reason="second")]
    assert game.state.leaders["p1"] == ("the_shire", "moria")
    assert not adventure.second_leader_due(game.state, "p1")


def test_raiders_and_mustering_name_territories_by_the_top_territory_cards() -> None:
    game, events = _drawing(["mustering", "ambush"])
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    shown = played.facts["revealed_cards"]
    assert len(shown) == 3 and set(shown) <= set(game.state.discard)
    assert len(played.facts["changes"]) == sum(1 for c in shown if ME.cards[c].territory)
    assert all(delta == 3 for _, _, delta in played.facts["changes"])


def test_winter_storms_stop_attacks_there_until_the_drawers_next_turn() -> None:
    """002, SNÖOVÄDER: "Dra de tre översta Territoriekorten. Ingen spelare får anfalla från
    eller till de här territorierna förrän i början av din nästa speltur"."""
    game, events = _drawing(["winter_storms", "ambush"])
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    stormy = played.facts["storm"]
    assert adventure.storm_refuses(game.state, stormy[0], "anywhere")
    game.place_all()
    targets = {a["command"]["target"] for a in _actions(game, "p2", "attack")}
    sources = {a["command"]["source"] for a in _actions(game, "p2", "attack")}
    assert not set(stormy) & (targets | sources)


# Score, views, records --------------------------------------------------------------------


def test_others_see_how_many_cards_a_player_holds_never_which() -> None:
    game = _set_up(3)
    s = game.state
    for viewer in [*s.order, None]:
        shown = view(s, viewer)["mode_state"]["adventure"]
        assert shown["adventure_order"] is None
        for seat in s.order:
            entry = shown["hands"][seat]
            assert entry["count"] == 3
            assert (entry["adventure_hand"] is not None) == (seat == viewer)
        for event in game.events:
            seen = redact(event, viewer)
            if isinstance(event, AdventureCardDrawn):
                assert (seen == event) == (event.seat == viewer)
            if isinstance(event, AdventureDeckShuffled):
                assert set(seen.adventure_order) == {-1}  # type: ignore[attr-defined]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_games_with_adventure_cards_finish_replay_and_verify(n: int) -> None:
    seed = b"adventure %d" % n
    bots = [get_bot(name) for name in ("heuristic", "random", "random", "heuristic")[:n]]
    result = play_game(bots, seed=seed, mode="lotr")
    state = fold(result.events)
    assert state.phase == FINISHED
    assert any(isinstance(e, AdventureCardDrawn) for e in result.events)
    assert replay(result, seed) == result.events
    text = record_of(result, seed)
    verdict = verify_text(text)
    assert verdict.ok, verdict.divergence
    # Tampering with a dealt adventure card is caught.
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if '"adventure_card_drawn"' in line)
    tampered = lines[at].replace('"adventure":', '"adventure":1', 1)
    assert tampered != lines[at]
    bad = "\n".join([*lines[:at], tampered, *lines[at + 1 :]]) + "\n"
    assert not verify_text(bad).ok


def test_a_bots_guess_deals_the_unseen_adventure_cards_from_its_view_only() -> None:
    """Counts are public, the cards are not: a determinised world keeps the seat's own
    hand, gives every other hand its count, and never reads another's cards."""
    game = _set_up(3)
    s = game.state
    seat, other, _ = s.order
    world = SeatView(s, seat).determinize(random.Random(5))
    assert world.adventure_hands[seat] == s.adventure_hands[seat]
    assert {p: len(h) for p, h in world.adventure_hands.items()} == {
        p: len(h) for p, h in s.adventure_hands.items()
    }
    every = world.adventure_deck + [n for h in world.adventure_hands.values() for n in h]
    assert sorted(every) == DECK.numbers()
    # Swap a card between another hand and the pile: the guess is the same.
    altered = s.copy()
    altered.adventure_hands[other] = [altered.adventure_deck[0], *s.adventure_hands[other][1:]]
    altered.adventure_deck = [s.adventure_hands[other][0], *s.adventure_deck[1:]]
    again = SeatView(altered, seat).determinize(random.Random(5))
    assert again.adventure_hands == world.adventure_hands
    assert again.adventure_deck == world.adventure_deck


# Bots ------------------------------------------------------------------------------------


def _heuristic(game: Game, seat: str = "p1") -> dict[str, Any]:
    actions = legal_actions(game.state, seat)
    return get_bot("heuristic").choose(SeatView(game.state, seat), actions, random.Random(0))


def test_the_heuristic_claims_a_mission_its_leader_stands_on() -> None:
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, hands={"p1": ["bree"]}, leaders={"p1": ["fornost"]}),
        "fornost",
    )
    assert _heuristic(game) == {"type": "claim_adventure", "adventure": number("bree")}


def test_the_heuristic_walks_a_leader_to_a_missions_site() -> None:
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, hands={"p1": ["hobbiton"]}, leaders={"p1": ["fornost"]}),
        "fornost",
    )
    to_fortify(game)
    assert _heuristic(game) == {"type": "move_leader", "source": "fornost", "target": "the_shire"}


def test_the_heuristic_plays_ambush_on_the_attack_it_makes() -> None:
    game = attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"weather_hills": 8},
            hands={"p1": ["ambush"]},
            leaders={"p1": ["fornost"]},
        ),
        "fornost",
    )
    chosen = _heuristic(game)
    assert chosen["type"] == "play_adventure" and chosen["adventure"] == number("ambush")
    game.body("p1", chosen)  # a listed action, accepted
    assert _heuristic(game)["type"] in ("attack", "blitz")


def test_the_heuristic_discards_the_card_worth_least() -> None:
    """Grima (no points) goes before Ambush (1 point) and a mission within reach."""
    game = three_cards_at_fortify()
    game.do(MoveLeader(seat="p1", source="buckland", target="weather_hills"))
    game.do(cmd.EndPhase(seat="p1"))
    assert _heuristic(game) == {"type": "discard_adventure", "adventure": number("grima")}


# The Fellowship's window -----------------------------------------------------------------


def _at_turn_end(
    hands: Mapping[str, Sequence[str]], steps: int = 0, rest: Sequence[str] = ()
) -> Game:
    game = attacking(
        with_cards({"p1": P1, "p2": P2}, hands=hands, leaders=THREE_LEADERS, steps=steps),
        "fornost",
    )
    to_fortify(game)
    return game


def test_a_window_asks_every_holder_of_a_card_in_turn_order_and_then_the_fellowship_moves() -> None:
    """002, MAKTKORT: "(En del av dem kan spelas när det är någon annan spelares tur eller
    när brödraskapet försöker förflytta sig.)" The window opens on a public fact, that a
    player holds any adventure card, so it shows nothing of what they hold: here p3 holds
    only a mission and is asked all the same."""
    game = _at_turn_end({"p1": ["ambush"], "p3": ["bree"]})
    events = game.do(cmd.EndPhase(seat="p1"))
    assert isinstance(events[-1], adventure.AdventureWindowOpened)
    assert events[-1].waiting == ("p3", "p1") and events[-1].roll is None  # the Shire
    assert game.state.mode.waiting_for(game.state) == "p3"
    assert [a["command"] for a in legal_actions(game.state, "p3")] == [
        {"type": "pass_adventure"},
        {"type": "resign"},
    ]
    game.reject(PassAdventure(seat="p1"), "not_your_turn")
    game.reject(cmd.EndPhase(seat="p1"), "wrong_phase")
    game.do(PassAdventure(seat="p3"))
    events = game.do(PassAdventure(seat="p1"))
    moved = [e for e in events if isinstance(e, FellowshipMoved)]
    assert moved == [FellowshipMoved(seat="p1", roll=None, moved=True, step=1)]
    assert game.state.current == "p2" and game.state.phase == REINFORCE
    game.reject(PassAdventure(seat="p2"), "no_window")


def test_no_window_when_nobody_holds_a_card() -> None:
    game = _at_turn_end({})
    events = game.do(cmd.EndPhase(seat="p1"))
    assert not [e for e in events if isinstance(e, adventure.AdventureWindowOpened)]
    assert game.state.current == "p2"


def test_boromir_keeps_the_fellowship_where_it_is() -> None:
    game = _at_turn_end({"p2": ["boromir"]})
    game.do(cmd.EndPhase(seat="p1"))
    events = game.do(PlayAdventure(seat="p2", adventure=number("boromir")))
    (moved,) = [e for e in events if isinstance(e, FellowshipMoved)]
    assert not moved.moved and game.state.fellowship == 0
    assert game.state.current == "p2"


def test_knife_in_the_dark_makes_an_unmarked_square_need_a_four() -> None:
    game = _at_turn_end({"p2": ["knife_in_the_dark"]})
    game.do(cmd.EndPhase(seat="p1"))
    knife = PlayAdventure(seat="p2", adventure=number("knife_in_the_dark"))
    events = game.do(knife, ScriptedRng([3]))
    (moved,) = [e for e in events if isinstance(e, FellowshipMoved)]
    assert (moved.roll, moved.moved) == (3, False)


def test_smeagol_adds_two_to_the_roll_of_a_marked_square() -> None:
    """Moria is marked: 002, "När brödraskapet är i ett territorium med en måste du slå
    tärningen ... tärningen visa mer än 3"; Smeagol (trilogy) adds 2: a 2 leaves."""
    moria = [p.territory for p in ME.path].index("moria")
    game = _at_turn_end({"p2": ["smeagol", "balrog"]}, steps=moria)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng([2]))
    assert adventure.window(game.state)["roll"] == 2  # type: ignore[index]
    events = game.do(PlayAdventure(seat="p2", adventure=number("smeagol")))
    (moved,) = [e for e in events if isinstance(e, FellowshipMoved)]
    assert (moved.roll, moved.moved, moved.step) == (2, True, moria + 1)


def test_a_balrog_holds_the_fellowship_in_moria_only() -> None:
    """002, EN BALROG!: "SPELAS NÄR BRÖDRASKAPET FÖRSÖKER LÄMNA MORIA. Hindra Brödraskapet
    från att lämna Moria"."""
    # rule: 002-balrog
    game = _at_turn_end({"p2": ["balrog"]}, steps=1)  # Buckland: no roll, not Moria
    game.do(cmd.EndPhase(seat="p1"))
    game.reject(PlayAdventure(seat="p2", adventure=number("balrog")), "adventure_wrong_moment")
    moria = [p.territory for p in ME.path].index("moria")
    game = _at_turn_end({"p2": ["balrog"]}, steps=moria)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng([6]))
    events = game.do(PlayAdventure(seat="p2", adventure=number("balrog")))
    (moved,) = [e for e in events if isinstance(e, FellowshipMoved)]
    assert (moved.roll, moved.moved, moved.step) == (6, False, moria)


def test_bots_pass_the_window_at_once() -> None:
    game = _at_turn_end({"p2": ["boromir"]})
    game.do(cmd.EndPhase(seat="p1"))
    assert _heuristic(game, "p2") == {"type": "pass_adventure"}


def test_a_player_the_window_waits_for_may_resign() -> None:
    game = _at_turn_end({"p2": ["boromir"], "p3": ["bree"]})
    game.do(cmd.EndPhase(seat="p1"))
    game.do(PassAdventure(seat="p2"))
    game.do(cmd.Resign(seat="p3"))
    assert game.state.current == "p2" and game.state.fellowship == 1


# The defender's window -------------------------------------------------------------------


def _attacked(hands: Mapping[str, Sequence[str]]) -> Game:
    return attacking(
        with_cards(
            {"p1": P1, "p2": P2},
            {"weather_hills": 8, "rhudaur": 3, "borderlands": 2},
            hands=hands,
            leaders=THREE_LEADERS,
        ),
        "fornost",
    )


ATTACK_RHUDAUR = cmd.Attack(seat="p1", source="weather_hills", target="rhudaur", dice=3)


def test_an_attack_on_a_holder_of_a_card_waits_for_the_defenders_answer_once() -> None:
    """Trilogy power cards are played "when an enemy declares an attack on your
    territory": the attacked player holding any card (a public count) answers first."""
    game = _attacked({"p2": ["hobbiton"]})
    events = game.do(ATTACK_RHUDAUR)
    assert [type(e) for e in events] == [adventure.AdventureDefenceWindowOpened]
    assert game.state.mode.waiting_for(game.state) == "p2"
    game.reject(ATTACK_RHUDAUR, "wrong_phase")
    events = game.do(PassAdventure(seat="p2"))
    assert any(isinstance(e, ev.BattleResolved) for e in events)
    if game.state.phase == ATTACK and game.state.owner["rhudaur"] == "p2":
        again = game.do(ATTACK_RHUDAUR)  # asked once a turn a territory
        assert any(isinstance(e, ev.BattleResolved) for e in again)


def test_a_bad_attack_is_refused_before_any_window() -> None:
    game = _attacked({"p2": ["courage"]})
    game.reject(dataclasses.replace(ATTACK_RHUDAUR, dice=4), "too_many_dice")


def test_courage_adds_four_armies_to_the_attacked_territory() -> None:
    game = _attacked({"p2": ["courage"]})
    courage = PlayAdventure(seat="p2", adventure=number("courage"))
    game.reject(courage, "not_your_turn")
    game.do(ATTACK_RHUDAUR)
    armies = game.state.troops("rhudaur")
    events = game.do(courage, ScriptedRng([1, 1, 1, 6, 6]))
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    assert played.facts["changes"] == [["rhudaur", "p2", 4]]
    resolved = next(e for e in events if isinstance(e, ev.BattleResolved))
    assert game.state.troops("rhudaur") == armies + 4 - resolved.defender_losses


def test_a_strategic_withdrawal_leaves_one_army_behind() -> None:
    game = _attacked({"p2": ["strategic_withdrawal"]})
    game.do(ATTACK_RHUDAUR)
    bodies = [a["command"] for a in _actions(game, "p2", "play_adventure")]
    withdrawal = number("strategic_withdrawal")
    assert bodies == [{"type": "play_adventure", "adventure": withdrawal, "target": "eregion"}]
    game.reject(
        PlayAdventure(seat="p2", adventure=withdrawal, target="fornost"), "adventure_needs_target"
    )
    events = game.do(
        PlayAdventure(seat="p2", adventure=withdrawal, target="eregion"), ScriptedRng([6, 6, 6, 1])
    )
    assert game.state.troops("eregion") == 3
    assert any(isinstance(e, ev.BattleResolved) for e in events)


# Faramir, You shall not pass, Violent storms, Local uprising ----------------------------


def test_faramir_adds_or_subtracts_two_as_its_player_chooses() -> None:
    """002: "För att brödraskapet ska få fortsätta färden måste tärningen visa mer än 3";
    Faramir finds the Ring-bearer (trilogy; reference list: "add or subtract 2 from the
    roll"): the choice is the play's ``shift``, each listed as a ready body."""
    moria = [p.territory for p in ME.path].index("moria")
    faramir = number("faramir")
    for roll, shift, leaves in ((2, 2, True), (5, -2, False)):
        game = _at_turn_end({"p2": ["faramir"]}, steps=moria)
        game.do(cmd.EndPhase(seat="p1"), ScriptedRng([roll]))
        listed = _actions(game, "p2", "play_adventure")
        assert [(a["command"]["shift"], a["bounds"]) for a in listed] == [
            (2, {}),
            (-2, {}),
        ]
        for bad in (None, 1, 0, 4):
            game.reject(
                PlayAdventure(seat="p2", adventure=faramir, shift=bad), "adventure_needs_shift"
            )
        events = game.body(
            "p2", next(a["command"] for a in listed if a["command"]["shift"] == shift)
        )
        (moved,) = [e for e in events if isinstance(e, FellowshipMoved)]
        assert (moved.roll, moved.moved) == (roll, leaves)
        assert game.state.fellowship == (moria + 1 if leaves else moria)


def test_faramir_is_no_card_for_an_unmarked_square() -> None:
    game = _at_turn_end({"p2": ["faramir"]})  # the Shire: no roll
    game.do(cmd.EndPhase(seat="p1"))
    game.reject(
        PlayAdventure(seat="p2", adventure=number("faramir"), shift=2), "adventure_wrong_moment"
    )
    assert [a["command"]["type"] for a in legal_actions(game.state, "p2")] == [
        "pass_adventure",
        "resign",
    ]


def _blocking(leaders: Mapping[str, Sequence[str]] = THREE_LEADERS) -> Game:
    return with_cards(
        {"p1": P1, "p2": P2},
        {"weather_hills": 6, "rhudaur": 5, "buckland": 4},
        hands={"p1": ["you_shall_not_pass", "you_shall_not_pass"]},
        leaders=leaders,
    )


def test_you_shall_not_pass_blocks_a_bridge_until_its_players_next_turn() -> None:
    """002: "FLOD - det går bara att ta sig över floderna via broarna"; You shall not pass
    (trilogy; reference list: "block one bridge until the start of your next turn: no
    armies cross it unless a leader goes with them"), played at the start of the turn."""
    game = _blocking()
    first, second = numbers("you_shall_not_pass")
    bridges = {
        (a["command"]["source"], a["command"]["target"])
        for a in _actions(game, "p1", "play_adventure")
    }
    assert len(bridges) == sum(1 for k in ME.border_kinds.values() if k == "bridge")
    play = PlayAdventure(seat="p1", adventure=first, source="rhudaur", target="weather_hills")
    game.reject(dataclasses.replace(play, target="fornost"), "adventure_needs_border")
    game.reject(dataclasses.replace(play, source=None), "adventure_needs_border")
    game.do(play)
    assert adventure.blocked_borders(game.state) == [frozenset({"rhudaur", "weather_hills"})]
    game.reject(dataclasses.replace(play, adventure=second), "border_already_blocked")
    # Its player's own armies stop there too; a bridge elsewhere is open.
    attacking(game, "weather_hills")
    later = dataclasses.replace(play, adventure=second, source="buckland", target="the_shire")
    game.reject(later, "adventure_wrong_moment")  # at the start of the turn only
    game.reject(cmd.Attack(seat="p1", source="weather_hills", target="rhudaur"), "border_blocked")
    attacks = {
        (a["command"]["source"], a["command"]["target"]) for a in _actions(game, "p1", "attack")
    }
    assert ("weather_hills", "rhudaur") not in attacks and (
        "weather_hills",
        "borderlands",
    ) in attacks
    # p2's leader stands in Rhudaur: with a leader the armies cross.
    while game.state.current != "p2":
        end_turn(game)
    game.place_all("rhudaur")
    attacks = {
        (a["command"]["source"], a["command"]["target"]) for a in _actions(game, "p2", "attack")
    }
    assert ("rhudaur", "weather_hills") in attacks
    while game.state.current != "p1":
        end_turn(game)
        if game.state.phase == REINFORCE and game.state.current != "p1":
            game.place_all()
    assert adventure.blocked_borders(game.state) == []  # p1's next turn: open again
    assert score_table(game.state)["p1"]["adventure"] == 1  # the card's printed point


def test_a_blocked_bridge_stops_a_manoeuvre_and_an_attack_without_a_leader() -> None:
    game = _blocking(leaders={"p1": ["fornost"], "p2": ["eregion"], "p3": ["angmar"]})
    game.do(
        PlayAdventure(
            seat="p1", adventure=number("you_shall_not_pass"), source="buckland", target="the_shire"
        )
    )
    attacking(game, "fornost")
    to_fortify(game)
    move = cmd.Fortify(seat="p1", source="buckland", target="the_shire", count=2)
    game.reject(move, "border_blocked")
    targets = {
        a["command"]["target"]
        for a in _actions(game, "p1", "fortify")
        if a["command"]["source"] == "buckland"
    }
    assert "the_shire" not in targets and "old_forest" in targets
    # A leader crosses on its own.
    game.do(MoveLeader(seat="p1", source="fornost", target="weather_hills"))
    assert "weather_hills" in game.state.leaders["p1"]


def _by_sea(hand: Sequence[str]) -> Game:
    return attacking(
        with_cards(
            {"p1": [*P1, "forodwaith"], "p2": [*P2, "mithlond"]},
            {"forodwaith": 7, "mithlond": 2, "weather_hills": 8, "rhudaur": 3},
            hands={"p2": hand},
            leaders=THREE_LEADERS,
        ),
        "fornost",
    )


def test_violent_storms_destroy_an_attack_by_sea_on_a_harbour() -> None:
    """002: "HAMN - du kan gå från alla territorier med en hamn till ett annat direkt
    angränsande territorium som också har en hamn"; Violent storms (trilogy; reference
    list: "all attacking armies of that battle are destroyed"): the attack is called off."""
    game = _by_sea(["violent_storms"])
    storms = number("violent_storms")
    game.do(cmd.Attack(seat="p1", source="forodwaith", target="mithlond", dice=2))
    listed = [a["command"] for a in _actions(game, "p2", "play_adventure")]
    assert listed == [{"type": "play_adventure", "adventure": storms}]
    events = game.do(PlayAdventure(seat="p2", adventure=storms))
    assert not [e for e in events if isinstance(e, ev.BattleResolved)]
    (played,) = [e for e in events if isinstance(e, AdventurePlayed)]
    assert played.facts["changes"] == [["forodwaith", "p1", -2]]
    assert game.state.troops("forodwaith") == 5 and game.state.troops("mithlond") == 2
    assert game.state.phase == ATTACK and game.state.owner["mithlond"] == "p2"
    # The next attack there goes on (a territory is asked once a turn).
    events = game.do(cmd.Attack(seat="p1", source="forodwaith", target="mithlond"))
    assert any(isinstance(e, ev.BattleResolved) for e in events)


def test_violent_storms_answer_no_attack_over_land() -> None:
    game = _by_sea(["violent_storms"])
    game.do(ATTACK_RHUDAUR)
    assert not _actions(game, "p2", "play_adventure")
    game.reject(
        PlayAdventure(seat="p2", adventure=number("violent_storms")), "adventure_not_by_sea"
    )


def test_the_heuristic_plays_violent_storms_and_faramir() -> None:
    game = _by_sea(["violent_storms"])
    game.do(cmd.Attack(seat="p1", source="forodwaith", target="mithlond"))
    assert _heuristic(game, "p2") == {
        "type": "play_adventure",
        "adventure": number("violent_storms"),
    }
    moria = [p.territory for p in ME.path].index("moria")
    game = _at_turn_end({"p2": ["faramir"]}, steps=moria)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng([5]))
    leads = score_table(game.state)["p2"]["total"] >= max(
        row["total"] for row in score_table(game.state).values()
    )
    chosen = _heuristic(game, "p2")
    # A roll of 5 leaves: a bot not leading holds the Fellowship back, a leader lets it go.
    expected = (
        {"type": "pass_adventure"}
        if leads
        else {
            "type": "play_adventure",
            "adventure": number("faramir"),
            "shift": -2,
        }
    )
    assert chosen == expected


def test_the_heuristic_blocks_the_bridge_an_enemy_threatens() -> None:
    game = with_cards(
        {"p1": P1, "p2": P2},
        {"weather_hills": 2, "rhudaur": 9},
        hands={"p1": ["you_shall_not_pass"]},
        leaders={"p1": ["fornost"], "p2": ["eregion"], "p3": ["angmar"]},
    )
    assert _heuristic(game) == {
        "type": "play_adventure",
        "adventure": number("you_shall_not_pass"),
        "source": "rhudaur",
        "target": "weather_hills",
    }


def _uprising(groups: Mapping[str, Sequence[str]], armies: Mapping[str, int]) -> tuple[Game, int]:
    """p1 draws Local uprising at its turn's end; the pile's first territory card is kept."""
    game = attacking(
        with_cards(groups, armies, pile=["local_uprising", "ambush"], leaders=THREE_LEADERS),
        "fornost",
    )
    kept = next(c for c in game.state.deck if ME.cards[c].territory)
    to_fortify(game)
    game.do(MoveLeader(seat="p1", source="buckland", target="the_shire"))
    return game, kept


def test_local_uprising_keeps_a_territory_card_secret_until_its_territory_is_held() -> None:
    """002, HÄNDELSEKORT: "Händelsekorten ... måste spelas omedelbart"; Local uprising
    (trilogy; reference list: "draw a territory card and keep it secret; when you control
    that territory, reveal it and add 4 armies there")."""
    game, kept = _uprising({"p1": [*P1, "mithlond"], "p2": P2}, {"mithlond": 6})
    territory = ME.cards[kept].territory
    assert territory == "forlindon" and game.state.owner[territory] == "p3"
    events = end_turn(game)
    (keeping,) = [e for e in events if isinstance(e, adventure.AdventureUprisingKept)]
    assert keeping.card == kept and kept not in game.state.deck
    assert adventure.uprising_cards(game.state, "p1") == [kept]
    for viewer in ("p2", "p3", None):
        assert redact(keeping, viewer).card == -1  # type: ignore[attr-defined]
        shown = view(game.state, viewer)["mode_state"]["adventure"]["uprisings"]
        assert shown == {"p1": {"count": 1, "cards": None}}
    assert view(game.state, "p1")["mode_state"]["adventure"]["uprisings"]["p1"]["cards"] == [kept]
    # The others' guesses never hold it where p1 keeps it; p1's own guess keeps it.
    world = SeatView(game.state, "p1").determinize(random.Random(3))
    assert adventure.uprising_cards(world, "p1") == [kept] and kept not in world.deck
    while game.state.current != "p1":
        game.place_all("angmar" if game.current == "p3" else None)  # not on Forlindon
        end_turn(game)
    assert game.state.troops("forlindon") == 1
    game.place_all("mithlond")
    events = game.do(
        cmd.Attack(seat="p1", source="mithlond", target="forlindon"), ScriptedRng([6, 6, 6, 1])
    )
    assert game.state.phase == "occupy"
    events = game.do(cmd.Occupy(seat="p1", count=3))
    (risen,) = [e for e in events if isinstance(e, adventure.AdventureUprisingRevealed)]
    assert (risen.card, risen.territory, risen.armies) == (kept, "forlindon", 4)
    assert game.state.troops("forlindon") == 3 + 4
    assert kept in game.state.discard and not adventure.uprising_cards(game.state, "p1")


def test_local_uprising_rises_at_once_on_a_territory_already_held() -> None:
    game, kept = _uprising({"p1": [*P1, "forlindon"], "p2": P2}, {"forlindon": 2})
    events = end_turn(game)
    (risen,) = [e for e in events if isinstance(e, adventure.AdventureUprisingRevealed)]
    assert (risen.card, risen.territory, risen.armies) == (kept, "forlindon", 4)
    assert game.state.troops("forlindon") == 6


def test_a_mission_card_says_what_it_gives() -> None:
    """docs/rules.md, "Missions": a mission is claimed with a leader on its site of power and
    its reward (armies per side, there or in a region; or territory cards) is paid at once.
    The deck files write no text for missions; the engine words it from the reward, so the
    catalogue every view carries says what each gives (issue 51: "Mount Gundabad — Played a
    mission: at its site, in a battle or a manoeuvre" said nothing of it)."""
    texts = {c.id: c.text for c in DECK.cards if c.kind == "mission"}
    assert texts["mount_gundabad"] == "With a leader of yours in Eastern Angmar: 4 armies there."
    assert texts["erebor"] == (
        "With a leader of yours in Esgaroth: 4 armies there for a good player, 2 for an evil one."
    )
    assert texts["carn_dum"] == (
        "With a leader of yours in Forodwaith: 2 armies on a territory of yours in Arnor."
    )
    assert texts["harlond"] == "With a leader of yours in Harlindon: draw 1 territory card."
    for card in DECK.cards:
        if card.kind == "mission":
            assert card.site is not None and ME.territory_names[card.site] in card.text
    game = with_cards({"p1": P1, "p2": P2}, hands={"p1": ["mount_gundabad"]})
    catalogue = view(game.state, "p1")["mode_state"]["adventure"]["catalogue"]
    shown = catalogue[card_in_hand(game, "p1", "mount_gundabad")]
    assert shown["text"] == texts["mount_gundabad"]
