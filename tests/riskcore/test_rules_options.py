"""Rule options (docs/rules.md, "Rule options"): defaults, validation, army tables, card values."""

from __future__ import annotations

from typing import Any

import pytest

from riskcore.engine.decide import new_game
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from tests.riskcore.helpers import new, players


def test_defaults_are_the_classic_game_of_the_digest() -> None:
    """docs/rules.md, "Rule options" marks the defaults: claim setup, the claimer opens
    (003_281a902b564cb498.txt: "degene die het eerste leger plaatste opent het spel"), progressive
    values, move the dice rolled, trade at 6 cards (001_c708159c204162c3.txt: "Om du vinner 6 eller
    fler kort"), fortify to an adjacent territory, defenders roll the most dice."""
    assert RuleSet().to_dict() == {
        "setup": "claim",
        "first_player": "claim_order",
        "card_values": "progressive",
        "conquest_min_move": "dice",
        "elimination_trade_threshold": 6,
        "fortify": "adjacent",
        "defender_chooses_dice": False,
        "neutrals": "passive",
        "team_placement": "controlled",
        "mission_target_gone": "occupy_24",
        "mission_deck": "graded-house-v1",
        "one_die_vs_one": False,
        "adventure_deck": "none",
        "starting_armies": 0,
        "blitz_battles": 1000,
        "marker_dice": "attack",
        "missions_dealt": "before_setup",
        "neutrals_must_fall": False,
        "adventure_draw_closes": True,
        "second_leader": "at_once",
        "card_sides": "book-2002",
    }


def test_every_documented_choice_is_accepted_and_round_trips() -> None:
    """Each option's documented values (docs/rules.md, "Rule options")."""
    choices: dict[str, list[Any]] = {
        "setup": ["claim", "deal"],
        "first_player": ["claim_order", "reroll"],
        "card_values": ["progressive", "fixed"],
        "conquest_min_move": ["dice", "survivors", "one"],
        "elimination_trade_threshold": [5, 6],
        "fortify": ["adjacent", "connected"],
        "defender_chooses_dice": [False, True],
        "neutrals": ["passive", "active"],
        "team_placement": ["controlled", "present"],
        "mission_target_gone": ["occupy_24", "complete"],
        "mission_deck": ["graded-house-v1"],
        "adventure_deck": ["none", "adventure-northern-40-v1", "adventure-northern-v1"],
        "starting_armies": [0, 1, 200],
        "blitz_battles": [0, 1, 5000],
        "marker_dice": ["attack", "command"],
        "missions_dealt": ["before_setup", "after_setup"],
        "neutrals_must_fall": [False, True],
        "adventure_draw_closes": [True, False],
        "second_leader": ["at_once", "next_turn"],
        "card_sides": ["book-2002", "trilogy"],
    }
    for name, values in choices.items():
        for value in values:
            rules = RuleSet(**{name: value})
            assert getattr(rules, name) == value
            assert RuleSet.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("setup", "random"),
        ("first_player", "youngest"),
        ("card_values", "escalating"),
        ("conquest_min_move", "all"),
        ("elimination_trade_threshold", 4),
        ("elimination_trade_threshold", "6"),
        ("elimination_trade_threshold", 6.0),
        ("elimination_trade_threshold", True),
        ("fortify", "anywhere"),
        ("defender_chooses_dice", "yes"),
        ("defender_chooses_dice", 1),
        ("neutrals", "bribed"),
        ("starting_armies", -1),
        ("starting_armies", 201),
        ("starting_armies", "30"),
    ],
)
def test_a_bad_option_raises_rule_option_error_naming_the_value(name: str, value: Any) -> None:
    """Each error names the offending value (``{value!r}``)."""
    with pytest.raises(RuleOptionError) as caught:
        RuleSet(**{name: value})
    assert name in caught.value.message
    assert repr(value) in caught.value.message
    assert caught.value.code == "invalid_rule_option"


def test_starting_armies_must_be_an_int_not_a_bool() -> None:
    """``RuleSet.__post_init__`` checks ``isinstance(starting_armies, int)``, which a bool
    passes; every other option refuses a bool where it wants an int."""
    with pytest.raises(RuleOptionError, match="True"):
        RuleSet(starting_armies=True)


def test_from_dict_refuses_an_unknown_option_by_name() -> None:
    """One declaration owns the rule options: an unknown option is an error, not ignored."""
    with pytest.raises(RuleOptionError, match="'house_rules'"):
        RuleSet.from_dict({"house_rules": True})
    assert RuleSet.from_dict({}) == RuleSet()
    assert RuleSet.from_dict({"fortify": "connected"}) == RuleSet(fortify="connected")


@pytest.mark.parametrize(("count", "armies"), [(3, 35), (4, 30), (5, 25), (6, 20)])
def test_starting_armies_by_player_count(count: int, armies: int) -> None:
    """003_281a902b564cb498.txt: "als er 3 spelen, telt elke speler 35 infanterie. • als er 4
    Spelen, telt elke speler 30 ... 5 ... 25 ... 6 Spelen, telt elke speler 20 infanterie"."""
    # rule: 000-armies-3-4
    # rule: 001-armies
    # rule: 001-armies-6
    # rule: 003-armies
    # rule: 004-armies
    assert mode_named("classic").starting_armies(RuleSet(), count) == armies
    game = new(count)
    assert game.state.reserve == {f"p{i}": armies for i in range(1, count + 1)}


