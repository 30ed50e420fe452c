"""Fortifying and the end of the turn (docs/rules.md, "Fortify", the last step of "A turn")."""

from __future__ import annotations

from riskcore.model.options import RuleSet
from riskcore.model.state import FORTIFY, REINFORCE
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from tests.riskcore.helpers import (
    Game,
    ScriptedRng,
    cards_with,
    position,
    split,
    with_barriers,
)

# 000_ed9208fe5525be2d.txt's example: "överföra trupper till Ukraina från Indonesien, via
# Siam, Indien och Afghanistan".
PATH = ["indonesia", "siam", "india", "afghanistan", "ukraine"]


def fortifying(rules: RuleSet | None = None, *, extra: tuple[str, ...] = ()) -> Game:
    """p1 holds the path (Indonesia 6 armies, Siam 3) and Brazil; p1 is to fortify."""
    owners = split({"p1": [*PATH, "brazil", *extra], "p3": ["japan"]}, "p2")
    game = position(owners, {"indonesia": 6, "siam": 3}, rules=rules)
    game.place_all("brazil")
    game.end_attack()
    assert game.state.phase == FORTIFY
    return game


def test_fortify_moves_armies_to_an_adjacent_territory() -> None:
    """003_281a902b564cb498.txt: "verplaats je zoveel legers als je wilt van één (en slechts
    één) van je Gebieden naar één (en slechts één) van je aangrenzende gebieden"."""
    # rule: 001-fortify-adjacent
    # rule: 003-no-attack-needed
    # rule: 004-fortify
    game = fortifying()
    (moved,) = game.do(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=4))
    assert moved == ev.Fortified(seat="p1", source="indonesia", target="siam", count=4)
    assert (game.state.troops("indonesia"), game.state.troops("siam")) == (2, 7)
    assert game.state.fortified and game.state.phase == FORTIFY


def test_adjacent_rule_refuses_a_distant_own_territory() -> None:
    """004_780a86783e2219ae.txt: "befeste din posisjon ved å flytte hærer fra en okkupert
    territorium til en tilstøtende en"."""
    # rule: 003-free-move
    game = fortifying()
    move = cmd.Fortify(seat="p1", source="indonesia", target="ukraine", count=1)
    game.reject(move, "not_adjacent")


def test_connected_rule_follows_a_path_of_own_territories() -> None:
    """000_ed9208fe5525be2d.txt: "Territorier är förenade om de ligger precis bredvid
    varandra eller om alla andra territorier mellan dem också KONTROLLERAS AV DIG. Du kan
    inte passera genom fiendens territorier"."""
    # rule: 000-move-connected
    game = fortifying(RuleSet(fortify="connected"))
    game.do(cmd.Fortify(seat="p1", source="indonesia", target="ukraine", count=5))
    assert (game.state.troops("indonesia"), game.state.troops("ukraine")) == (1, 6)
    cut = fortifying(RuleSet(fortify="connected"))
    cut.reject(
        cmd.Fortify(seat="p1", source="indonesia", target="brazil", count=1), "not_connected"
    )


def test_connected_rule_does_not_pass_through_an_enemy() -> None:
    """000_ed9208fe5525be2d.txt: "Du kan inte passera genom fiendens territorier"."""
    # rule: 000-no-enemy-path
    owners = split({"p1": ["indonesia", "siam", "afghanistan", "ukraine"], "p3": ["japan"]}, "p2")
    game = position(owners, {"indonesia": 4}, rules=RuleSet(fortify="connected"))
    game.place_all("ukraine")
    game.end_attack()
    move = cmd.Fortify(seat="p1", source="indonesia", target="ukraine", count=1)
    game.reject(move, "not_connected")  # India, between Siam and Afghanistan, is p2's
    game.do(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=3))


def test_at_least_one_army_stays_behind() -> None:
    """003_281a902b564cb498.txt: "laat ten minste één leger achter"."""
    # rule: 000-no-limit
    # rule: 001-fortify-leave-one
    # rule: 003-leave-one
    game = fortifying()
    game.reject(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=6), "invalid_count")
    game.reject(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=0), "invalid_count")
    game.reject(cmd.Fortify(seat="p1", source="india", target="siam", count=1), "invalid_count")
    game.do(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=5))


def test_only_one_fortify_a_turn() -> None:
    """001_c708159c204162c3.txt: "du kan flytta så många trupper du vill från ett (och endast
    ett) av dina territorier till ett annat (och endast ett)"."""
    # rule: 000-one-move
    game = fortifying()
    game.do(cmd.Fortify(seat="p1", source="indonesia", target="siam", count=1))
    game.reject(cmd.Fortify(seat="p1", source="siam", target="india", count=1), "already_fortified")


def test_fortify_refusals() -> None:
    """003_281a902b564cb498.txt: "van één (en slechts één) van je Gebieden naar één (en slechts
    één) van je aangrenzende gebieden": from and to territories of one's own, on one's turn."""
    game = fortifying()
    game.reject(
        cmd.Fortify(seat="p1", source="indonesia", target="new_guinea", count=1),
        "not_your_territory",
    )
    game.reject(
        cmd.Fortify(seat="p1", source="new_guinea", target="indonesia", count=1),
        "not_your_territory",
    )
    game.reject(
        cmd.Fortify(seat="p1", source="indonesia", target="indonesia", count=1), "not_adjacent"
    )
    game.reject(cmd.Fortify(seat="p2", source="china", target="mongolia", count=1), "not_your_turn")


