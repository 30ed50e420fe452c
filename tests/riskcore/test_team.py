"""The team game: two against two (000_ed9208fe5525be2d.txt, "lagspelet"; docs/rules.md).

Team A is p1 and p3 (the book's red and black), team B p2 and p4. Each test
cites the passage of the 2006 Swedish battle manual it checks; what the
book leaves open is decided in docs/rules.md ("The team game") and tested
here too.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from riskcore.audit.summary import summarize
from riskcore.bots import get_bot
from riskcore.bots.strong import SearchConfig, StrongBot
from riskcore.engine.decide import new_game
from riskcore.engine.evolve import apply, fold
from riskcore.engine.legal import legal_actions
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, OCCUPY
from riskcore.protocol import commands as cmd
from riskcore.simulate import play_game
from riskcore.views.view import redact, view
from tests.riskcore.helpers import (
    ALL_CARDS,
    CLASSIC,
    Game,
    ScriptedRng,
    cards_with,
    continent,
    players,
    position,
)

BOOK = "000_ed9208fe5525be2d.txt"
TEAM = RuleSet(card_values="fixed", fortify="connected")


def team_position(
    owners: dict[str, str],
    armies: dict[str, int] | None = None,
    stacks: dict[str, dict[str, int]] | None = None,
    **kwargs: object,
) -> Game:
    """A team game at the start of p1's turn; territories not named go to p2 and p4."""
    rest = [t for t in CLASSIC.territory_names if t not in owners]
    board = dict(owners)
    for i, territory in enumerate(rest):
        board[territory] = ("p2", "p4")[i % 2]
    return position(board, armies, n=4, mode="team", stacks=stacks, **kwargs)  # type: ignore[arg-type]


def test_seats_alternate_between_the_teams_so_turns_do() -> None:
    """BOOK: "Spelarna ska sitta så att de två lagen kan turas om att spela": whoever
    rolls highest, the turn order keeps the teams alternating."""
    # rule: 000-team-seating
    for seed in range(6):
        events = new_game(
            game_id="g", players=players(4), seed=bytes([seed]), mode="team", rules=TEAM
        )
        state = fold(events)
        assert {s: info.team for s, info in state.seats.items()} == {
            "p1": "A",
            "p2": "B",
            "p3": "A",
            "p4": "B",
        }
        teams = [state.seats[s].team for s in state.order]
        assert teams[0] != teams[1] and teams[1] != teams[2] and teams[2] != teams[3]


def test_the_team_game_plays_fixed_card_values_by_default() -> None:
    """docs/rules.md, "The team game"; the book: "I stället avgör symbolen på de kortset du lämnar
    in hur många förstärkningar du får": trades by symbol, fortify along the team's territories."""
    # rule: 000-team-no-gold
    state = fold(new_game(game_id="g", players=players(4), seed=b"s", mode="team"))
    assert state.rules.card_values == "fixed" and state.rules.fortify == "connected"


def test_the_player_with_most_armies_controls_a_territory_and_a_tie_nobody() -> None:
    """BOOK: "Den spelare som har flest arméer i ett territorium kontrollerar det
    territoriet. Om två spelare har lika många kontrollerar INGEN det territoriet." The
    book's own example: on Greenland black and red have 4 each; in Eastern United States
    black 2 and red 3, so red controls it."""
    # rule: 000-team-control
    game = team_position(
        {"greenland": "p1", "eastern_united_states": "p1"},
        {"greenland": 1, "eastern_united_states": 3},
        stacks={"greenland": {"p1": 3, "p3": 4}, "eastern_united_states": {"p3": 2}},
    )
    s = game.state
    assert s.controller("greenland") is None
    assert s.controller("eastern_united_states") == "p1"
    territories = view(s, None)["territories"]
    assert territories["greenland"] == {"owner": None, "armies": 8, "stacks": {"p1": 4, "p3": 4}}
    assert territories["eastern_united_states"]["stacks"] == {"p1": 3, "p3": 2}
    assert "stacks" not in territories["alaska"]