def test_two_player_game_has_36_armies_each_and_24_per_neutral() -> None:
    """000_ed9208fe5525be2d.txt: "Båda spelare väljer varsin färg och räknar upp 36
    startarméer. Ställ ut 24 startarméer för var och en av de neutrala härarna"."""
    # rule: 000-two-armies
    # rule: 003-two-players
    rules = RuleSet()
    two_player = mode_named("two_player")
    assert two_player.starting_armies(rules, 2) == 36
    assert two_player.players == (2, 2)
    seats = two_player.seat_list(["a", "b"], rules)
    assert [(s["kind"], s["armies"]) for s in seats] == [("player", 36)] * 2 + [("neutral", 24)] * 2
    # After the deal of 12 / 12 / 9 / 9 territories, one army on each.
    reserves = new(2, rules).state.reserve
    assert reserves == {"p1": 36 - 12, "p2": 36 - 12, "n1": 24 - 9, "n2": 24 - 9}


def test_starting_armies_option_overrides_the_table() -> None:
    """002_84c66041fccdfcee.txt ("Spela Risk på vanligt sätt"): "Antal spelare 3 4 Antal bataljoner
    35 40" — editions differ, so a game may set its own starting armies."""
    assert mode_named("classic").starting_armies(RuleSet(starting_armies=50), 3) == 50
    assert new(4, RuleSet(starting_armies=12)).state.reserve["p4"] == 12


@pytest.mark.parametrize(
    ("mode", "count"),
    [("classic", 2), ("classic", 7), ("two_player", 3)],
)
def test_player_count_outside_the_mode_is_refused(mode: str, count: int) -> None:
    """003_281a902b564cb498.txt lists 3 to 6 players; two players have their own game
    ("als 2 worden afgespeeld, zie speciale instructies")."""
    # rule: 001-players
    with pytest.raises(RuleOptionError, match=str(count)):
        new_game(game_id="g", players=players(count), seed=b"s", mode=mode)


def test_an_unknown_mode_is_refused_by_name() -> None:
    with pytest.raises(RuleOptionError, match="'team_of_one'"):
        new_game(game_id="g", players=players(3), seed=b"s", mode="team_of_one")


def test_too_few_starting_armies_to_claim_the_board_is_refused() -> None:
    """003_281a902b564cb498.txt: "Ga door tot alle 42 gebieden zijn opgeëist": every
    territory needs an army, so 3 x 13 armies cannot set up a game."""
    with pytest.raises(RuleOptionError, match="42"):
        new_game(game_id="g", players=players(3), seed=b"s", rules=RuleSet(starting_armies=13))
    new_game(game_id="g", players=players(3), seed=b"s", rules=RuleSet(starting_armies=14))


def test_progressive_values_over_the_whole_game() -> None:
    """004_780a86783e2219ae.txt: "Dette tallet øker som følger : . 4 , 6 , 8 , 10 , 12 , 15 ,
    20 , 25"; 003_281a902b564cb498.txt: "nadat de zesde set is ingewisseld, is elke extra set
    5 legers meer waard"."""
    # rule: 000-gold-cavalry
    # rule: 001-values
    # rule: 001-plus-five
    # rule: 003-plus-five
    # rule: 004-values
    rules = RuleSet()
    values = [rules.trade_value(i, ("infantry",) * 3) for i in range(12)]
    assert values == [4, 6, 8, 10, 12, 15, 20, 25, 30, 35, 40, 45]
    # Progressive values do not depend on the symbols.
    assert rules.trade_value(2, ("wild", "cavalry", "artillery")) == 8


@pytest.mark.parametrize(
    ("symbols", "value"),
    [
        (("infantry", "infantry", "infantry"), 4),
        (("cavalry", "cavalry", "cavalry"), 6),
        (("artillery", "artillery", "artillery"), 8),
        (("infantry", "cavalry", "artillery"), 10),
        (("infantry", "infantry", "wild"), 4),
        (("wild", "cavalry", "cavalry"), 6),
        (("artillery", "wild", "artillery"), 8),
        (("infantry", "cavalry", "wild"), 10),
        (("wild", "wild", "infantry"), 10),
    ],
)
def test_fixed_values(symbols: tuple[str, ...], value: int) -> None:
    """000_ed9208fe5525be2d.txt: "3 infanteri 4 3 kavalleri 6 3 artilleri 8 1 av varje 10"
    and "En joker kan användas som antingen infanteri, kavalleri eller artilleri": a wild
    completes the set it can, and the holder names the best reading."""
    rules = RuleSet(card_values="fixed")
    assert rules.trade_value(0, symbols) == value
    assert rules.trade_value(9, symbols) == value  # earlier trades do not matter


def test_options_read_by_some_modes_only_are_named_by_those_modes() -> None:
    """riskcore/model/options.py: a ``mode_only`` option is read only by the modes naming it
    in ``GameMode.own_options`` (a lobby offers it for them alone); every other option is
    read by every mode. ``neutrals`` is set by the mode itself (two_player, or
    two_player_active), so no mode offers it as a choice."""
    from riskcore.model.options import MODE_OPTIONS, OPTIONS
    from riskcore.modes import BUILT_IN_MODES, mode_named

    owned = {name: mode_named(name).own_options for name in BUILT_IN_MODES}
    assert all(options <= MODE_OPTIONS for options in owned.values()), owned
    assert set().union(*owned.values()) == MODE_OPTIONS - {"neutrals"}
    assert "adventure_deck" in owned["lotr"] and owned["team"] == {"team_placement"}
    assert owned["classic"] == frozenset()  # the classic game reads the general options only
    for name in BUILT_IN_MODES:
        reads = mode_named(name).reads_options()
        assert [o.name for o in OPTIONS if o.name in reads] == list(reads)  # declared order
        assert set(reads) == ({o.name for o in OPTIONS} - MODE_OPTIONS) | owned[name]
