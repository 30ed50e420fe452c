"""The mission game of 000_ed9208fe5525be2d.txt ("uppdragsspelet"; docs/rules.md).

The deck is the project's own ``graded-house-v1`` (the printed texts are not
known); the rules of claiming are the book's, each test citing its words.
"""

from __future__ import annotations

from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.engine.registry import mode_named
from riskcore.model.state import FINISHED, FORTIFY
from riskcore.modes.missions import MissionClaimed, MissionDealt, MissionRevealed, load_deck
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.simulate import play_game
from riskcore.views.view import redact, view
from tests.riskcore.helpers import CLASSIC, Game, ScriptedRng, continent, new, position, split
from tests.riskcore.missions_helpers import check_missions_stay_secret, with_missions

BOOK = "000_ed9208fe5525be2d.txt"
DECK = "graded-house-v1"
SYMBOLS = ("infantry", "cavalry", "artillery")
Claim = cmd.command_from_dict


def claim(game: Game, seat: str, card: str) -> list:  # type: ignore[type-arg]
    return game.body(seat, {"type": "claim_mission", "card": card})


def game_with(
    owners: dict[str, str],
    dealt: dict[str, list[str]],
    claimed: dict[str, list[str]] | None = None,
    **kwargs: object,
) -> Game:
    game = position(owners, kwargs.pop("armies", None), mode="mission_game", **kwargs)  # type: ignore[arg-type]
    return with_missions(game, DECK, dealt, claimed)


OTHERS = {"p2": ["C1", "J1", "O1", "G1"], "p3": ["C3", "J3", "O3", "G3"]}


def test_everyone_draws_one_mission_of_each_grade_kept_secret() -> None:
    """BOOK: "Alla spelare drar 1 uppdragskort från varje hög tills de har 4 uppdragskort
    av olika svårighetsgrad. Titta på uppdragskorten, men se till så att ingen annan ser
    vad det står." Trades use the fixed values ("enligt symbolen på de kortset du har")."""
    # rule: 000-mission-grades
    # rule: 000-mission-draw
    result = play_game([get_bot("random")] * 4, seed=b"deal", mode="mission_game")
    state = fold(result.events)
    dealt = [e for e in result.events if isinstance(e, MissionDealt)]
    assert len(dealt) == 16
    for seat in ("p1", "p2", "p3", "p4"):
        assert sorted(e.grade for e in dealt if e.seat == seat) == [1, 2, 3, 4]
    assert len({e.mission for e in dealt}) == 16
    assert state.rules.card_values == "fixed"
    assert all(redact(e, None).mission == -1 for e in dealt)


def test_a_done_mission_is_claimed_and_listed_only_when_done() -> None:
    """BOOK: "Ett uppdrag är slutfört när du har uppnått vad som stod på kortet". C2:
    hold Australia."""
    owners = split({"p1": continent("australia")}, "p2")
    owners.update({t: "p3" for t in continent("africa")})
    game = game_with(owners, {"p1": ["C2", "J2", "O2", "G2"], **OTHERS})
    listed = [a["command"] for a in legal_actions(game.state, "p1").of_type("claim_mission")]
    assert listed == [{"type": "claim_mission", "card": "C2"}]
    game.reject(Claim({"type": "claim_mission", "card": "J2"}, "p1"), "mission_not_done")
    game.reject(Claim({"type": "claim_mission", "card": "C1"}, "p1"), "not_your_mission")
    events = claim(game, "p1", "C2")
    assert events == [MissionClaimed(seat="p1", card="C2")]
    mine = view(game.state, "p2")["mode_state"]["missions"]["p1"]
    assert [(e["card"], e["claimed"]) for e in mine] == [
        ("C2", True),
        (None, False),
        (None, False),
        (None, False),
    ]
    game.reject(Claim({"type": "claim_mission", "card": "C2"}, "p1"), "mission_claimed")


def test_at_most_one_mission_a_turn() -> None:
    """BOOK: "du kan inte tillgodoräkna dig mer än 1 uppdrag per omgång"."""
    # rule: 000-mission-one-a-turn
    owners = split({"p1": continent("australia") + continent("south_america")}, "p2")
    owners.update({t: "p3" for t in continent("africa")})
    game = game_with(owners, {"p1": ["C2", "C3", "J6", "G2"], **OTHERS})
    claim(game, "p1", "C2")
    game.reject(Claim({"type": "claim_mission", "card": "J6"}, "p1"), "one_mission_a_turn")
    assert legal_actions(game.state, "p1").of_type("claim_mission") == []


