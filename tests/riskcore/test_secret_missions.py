"""Secret missions: the classic game with one secret mission each (docs/rules.md).

The cards are the classic edition's (reference data of the project: the
European set of fourteen), and 001_c708159c204162c3.txt names them: "spelets
hemliga uppdrag" (the game's secret missions). Each test says which card and
which rule it checks.
"""

from __future__ import annotations

import random

import pytest

from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.model.options import RuleSet
from riskcore.model.state import FINISHED, OCCUPY
from riskcore.modes.missions import MissionDealt, load_deck
from riskcore.protocol import commands as cmd
from riskcore.simulate import play_game
from riskcore.views.view import redact
from tests.riskcore.helpers import CLASSIC, ScriptedRng, continent, position, split
from tests.riskcore.missions_helpers import check_missions_stay_secret, with_missions

DECK = "secret-missions"


def game_with(owners: dict[str, str], dealt: dict[str, list[str]], **kwargs: object):  # type: ignore[no-untyped-def]
    rules = kwargs.pop("rules", RuleSet(setup="deal"))
    game = position(
        owners, kwargs.pop("armies", None), mode="secret_missions", rules=rules, **kwargs
    )  # type: ignore[arg-type]
    return with_missions(game, DECK, dealt)


def test_each_player_is_dealt_one_secret_mission_of_the_seats_in_play() -> None:
    """reference missions: "cards for colours not in play are removed before dealing";
    one mission per player, seen by its holder only."""
    for seed in range(8):
        result = play_game([get_bot("random")] * 3, seed=bytes([seed]), mode="secret_missions")
        dealt = [e for e in result.events if isinstance(e, MissionDealt)]
        assert sorted(e.seat for e in dealt) == ["p1", "p2", "p3"]
        cards = load_deck(DECK)
        for event in dealt:
            target = cards[event.mission].goal.get("destroy")
            assert target in (None, "p1", "p2", "p3")
            assert redact(event, event.seat) == event
            assert redact(event, None).mission == -1
            assert all(
                redact(event, s).mission == -1 for s in ("p1", "p2", "p3") if s != event.seat
            )


def test_a_continent_mission_wins_the_moment_the_last_territory_is_occupied() -> None:
    """M5: hold North America and Australia. p1 holds all but Alaska; taking Alaska
    wins when the armies move in (the conquest alone leaves it empty)."""
    mine = [t for t in continent("north_america") + continent("australia") if t != "alaska"]
    owners = split({"p1": mine, "p2": ["alaska"]}, "p3")
    game = game_with(
        owners, {"p1": ["M5"], "p2": ["M8"], "p3": ["M6"]}, armies={"northwest_territory": 6}
    )
    game.place_all("northwest_territory")
    game.do(
        cmd.Blitz(seat="p1", source="northwest_territory", target="alaska"),
        ScriptedRng([6, 6, 6, 1]),
    )
    assert game.state.phase == OCCUPY
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    assert s.phase == FINISHED and s.winner == "p1" and s.finish_reason == "mission"


def test_a_mission_of_territories_with_armies_wins_on_the_placement_that_does_it() -> None:
    """M7: 18 territories, each with at least 2 armies: placing the last army needed wins
    at once, in the reinforce phase."""
    mine = list(CLASSIC.territory_names)[:18]
    owners = split({"p1": mine}, "p2")
    owners.update({t: "p3" for t in list(CLASSIC.territory_names)[30:36]})
    armies = {t: 2 for t in mine[1:]}
    game = game_with(owners, {"p1": ["M7"], "p2": ["M8"], "p3": ["M8"]}, armies=armies)
    assert game.state.phase != FINISHED
    game.do(cmd.PlaceArmies(seat="p1", territory=mine[0], count=1))
    assert game.state.phase == FINISHED and game.state.winner == "p1"


def test_destroying_the_seat_named_wins() -> None:
    """M10: destroy every army of p2. p1 takes p2's last territory and wins."""
    owners = split({"p2": ["kamchatka"], "p3": continent("africa")}, "p1")
    game = game_with(owners, {"p1": ["M10"], "p2": ["M8"], "p3": ["M8"]}, armies={"alaska": 6})
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    assert s.out == {"p2": "eliminated"} and s.winner == "p1" and s.finish_reason == "mission"


@pytest.mark.parametrize("rule", ["occupy_24", "complete"])
def test_a_target_put_out_by_another_player_follows_the_edition_option(rule: str) -> None:
    """reference missions: "If they are your own, or they have already been destroyed by
    another player, your mission becomes: occupy 24 territories" (European); the 1993 US
    rules count it done. p3 holds M10 (destroy p2); p1 puts p2 out in p1's turn."""
    owners = split({"p2": ["kamchatka"], "p3": continent("africa")}, "p1")
    rules = RuleSet(setup="deal", mission_target_gone=rule)
    game = game_with(
        owners, {"p1": ["M6"], "p2": ["M8"], "p3": ["M10"]}, armies={"alaska": 6}, rules=rules
    )
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    if rule == "complete":
        assert s.phase == FINISHED and s.winner == "p3"  # in p1's turn
    else:
        assert s.phase != FINISHED  # p3 must now hold 24 territories
        assert s.mode.mission_done(s, "p3") is False


def test_a_destroy_mission_naming_the_holder_becomes_24_territories() -> None:
    """reference missions: "If they are your own ... occupy 24 territories"."""
    names = list(CLASSIC.territory_names)
    owners = split({"p1": names[:23], "p2": names[23:33]}, "p3")
    game = game_with(owners, {"p1": ["M9"], "p2": ["M8"], "p3": ["M8"]}, armies={names[0]: 5})
    assert game.state.phase != FINISHED
    assert game.state.mode.mission_done(game.state, "p1") is False
    owners24 = split({"p1": names[:24], "p2": names[24:33]}, "p3")
    done = game_with(owners24, {"p1": ["M9"], "p2": ["M8"], "p3": ["M8"]})
    done.place_all(names[0])
    assert done.state.winner == "p1"