def test_reinforcements_count_controlled_territories_and_a_bonus_needs_one_player() -> None:
    """BOOK: "Kontinentbonusen ... gäller fortfarande bara om en enskild spelare besitter
    samtliga territorier på kontinenten"; "Kontinentbonusen kan inte utnyttjas även om det
    är oavgjort i bara ett av territorierna". p1 and p3 hold Australia between them: no
    bonus for either; p1 holding three of it and tying on the fourth: none either."""
    # rule: 000-team-bonus-one
    # rule: 000-team-tie-no-bonus
    australia = continent("australia")
    split = {t: ("p1" if i < 2 else "p3") for i, t in enumerate(australia)}
    game = team_position(split)
    s = game.state
    assert s.mode.reinforcements(s, "p1") == 3  # 2 territories, no bonus
    tied = team_position(
        {t: "p1" for t in australia}, stacks={australia[0]: {"p3": 1}}
    )  # one army each on the first: a tie
    s = tied.state
    assert s.controller(australia[0]) is None
    assert s.territories_of("p1") == australia[1:]
    assert s.mode.reinforcements(s, "p1") == 3
    whole = team_position({t: "p1" for t in australia}).state
    assert whole.mode.reinforcements(whole, "p1") == 3 + 2  # the bonus, held alone


def test_a_team_mate_is_never_attacked() -> None:
    """BOOK: "Du kan inte angripa en annan spelare i ditt lag." Refused with its own code,
    nothing changed; and never listed."""
    # rule: 000-team-no-attack
    game = team_position({"alaska": "p1", "kamchatka": "p3"}, {"alaska": 5})
    game.place_all("alaska")
    game.reject(cmd.Attack(seat="p1", source="alaska", target="kamchatka"), "team_mate")
    game.reject(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), "team_mate")
    attacks = legal_actions(game.state, "p1").of_type("attack")
    assert ("alaska", "kamchatka") not in [
        (a["command"]["source"], a["command"]["target"]) for a in attacks
    ]


def test_a_tie_of_the_other_team_is_defended_by_the_tied_player_who_plays_next() -> None:
    """docs/rules.md: a territory nobody controls can still be attacked; the tied player
    of the other team who plays next after the attacker defends it with its own armies."""
    game = team_position(
        {"alaska": "p1", "kamchatka": "p4"}, {"alaska": 6}, stacks={"kamchatka": {"p2": 1}}
    )
    assert game.state.controller("kamchatka") is None
    game.place_all("alaska")
    events = game.do(
        cmd.Attack(seat="p1", source="alaska", target="kamchatka", dice=3),
        ScriptedRng([6, 6, 6, 1]),
    )
    assert events[0].defender == next(p for p in game.state.order[1:] if p in ("p2", "p4"))
    assert game.state.armies[("kamchatka", events[0].defender)] == 0
    survivor = "p4" if events[0].defender == "p2" else "p2"
    assert game.state.controller("kamchatka") == survivor  # it holds it alone now


def test_fortify_goes_through_the_teams_territories_into_a_team_mates() -> None:
    """BOOK: "Du kan överföra trupper från ett territorium där du har arméer till ett annat
    av de territorier där du eller någon i ditt lag har arméer", and the book's example:
    red moves from Indonesia via Siam (black's), India (red's) and the Middle East (red
    and black) to East Africa."""
    # rule: 000-team-move-into
    game = team_position(
        {"indonesia": "p1", "siam": "p3", "india": "p1", "middle_east": "p1", "east_africa": "p3"},
        {"indonesia": 5},
        stacks={"middle_east": {"p3": 1}},
    )
    game.place_all("indonesia")
    game.end_attack()
    moving = game.state.reserve  # (nothing left to place)
    assert moving.get("p1", 0) == 0
    count = game.state.armies[("indonesia", "p1")] - 1
    game.do(cmd.Fortify(seat="p1", source="indonesia", target="east_africa", count=count))
    s = game.state
    assert s.armies[("east_africa", "p1")] == count and s.armies[("east_africa", "p3")] == 1
    assert s.controller("east_africa") == "p1"  # more armies now: control follows them
    assert s.phase == FORTIFY and s.fortified


def test_fortify_refuses_others_armies_and_paths_through_the_other_team() -> None:
    """BOOK, "Överföra Trupper": only through "vänligt sinnade" territories, and only your
    own armies move. Each refusal has its own code and changes nothing."""
    # rule: 000-team-friendly-path
    game = team_position(
        {"indonesia": "p1", "siam": "p3", "india": "p1", "east_africa": "p3"},
        {"indonesia": 5, "siam": 4},
    )  # the Middle East is the other team's: no way to East Africa
    game.place_all("indonesia")
    game.end_attack()
    game.reject(
        cmd.Fortify(seat="p1", source="indonesia", target="east_africa", count=1), "not_connected"
    )
    game.reject(cmd.Fortify(seat="p1", source="siam", target="india", count=1), "not_your_armies")
    game.reject(
        cmd.Fortify(seat="p1", source="indonesia", target="china", count=1), "not_your_territory"
    )
    listed = legal_actions(game.state, "p1").of_type("fortify")
    assert {a["command"]["source"] for a in listed} == {"indonesia"}
    assert "east_africa" not in {a["command"]["target"] for a in listed}
    assert "siam" in {a["command"]["target"] for a in listed}