def test_fortifying_comes_after_the_attack_phase_is_ended() -> None:
    """000_ed9208fe5525be2d.txt: "En omgång i Risk består av fyra steg som måste utföras i
    en viss ordning ... 2. Strid (valfritt). 3. Överföra trupper (valfritt)": a fortify ends
    the attacks, so the engine asks for the attack phase to be ended first."""
    # rule: 000-turn-steps
    # rule: 001-turn-steps
    owners = split({"p1": [*PATH, "brazil"], "p3": ["japan"]}, "p2")
    game = position(owners, {"indonesia": 6})
    move = cmd.Fortify(seat="p1", source="indonesia", target="siam", count=1)
    game.reject(move, "armies_to_place")
    game.place_all("brazil")
    game.reject(move, "wrong_phase")
    (ended,) = game.do(cmd.EndPhase(seat="p1"))
    assert ended == ev.PhaseEnded(seat="p1", phase="attack", next_phase="fortify")
    game.do(move)


# The end of the turn -----------------------------------------------------------------


def test_no_card_without_a_conquest() -> None:
    """003_281a902b564cb498.txt: "aan het einde van een beurt waarin u ten minste één
    territorium hebt ingenomen, verdient u één (en slechts één) risicokaart"."""
    # rule: 000-draw-card
    # rule: 004-draw
    game = fortifying()
    events = game.do(cmd.EndPhase(seat="p1"))
    assert [type(e) for e in events] == [ev.TurnEnded, ev.TurnStarted]
    assert events[0] == ev.TurnEnded(seat="p1")
    assert game.current == "p2"
    assert game.state.hands["p1"] == []


def test_one_card_however_many_territories_were_conquered() -> None:
    """000_ed9208fe5525be2d.txt: "Oavsett hur många territorier du erövrar får du bara ett
    RISK-kort per omgång på det här sättet"."""
    # rule: 000-one-card
    # rule: 001-card-per-turn
    # rule: 003-card-a-turn
    owners = split({"p1": ["brazil", "kamchatka"], "p3": ["japan"]}, "p2")
    game = position(owners, {"brazil": 5, "kamchatka": 5})
    top = game.state.deck[0]
    game.place_all("brazil")
    for source, target in [("brazil", "north_africa"), ("kamchatka", "alaska")]:
        game.do(cmd.Attack(seat="p1", source=source, target=target), ScriptedRng([6, 6, 6, 1]))
        game.do(cmd.Occupy(seat="p1", count=3))
    game.end_attack()
    events = game.do(cmd.EndPhase(seat="p1"))
    assert events[:2] == [ev.CardDrawn(seat="p1", card=top), ev.TurnEnded(seat="p1")]
    assert game.state.hands["p1"] == [top]
    assert top not in game.state.deck
    assert game.state.current == "p2" and not game.state.conquered


def test_a_fifth_card_drawn_waits_for_the_next_turn() -> None:
    """001_c708159c204162c3.txt: "När du i slutet av din tur drar ett spelkort ... och ditt
    totala antal kort har ökat till 6, måste du vänta till nästa tur för att byta ut dem"."""
    # rule: 001-draw-sixth-waits
    infantry = cards_with("infantry")
    owners = split({"p1": ["brazil"], "p3": ["japan"]}, "p2")
    game = position(owners, {"brazil": 5}, hands={"p1": infantry[:4]})
    game.place_all("brazil")
    game.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1])
    )
    game.do(cmd.Occupy(seat="p1", count=3))
    game.end_turn()
    assert len(game.state.hands["p1"]) == 5
    assert game.state.current == "p2" and game.state.must_trade_until is None
    for _ in ("p2", "p3"):
        game.place_all()
        game.end_turn()
    started = game.events[-1]
    assert isinstance(started, ev.TurnStarted) and started.seat == "p1" and started.must_trade
    assert game.state.phase == REINFORCE


def test_ending_the_turn_passes_to_the_next_player_clockwise() -> None:
    """003_281a902b564cb498.txt: "geef je de dobbelstenen door aan de speler links van je"."""
    game = fortifying()
    assert game.state.order == ("p1", "p2", "p3")
    game.do(cmd.EndPhase(seat="p1"))
    for seat, turn in [("p2", 2), ("p3", 3), ("p1", 4)]:
        assert (game.current, game.state.turn) == (seat, turn)
        assert not game.state.fortified
        if seat != "p1":
            game.place_all()
            game.end_turn()


def test_no_move_across_a_river_away_from_a_bridge_or_over_mountains() -> None:
    """002_84c66041fccdfcee.txt: "du får inte gå över berg eller floder, förutom via en
    bro": each barrier has its own code, and the refusal changes nothing."""
    # rule: 002-manoeuvre
    for rule in ("adjacent", "connected"):
        game = with_barriers(
            fortifying(RuleSet(fortify=rule), extra=("new_guinea",)),
            {("indonesia", "siam"): "river", ("indonesia", "new_guinea"): "mountain"},
        )
        move = cmd.Fortify(seat="p1", source="indonesia", target="siam", count=1)
        game.reject(move, "river_without_bridge")
        over = cmd.Fortify(seat="p1", source="indonesia", target="new_guinea", count=1)
        game.reject(over, "mountains_impassable")