def test_a_card_of_the_turns_end_is_claimed_in_the_fortify_phase() -> None:
    """BOOK: "vid EXAKT det tillfälle som är angivet på kortet". C7: hold Egypt and
    Southern Europe at the end of your turn."""
    # rule: 000-mission-moment
    owners = split({"p1": ["egypt", "southern_europe", "alaska"]}, "p2")
    owners.update({t: "p3" for t in continent("asia")})
    game = game_with(owners, {"p1": ["C7", "J2", "O2", "G2"], **OTHERS})
    game.place_all("alaska")
    game.reject(Claim({"type": "claim_mission", "card": "C7"}, "p1"), "not_the_moment")
    game.end_attack()
    assert game.state.phase == FORTIFY
    claim(game, "p1", "C7")


def test_a_claimed_mission_stays_claimed_and_the_fourth_is_revealed_after_three() -> None:
    """BOOK: "När ett uppdrag har slutförts förblir det slutfört under resten av spelet
    även om en motståndare gör uppdraget ogjort"; "När du har slutfört 3 uppdrag måste du
    avslöja det fjärde". J2 and O2 were claimed in earlier turns; claiming C2 now makes
    three, and G2 is shown to everyone."""
    # rule: 000-mission-stays
    # rule: 000-mission-fourth
    again = game_with(
        split({"p1": continent("australia"), "p3": continent("africa")}, "p2"),
        {"p1": ["C2", "J2", "O2", "G2"], **OTHERS},
        claimed={"p1": ["J2", "O2"]},
    )
    made = claim(again, "p1", "C2")
    assert made == [MissionClaimed(seat="p1", card="C2"), MissionRevealed(seat="p1", card="G2")]
    seen = view(again.state, "p3")["mode_state"]["missions"]["p1"]
    assert seen[3]["card"] == "G2" and seen[3]["revealed"] and not seen[3]["claimed"]
    assert again.state.phase != FINISHED
    # Australia lost afterwards: J2 (Africa, never held) and C2 stay claimed all the same.
    lost = [*again.events, ev.TerritoriesDealt(owners={"indonesia": "p2"})]
    later = fold(lost)
    assert later.controller("indonesia") is None  # a tie now: Australia is not held
    assert [m.claimed for m in later.missions["p1"]] == [True, True, True, False]


def test_the_first_to_claim_all_four_wins() -> None:
    """BOOK: "Genom att vara den första spelaren som slutför alla 4 uppdrag"."""
    # rule: 000-mission-goal
    owners = split({"p1": continent("australia"), "p3": continent("africa")}, "p2")
    last = game_with(
        owners, {"p1": ["C2", "J2", "O2", "G2"], **OTHERS}, claimed={"p1": ["J2", "O2", "G2"]}
    )
    made = claim(last, "p1", "C2")
    assert made[-1].TYPE == "game_finished"
    assert last.state.winner == "p1" and last.state.finish_reason == "missions"


def test_an_eliminated_players_missions_are_not_passed_on() -> None:
    """BOOK: "När du eliminerar en motståndare får du fortfarande deras RISK-kort, men inte
    uppdragskorten." p1 puts p2 out: p1 keeps its four missions, p2's stay p2's."""
    # rule: 000-mission-elimination
    owners = split({"p2": ["kamchatka"], "p3": continent("africa")}, "p1")
    game = game_with(owners, {"p1": ["C2", "J2", "O2", "G2"], **OTHERS}, armies={"alaska": 6})
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    assert s.out == {"p2": "eliminated"}
    assert [m.card for m in s.missions["p1"]] == ["C2", "J2", "O2", "G2"]
    assert [m.card for m in s.missions["p2"]] == ["C1", "J1", "O1", "G1"]


def test_the_house_deck_has_seven_cards_of_each_grade() -> None:
    # rule: 000-mission-cards-28
    rules = mode_named("mission_game").rule_set()
    assert rules.mission_deck == DECK  # the deck a game plays unless it names another
    cards = load_deck(rules.mission_deck)
    assert sorted(c.grade for c in cards) == [1] * 7 + [2] * 7 + [3] * 7 + [4] * 7
    territories = set(CLASSIC.territory_names)
    for card in cards:
        assert set(card.goal.get("named", ())) <= territories