def test_all_of_a_players_armies_may_leave_where_a_team_mate_stays() -> None:
    """docs/rules.md: one army must stay behind, and a team-mate's counts."""
    game = team_position({"siam": "p1", "india": "p1"}, {"siam": 3}, stacks={"siam": {"p3": 1}})
    game.place_all("india")
    game.end_attack()
    game.do(cmd.Fortify(seat="p1", source="siam", target="india", count=3))
    assert game.state.controller("siam") == "p3" and game.state.wiped_out("p1") is False


def test_the_team_shares_one_hand_which_passes_to_the_next_team_mate() -> None:
    """BOOK: "RISK-korten delas av laget. När du drar ett kort lägger du till det bland de
    RISK-kort som tillhör laget. När din omgång är slut lämnar du över lagets kort till nästa
    spelare i ditt lag." p1 conquers and draws for the team; in p3's turn p3 trades the set
    p1 held; the other team sees the hand's size only."""
    # rule: 000-team-hand
    # rule: 000-team-hand-passes
    infantry = cards_with("infantry")[:2]
    third = cards_with("infantry")[2]  # the top of the pile: the card p1 draws
    pile = [third, *(c for c in ALL_CARDS if c not in (*infantry, third))]
    game = team_position(
        {"alaska": "p1", "peru": "p3", "kamchatka": "p2"},
        {"alaska": 6},
        hands={"p1": infantry},
        deck=pile,
    )
    s = game.state
    assert s.hand("p1") == s.hand("p3") == infantry and s.hand("p2") == []
    seats = {seat["id"]: seat for seat in view(s, "p3")["seats"]}
    assert seats["p1"]["cards"] == infantry  # a team-mate sees the team's hand
    other = {seat["id"]: seat for seat in view(s, "p2")["seats"]}
    assert other["p1"]["cards"] is None and other["p1"]["card_count"] == 2
    assert view(s, "p2")["mode_state"]["teams"]["A"]["card_count"] == 2
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    game.do(cmd.Occupy(seat="p1", count=3))
    game.end_turn()
    card = next(e for e in reversed(game.events) if e.TYPE == "card_drawn")
    assert card.seat == "p1" and game.state.hand("p3") == [*infantry, card.card]
    assert redact(card, "p2").card == -1
    assert game.current == "p2"
    game.place_all()
    game.end_turn()
    assert game.current == "p3"
    assert card.card == third
    traded = game.do(cmd.TradeCards(seat="p3", cards=(*infantry, third)))
    assert traded[0].TYPE == "cards_traded" and game.state.hand("p1") == []


def test_another_teams_cards_cannot_be_traded() -> None:
    """BOOK: the cards are the team's; a set held by the other team is not yours
    (the same code as any card not held: it must not tell which cards they hold)."""
    infantry = cards_with("infantry")[:3]
    game = team_position({"alaska": "p1"}, hands={"p2": infantry})
    game.reject(cmd.TradeCards(seat="p1", cards=tuple(infantry)), "cards_not_held")


def test_acting_in_a_team_mates_turn_is_refused() -> None:
    game = team_position({"alaska": "p1", "peru": "p3"})
    game.reject(cmd.PlaceArmies(seat="p3", territory="peru", count=1), "not_your_turn")


def test_the_first_team_to_eliminate_one_player_wins() -> None:
    """BOOK: "Det första laget som eliminerar EN spelare i motståndarlaget vinner spelet";
    "När en spelare har eliminerats har det andra laget vunnit spelet"."""
    # rule: 000-team-goal
    owners = {t: "p1" for t in CLASSIC.territory_names}
    owners.update({"kamchatka": "p2", "peru": "p3", "brazil": "p4", "argentina": "p2"})
    owners["argentina"] = "p4"
    game = position(owners, {"alaska": 8}, mode="team")
    game.place_all("alaska")
    game.do(cmd.Blitz(seat="p1", source="alaska", target="kamchatka"), ScriptedRng([6, 6, 6, 1]))
    assert game.state.out == {"p2": "eliminated"} and game.state.phase == OCCUPY
    game.do(cmd.Occupy(seat="p1", count=3))
    s = game.state
    assert s.phase == FINISHED and s.finish_reason == "elimination"
    assert s.winner is None and s.winners == ("p1", "p3")
    assert view(s, None)["mode_state"]["winning_team"] == "A"