def test_nobody_sees_another_seats_mission_before_the_end() -> None:
    """Fifty seeded games: no other seat's mission shows in any view or redacted event
    before it is claimed, shown or the game is over (then all are)."""
    check_missions_stay_secret("secret_missions")


def test_a_seat_gone_in_setup_is_dealt_no_mission_nor_named_by_one() -> None:
    """docs/rules.md: the destroy cards of seats not in the game are taken out first; a
    seat that resigned during setup is not in it (with ``complete`` a card naming it
    would otherwise win before the first move)."""
    from riskcore.engine.decide import new_game
    from tests.riskcore.helpers import Game, players

    rules = RuleSet(
        setup="deal",
        mission_target_gone="complete",
        starting_armies=12,
        missions_dealt="after_setup",
    )
    for seed in range(30):
        events = new_game(
            game_id="g", players=players(4), seed=bytes([seed]), mode="secret_missions", rules=rules
        )
        game = Game(fold(events), events)
        game.do(cmd.Resign(seat="p3"))
        result_events = play_rest(game)
        dealt = [e for e in result_events if isinstance(e, MissionDealt)]
        deck = load_deck(DECK)
        assert sorted(e.seat for e in dealt) == ["p1", "p2", "p4"]
        assert all(deck[e.mission].goal.get("destroy") != "p3" for e in dealt)


def play_rest(game):  # type: ignore[no-untyped-def]
    """Play the game on with random bots to its end; its events."""
    from riskcore.engine.legal import legal_actions
    from riskcore.simulate import acting_seat

    bot, rnd = get_bot("random"), random.Random(1)
    from riskcore.views.seatview import SeatView

    while game.state.phase != FINISHED:
        seat = acting_seat(game.state)
        body = bot.choose(SeatView(game.state, seat), legal_actions(game.state, seat), rnd)
        game.body(seat, body)
    return game.events


def test_a_target_that_left_is_not_destroyed_later() -> None:
    """docs/rules.md: a target that leaves the game makes a destroy mission 24
    territories (``occupy_24``); taking its last territory later does not win it."""
    asia = [t for t in continent("asia") if t != "kamchatka"]
    far = continent("africa") + continent("australia") + asia
    owners = split({"p2": ["kamchatka"], "p3": far}, "p1")
    game = game_with(owners, {"p1": ["M10"], "p2": ["M8"], "p3": ["M6"]}, armies={"alaska": 6})
    game.do(cmd.Resign(seat="p2"))
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    assert len(s.territories_of("p1")) == 21 and s.phase != FINISHED
    assert s.mode_data.get("eliminated_by", {}).get("p2") is None


@pytest.mark.parametrize("mode", ["secret_missions", "mission_game"])
def test_a_mission_mode_on_a_board_its_deck_does_not_fit_is_refused(mode: str) -> None:
    from riskcore.engine.decide import new_game
    from riskcore.errors import RuleOptionError

    with pytest.raises(RuleOptionError, match="classic map"):
        new_game(game_id="g", players=["a", "b", "c"], seed=b"s", mode=mode, board="middle_earth")


def _guessed_world(game_state, seat: str, seed: int):  # type: ignore[no-untyped-def]
    from riskcore.views.seatview import SeatView

    return SeatView(game_state, seat).determinize(random.Random(seed))


def test_a_bots_guessed_worlds_give_each_rival_a_mission_it_could_hold() -> None:
    """A strong bot plays out guessed worlds (``SeatView.determinize``): each rival there
    holds one mission drawn from the cards the seat cannot place ("cards for colours not
    in play are removed before dealing": never a destroy card of an absent seat, never
    the seat's own card), and never one already done, for a done mission would have won.
    p3 holds North America, South America and Europe: M4 is done for it."""
    owners = split(
        {"p1": continent("australia"), "p2": continent("asia") + continent("africa")}, "p3"
    )
    game = game_with(owners, {"p1": ["M5"], "p2": ["M8"], "p3": ["M6"]})
    from riskcore.modes.missions import goal_met

    seen: dict[str, set[str]] = {"p2": set(), "p3": set()}
    for seed in range(60):
        world = _guessed_world(game.state, "p1", seed)
        assert [m.card for m in world.missions["p1"]] == ["M5"]
        cards = {rival: world.missions[rival][0].card for rival in ("p2", "p3")}
        assert cards["p2"] != cards["p3"]
        for rival, card in cards.items():
            assert card not in {"M5", "M12", "M13", "M14"}
            goal = next(c.goal for c in load_deck(DECK) if c.id == card)
            assert not goal_met(world, rival, goal, world.rules.mission_target_gone)
            seen[rival].add(card)
    assert "M4" not in seen["p3"] and len(seen["p2"]) >= 8 and len(seen["p3"]) >= 8


def test_a_bots_guessed_worlds_never_read_the_rivals_missions() -> None:
    """Swap the two rivals' real missions: the seat's guessed worlds stay the same."""
    owners = split({"p1": continent("australia")}, "p2")
    owners.update({t: "p3" for t in continent("africa")})
    real = game_with(owners, {"p1": ["M5"], "p2": ["M8"], "p3": ["M6"]})
    swapped = game_with(owners, {"p1": ["M5"], "p2": ["M6"], "p3": ["M8"]})
    for seed in range(10):
        first = _guessed_world(real.state, "p1", seed)
        second = _guessed_world(swapped.state, "p1", seed)
        assert first.missions == second.missions