def test_bots_finish_mission_games_and_win_by_missions() -> None:
    # rule: 000-mission-win
    reasons = set()
    for seed in range(12):
        result = play_game(
            [get_bot("heuristic"), get_bot("random"), get_bot("heuristic")],
            seed=bytes([seed]),
            mode="mission_game",
        )
        state = fold(result.events)
        assert state.phase == FINISHED
        reasons.add(state.finish_reason)
    assert "missions" in reasons


def test_nobody_sees_another_seats_missions_before_they_are_shown() -> None:
    """Fifty seeded games: no other seat's mission shows in any view or redacted event
    before it is claimed, shown or the game is over (then all are)."""
    check_missions_stay_secret("mission_game")


def test_mission_games_records_verify_and_a_changed_mission_is_caught() -> None:
    """Records of both mission modes replay exactly; dealing another mission is a
    divergence."""
    import json

    from riskcore.audit.verify import verify_text
    from riskcore.simulate import record_of

    for mode in ("secret_missions", "mission_game"):
        seed = mode.encode()
        result = play_game(
            [get_bot("heuristic"), get_bot("random"), get_bot("random")], seed=seed, mode=mode
        )
        text = record_of(result, seed)
        verdict = verify_text(text)
        assert verdict.ok and verdict.status == "verified", (mode, verdict.divergence)
        lines = [json.loads(line) for line in text.splitlines()]
        dealt = next(line for line in lines[1:] if line["payload"]["e"]["type"] == "mission_dealt")
        dealt["payload"]["e"]["mission"] = (dealt["payload"]["e"]["mission"] + 1) % 7
        assert not verify_text("\n".join(json.dumps(line) for line in lines) + "\n").ok


def test_the_summary_counts_missions_claimed_per_seat() -> None:
    from riskcore.audit.summary import summarize

    for seed in range(12):
        result = play_game([get_bot("heuristic")] * 3, seed=bytes([seed, 1]), mode="mission_game")
        facts = summarize(result.events)["mode_facts"]
        claims = [e for e in result.events if isinstance(e, MissionClaimed)]
        if claims:
            assert sum(facts["mission_claimed"].values()) == len(claims)
            assert facts["mission_dealt"] == {"p1": 4, "p2": 4, "p3": 4}
            return
    raise AssertionError("no mission claimed in twelve games")


def test_a_bots_guessed_worlds_keep_shown_missions_and_guess_hidden_ones_by_grade() -> None:
    """BOOK: "När du har slutfört 3 uppdrag måste du avslöja det fjärde": a claimed or
    revealed mission is known to all, so the strong bot's guessed worlds
    (``SeatView.determinize``) keep it; a hidden one is drawn from the cards of its
    grade that the seat cannot place (neither its own nor anyone's shown card)."""
    import random

    from riskcore.views.seatview import SeatView

    game = game_with(
        split({"p1": continent("australia"), "p3": continent("africa")}, "p2"),
        {"p1": ["C2", "J2", "O2", "G2"], **OTHERS},
        claimed={"p2": ["C1", "J1", "O1"]},
    )
    grades = {card.id: card.grade for card in load_deck(DECK)}
    for seed in range(30):
        world = SeatView(game.state, "p1").determinize(random.Random(seed))
        assert world.missions["p1"] == game.state.missions["p1"]
        assert world.missions["p2"][:3] == game.state.missions["p2"][:3]
        guessed = [m for rival in ("p2", "p3") for m in world.missions[rival] if not m.claimed]
        assert len(guessed) == 5
        for mission in guessed:
            assert grades[mission.card] == mission.grade
            assert mission.card not in {"C2", "J2", "O2", "G2", "C1", "J1", "O1"}
        assert len({m.card for m in guessed}) == 5


def test_the_mission_game_trades_sets_at_fixed_values_by_default() -> None:
    """000 (the mission game): "3 infanteri 4 3 kavalleri 6 3 artilleri 8 1 av varje 10",
    whatever was traded before, unless a game sets ``card_values``."""
    # rule: 000-mission-fixed-values
    game = new(3, mode="mission_game")
    state = game.state
    assert state.rules.card_values == "fixed"
    sets = [("infantry",) * 3, ("cavalry",) * 3, ("artillery",) * 3, SYMBOLS]
    for traded_before in (0, 6):
        state.sets_traded = traded_before
        assert [state.mode.trade_value(state, s) for s in sets] == [4, 6, 8, 10]