def test_a_player_whose_last_armies_fall_beside_a_team_mate_is_out() -> None:
    """docs/rules.md: a player is out when its last army on the board falls, even where a
    team-mate still stands (no conquest follows then): the game is won at once. p2's only
    armies, two, tie with p4's two in Kamchatka; p2 plays right after p1, so p2 defends."""
    owners = {t: "p1" for t in CLASSIC.territory_names}
    owners.update({"kamchatka": "p4", "peru": "p3", "brazil": "p4"})
    game = position(
        owners, {"alaska": 8, "kamchatka": 2}, n=4, mode="team", stacks={"kamchatka": {"p2": 2}}
    )
    assert game.state.controller("kamchatka") is None and game.state.order[1] == "p2"
    game.place_all("alaska")
    events = game.do(
        cmd.Attack(seat="p1", source="alaska", target="kamchatka", dice=3),
        ScriptedRng([6, 6, 6, 1, 1]),
    )
    assert [e.TYPE for e in events] == ["battle_resolved", "player_eliminated", "game_finished"]
    s = game.state
    assert s.out == {"p2": "eliminated"} and s.controller("kamchatka") == "p4"
    assert s.phase == FINISHED and s.winners == ("p1", "p3") and s.hand("p1") == []


def test_a_resignation_loses_the_game_for_the_team() -> None:
    """docs/rules.md: leaving the game is losing a player, as an elimination is."""
    game = team_position({"alaska": "p1", "peru": "p3"})
    game.do(cmd.Resign(seat="p3"))
    s = game.state
    assert s.phase == FINISHED and s.finish_reason == "resignation" and s.winners == ("p2", "p4")


@pytest.mark.parametrize("placement", ["controlled", "present"])
def test_where_reinforcements_go_is_the_team_placement_option(placement: str) -> None:
    """docs/rules.md, `team_placement`: territories you control, or any with your armies."""
    # rule: 000-team-shared-count
    rules = RuleSet(card_values="fixed", fortify="connected", team_placement=placement)
    game = team_position(
        {"alaska": "p1", "siam": "p3"}, {"siam": 3}, stacks={"siam": {"p1": 1}}, rules=rules
    )
    place = cmd.PlaceArmies(seat="p1", territory="siam", count=1)
    listed = legal_actions(game.state, "p1").of_type("place_armies")
    where = {a["command"]["territory"] for a in listed}
    if placement == "controlled":
        game.reject(place, "not_your_territory")
        assert where == {"alaska"}
    else:
        game.do(place)
        assert where == {"alaska", "siam"}


def test_a_player_who_controls_nothing_places_where_its_armies_stand() -> None:
    game = team_position(
        {"alaska": "p3", "siam": "p3"}, {"alaska": 3, "siam": 3}, stacks={"alaska": {"p1": 1}}
    )
    assert game.state.territories_of("p1") == []
    listed = legal_actions(game.state, "p1").of_type("place_armies")
    assert {a["command"]["territory"] for a in listed} == {"alaska"}


def bot(name: str) -> Any:
    """A bot by name; the strong one with a small search, so a test game is quick."""
    return (
        StrongBot(SearchConfig(iterations=2, candidates=2)) if name == "strong" else get_bot(name)
    )


@pytest.mark.parametrize(
    "bots", [("heuristic", "random"), ("random", "heuristic"), ("strong", "heuristic")]
)
def test_bots_play_team_games_to_the_end(bots: tuple[str, str]) -> None:
    """Every bot plays as a team-mate; every game ends with a team's win."""
    first, second = bots
    for seed in range(1 if "strong" in bots else 6):
        result = play_game(
            [bot(first), bot(second), bot(first), bot(second)],
            seed=bytes([seed, 7]),
            mode="team",
        )
        state = fold(result.events)
        assert state.phase == FINISHED and len(state.winners) == 2
        assert len({state.seats[w].team for w in state.winners}) == 1


def test_the_summary_counts_per_player_and_per_team() -> None:
    result = play_game([get_bot("heuristic")] * 4, seed=b"summary", mode="team")
    summary = summarize(result.events)
    assert set(summary["teams"]) == {"A", "B"}
    last = summary["timeline"][-1]
    for team, info in summary["teams"].items():
        assert info["players"] == (["p1", "p3"] if team == "A" else ["p2", "p4"])
        assert info["timeline"][-1]["territories"] == sum(
            last["territories"][p] for p in info["players"]
        )
    assert summary["winners"] == list(fold(result.events).winners)


def test_no_seat_ever_sees_a_card_of_the_other_team() -> None:
    """Fifty seeded team games: in every view and every event a seat is shown, no card id
    of the other team's hand (or the deck) appears before the end."""
    for seed in range(50):
        result = play_game([get_bot("random")] * 4, seed=b"leak-%d" % seed, mode="team")
        events = result.events
        state = fold(events[:1])
        rnd = random.Random(seed)
        for event in events[1:]:
            apply(state, event)
            if state.phase == FINISHED:
                break
            for seat in ("p1", "p2", "p3", "p4"):
                shown_cards = vars_of(redact(event, seat))
                looks = rnd.random() < 0.01
                if not shown_cards and not looks:
                    continue
                own = set(state.hand(seat))
                hidden = set(state.deck) | {
                    c
                    for hand, cards in state.hands.items()
                    if hand != state.hand_id(seat)
                    for c in cards
                }
                for value in shown_cards:
                    assert value not in hidden or value in own, (seed, seat, event)
                if looks:
                    seen = view(state, seat)
                    cards = [c for s in seen["seats"] for c in (s["cards"] or [])]
                    assert not set(cards) & hidden, (seed, seat)
                    assert seen["deck"] is None


def vars_of(event: object) -> list[int]:
    """The card ids an event shows (its card-bearing fields)."""
    found: list[int] = []
    for name in ("card", "cards", "order", "discarded"):
        value = getattr(event, name, None)
        if isinstance(value, int) and value >= 0:
            found.append(value)
        elif isinstance(value, tuple):
            found += [c for c in value if isinstance(c, int) and c >= 0]
    return found


def test_attack_phase_is_reachable_in_team_games() -> None:
    # rule: 000-team-own-setup
    game = team_position({"alaska": "p1"})
    game.place_all("alaska")
    assert game.state.phase == ATTACK


def test_a_team_games_record_verifies_and_a_forged_outcome_does_not() -> None:
    """A team game's record replays exactly (``risk verify``), and one whose last event
    names the other team as winners is a divergence."""
    import json

    from riskcore.audit.verify import verify_text
    from riskcore.simulate import record_of

    seed = b"team record"
    result = play_game([get_bot("heuristic"), get_bot("random")] * 2, seed=seed, mode="team")
    text = record_of(result, seed)
    verdict = verify_text(text)
    assert verdict.ok and verdict.status == "verified", verdict.divergence
    lines = [json.loads(line) for line in text.splitlines()]
    last = lines[-1]
    assert last["payload"]["e"]["type"] == "game_finished"
    assert last["payload"]["e"]["winners"] == ["p1", "p3"]
    last["payload"]["e"]["winners"] = ["p2", "p4"]
    forged = "\n".join(json.dumps(line) for line in lines) + "\n"
    assert not verify_text(forged).ok


def test_the_heuristic_bot_reinforces_the_front_against_the_other_team() -> None:
    """A team-mate's territories are no front: p1's armies go to Peru, where the other
    team stands, not to Alaska, whose neighbours are p3's weak territories (easy
    conquests, were they anyone else's)."""
    from riskcore.views.seatview import SeatView

    game = team_position(
        {
            "alaska": "p1",
            "peru": "p1",
            "northwest_territory": "p3",
            "alberta": "p3",
            "kamchatka": "p3",
        },
        {"venezuela": 5, "brazil": 5, "argentina": 5},
    )
    s = game.state
    assert {s.controller(t) for t in ("venezuela", "brazil", "argentina")} <= {"p2", "p4"}
    body = get_bot("heuristic").choose(SeatView(s, "p1"), legal_actions(s, "p1"), random.Random(1))
    assert body["type"] == "place_armies" and body["territory"] == "peru"


def test_the_heuristic_bot_never_takes_a_territory_from_its_team_mate() -> None:
    """Over twenty heuristic team games: no fortify moves armies into a team-mate's
    territory so that the team-mate loses control of it (or a tie breaks its bonus)."""
    for seed in range(20):
        result = play_game([get_bot("heuristic")] * 4, seed=b"block-%d" % seed, mode="team")
        state = fold(result.events[:1])
        for event in result.events[1:]:
            before = state.controller(getattr(event, "target", "") or "alaska")
            apply(state, event)
            if event.TYPE == "fortified" and before not in (None, event.seat):
                assert state.controller(event.target) == before, (seed, event)
