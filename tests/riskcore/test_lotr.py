"""Lord of the Rings Risk (docs/rules.md, "Lord of the Rings Risk"; the Swedish 2002 book,
002_84c66041fccdfcee.txt).

The scanned book drops the digit 1 in many numbers: "+ " is +1, "4 neutrala" 14.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

import pytest

from riskcore.audit.verify import verify_text
from riskcore.boards.board import load_board
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, OCCUPY, SETUP_CLAIM, SETUP_PLACE
from riskcore.modes.lotr import (
    SETUP_LEADER,
    FellowshipMoved,
    LeaderLost,
    LeaderMoved,
    LeaderPlaced,
    MoveLeader,
    PlaceLeader,
    ScoreTieRolled,
    ranking,
    score_table,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules.odds import roll_outcomes
from riskcore.simulate import play_game, record_of
from tests.riskcore.helpers import (
    Game,
    ScriptedRng,
    new,
    position,
    setup_policy,
    split,
    with_barriers,
)
from tests.riskcore.test_simulate import replay

ME = load_board("middle_earth")
SIDE = {c.territory: c.side for c in ME.cards if c.territory is not None}
REGION = {g.id: sorted(g.territories) for g in ME.groups}


def lotr(
    groups: Mapping[str, Sequence[str]],
    armies: Mapping[str, int] | None = None,
    *,
    leaders: Mapping[str, Sequence[str]] | None = None,
    rest: str = "p3",
    first: str = "p1",
    steps: int = 0,
    rules: RuleSet | None = None,
) -> Game:
    """A Lord of the Rings game at the start of ``first``'s turn: ``groups`` to each
    seat, the rest to ``rest``; leaders where given; the Fellowship ``steps`` along."""
    owners = split(groups, rest, board=ME)
    before: list[ev.Event] = [
        LeaderPlaced(seat=seat, territory=t, reason="setup", next_seat=None)
        for seat, where in (leaders or {}).items()
        for t in where
    ]
    before += [FellowshipMoved(seat=first, roll=None, moved=True, step=i + 1) for i in range(steps)]
    return position(owners, armies, mode="lotr", first=first, before_turn=before, rules=rules)


def attacking(game: Game, depot: str) -> Game:
    game.place_all(depot)
    assert game.state.phase == ATTACK
    return game


def battle_of(events: Sequence[ev.Event]) -> ev.BattleResolved:
    (resolved,) = [e for e in events if isinstance(e, ev.BattleResolved)]
    return resolved


def to_fortify(game: Game) -> None:
    if game.state.phase == ATTACK:
        game.end_attack()
    assert game.state.phase == FORTIFY


# Setup ------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "armies"), [(2, 35), (3, 35), (4, 30)])
def test_starting_armies_and_sides(n: int, armies: int) -> None:
    """002: "2 spelare 35 bataljoner var* 3 spelare 35 bataljoner var 4 spelare 30
    bataljoner var"; "Grönt och gult representerar de goda krafterna, medan rött och svart
    är onda krafter"; "När man är 2 spelare måste det finnas en god och en ond armé"."""
    # rule: 002-armies
    game = new(n, mode="lotr")
    created = game.events[0]
    assert isinstance(created, ev.GameCreated) and created.board == "middle_earth"
    players = [s for s in created.seats if s["kind"] == "player"]
    assert {s["armies"] for s in players} == {armies}
    assert {s["side"] for s in players} == {"good", "evil"}


def test_three_players_are_dealt_by_the_table() -> None:
    """002, "3 SPELARE": "5 onda, 4 neutrala", "9 goda", "4 onda, 5 neutrala"; "Den
    första spelaren placerar en av sina bataljoner i vart och ett av sina territorier"."""
    # rule: 002-sort-cards
    # rule: 002-deal-table-3
    # rule: 002-claim-rest
    game = new(3, mode="lotr")
    s = game.state
    (dealt,) = [e for e in game.events if isinstance(e, ev.TerritoriesDealt)]
    hands = {
        seat: Counter(SIDE[t] for t, o in dealt.owners.items() if o == seat) for seat in s.order
    }
    evil = [seat for seat in s.order if s.seats[seat].side == "evil"]
    (good,) = [seat for seat in s.order if s.seats[seat].side == "good"]
    assert hands[evil[0]] == {"evil": 5, "neutral": 4}
    assert hands[evil[1]] == {"evil": 4, "neutral": 5}
    assert hands[good] == {"good": 9}
    assert all(s.troops(t) == 1 for t in dealt.owners)
    assert s.phase == SETUP_CLAIM and len(ME.territory_names) - len(s.owner) == 15


def test_four_players_are_dealt_by_the_table() -> None:
    """002, "4 SPELARE": "5 goda", "5 onda", "4 goda", "4 onda" in turn order."""
    # rule: 002-deal-table-4
    game = new(4, mode="lotr")
    s = game.state
    (dealt,) = [e for e in game.events if isinstance(e, ev.TerritoriesDealt)]
    counts = {
        seat: Counter(SIDE[t] for t, o in dealt.owners.items() if o == seat) for seat in s.order
    }
    for side in ("good", "evil"):
        players = [seat for seat in s.order if s.seats[seat].side == side]
        assert [counts[p] for p in players] == [{side: 5}, {side: 4}]
    assert len(ME.territory_names) - len(s.owner) == 24


def test_two_players_play_with_a_neutral_army() -> None:
    """002, "2 SPELARE": "9 goda", "9 onda", "(neutral) 4 neutrala"; "Det ska finnas 2
    neutrala bataljoner i varje neutralt territorium"; "Den neutrala armén får ingen
    ledare"."""
    # rule: 002-two-sides
    game = new(2, mode="lotr")
    s = game.state
    assert [len(s.territories_of(p)) for p in ("p1", "p2", "n1")] == [9, 9, 14]
    assert all(s.troops(t) == 2 for t in s.territories_of("n1"))
    assert s.order == tuple(p for p in s.order if p != "n1")


def test_after_placing_each_player_puts_a_leader_on_an_own_territory() -> None:
    """002: "7. När du har placerat ut alla dina bataljoner på spelplanen placerar du en
    ledare i ett av dina territorier"."""
    # rule: 002-leader-setup
    game = new(3, mode="lotr")
    while game.state.phase in (SETUP_CLAIM, SETUP_PLACE):
        game.do(setup_policy(game.state, game.current))
    s = game.state
    assert s.phase == SETUP_LEADER
    for seat in list(s.order):
        assert game.current == seat
        other = next(t for t, o in s.owner.items() if o != seat)
        game.reject(PlaceLeader(seat=seat, territory=other), "not_your_territory")
        actions = legal_actions(s, seat)
        assert {
            a["command"]["territory"] for a in actions if a["command"]["type"] == "place_leader"
        } == set(s.territories_of(seat))
        game.do(PlaceLeader(seat=seat, territory=s.territories_of(seat)[0]))
    assert s.phase == "reinforce" and s.current == s.order[0] and s.turn == 1
    assert all(len(s.leaders[p]) == 1 for p in s.order)
    assert isinstance(game.events[-2], ev.DeckShuffled)


# Battles --------------------------------------------------------------------------


P1 = ["weather_hills", "fornost", "old_forest", "buckland", "the_shire", "moria"]
P2 = ["borderlands", "rhudaur", "eregion"]


def test_a_leader_adds_one_to_its_attackers_highest_die() -> None:
    """002: "När du har bataljoner i strid i ett territorium där det finns en ledare, kan
    du lägga till + [1] till det högsta tärningskastet"; ties go to the defender."""
    # rule: 002-leader-plus-one
    game = attacking(
        lotr(
            {"p1": P1, "p2": P2},
            {"weather_hills": 5, "borderlands": 3},
            leaders={"p1": ["weather_hills"]},
        ),
        "fornost",
    )
    (resolved, *_) = game.do(
        cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=1),
        ScriptedRng([5, 5]),
    )
    assert isinstance(resolved, ev.BattleResolved)
    assert (resolved.attacker_losses, resolved.defender_losses) == (0, 1)  # 5+1 beats 5
    plain = attacking(
        lotr(
            {"p1": P1, "p2": P2},
            {"weather_hills": 5, "borderlands": 3},
            leaders={"p1": ["the_shire"]},
        ),
        "fornost",
    )
    resolved = battle_of(
        plain.do(
            cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=1),
            ScriptedRng([5, 5]),
        )
    )
    assert (resolved.attacker_losses, resolved.defender_losses) == (1, 0)


def test_one_attacking_die_lets_the_defender_roll_only_one() -> None:
    """002: "Om anfallaren bara slår en tärning, kan du som försvarare också bara slå en
    tärning"."""
    # rule: 002-one-vs-one
    game = attacking(lotr({"p1": P1, "p2": P2}, {"weather_hills": 5, "borderlands": 3}), "fornost")
    resolved = battle_of(
        game.do(
            cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=1),
            ScriptedRng([2, 6]),
        )
    )
    assert (len(resolved.attacker_dice), len(resolved.defender_dice)) == (1, 1)
    resolved = battle_of(
        game.do(
            cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=2),
            ScriptedRng([2, 2, 6, 6]),
        )
    )
    assert (len(resolved.attacker_dice), len(resolved.defender_dice)) == (2, 2)


def test_a_stronghold_adds_one_to_its_defender_and_two_with_a_leader() -> None:
    """002: "Befästningarna stärker försvaret för de bataljoner som håller befästningen med
    + [1] på det högsta tärningsslaget för försvararen"; the table "Ledare & befästning
    + [1] +2"."""
    # rule: 002-stronghold
    game = attacking(lotr({"p1": P1, "p2": P2}, {"weather_hills": 6, "rhudaur": 3}), "fornost")
    resolved = battle_of(
        game.do(
            cmd.Attack(seat="p1", source="weather_hills", target="rhudaur", dice=3),
            ScriptedRng([6, 6, 1, 5, 5]),
        )
    )
    # Rivendell: 5+1 holds against 6; the second pair is plain, 6 beats 5.
    assert (resolved.attacker_losses, resolved.defender_losses) == (1, 1)
    led = attacking(
        lotr({"p1": P1, "p2": P2}, {"weather_hills": 6, "rhudaur": 3}, leaders={"p2": ["rhudaur"]}),
        "fornost",
    )
    resolved = battle_of(
        led.do(
            cmd.Attack(seat="p1", source="weather_hills", target="rhudaur", dice=1),
            ScriptedRng([6, 4]),
        )
    )
    assert (resolved.attacker_losses, resolved.defender_losses) == (1, 0)  # 4+2 holds 6


def test_a_stronghold_gives_nothing_to_an_attack_from_it() -> None:
    """002: "* Eftersom befästningarna är fasta ger de inga fördelar vid ett anfall"."""
    # rule: 002-stronghold-attack
    game = attacking(lotr({"p1": P1, "p2": P2}, {"moria": 4, "eregion": 2}), "fornost")
    resolved = battle_of(
        game.do(
            cmd.Attack(seat="p1", source="moria", target="eregion", dice=1), ScriptedRng([5, 5])
        )
    )
    assert (resolved.attacker_losses, resolved.defender_losses) == (1, 0)


def test_a_winning_leader_moves_in_and_a_beaten_one_is_lost() -> None:
    """002: "Om en ledare används i strid när du erövrar ett territorium, måste du förflytta
    dig till det territoriet"; "Om den sista bataljonen i ett territorium med en ledare
    förlorar slaget, är ledaren också besegrad och måste tas bort från spelplanen"."""
    # rule: 002-leader-moves-in
    # rule: 002-leader-lost
    game = attacking(
        lotr(
            {"p1": P1, "p2": P2},
            {"weather_hills": 6},
            leaders={"p1": ["weather_hills"], "p2": ["borderlands"]},
        ),
        "fornost",
    )
    caused = game.do(
        cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=3),
        ScriptedRng([6, 6, 6, 1]),
    )
    assert LeaderLost(seat="p2", territory="borderlands", by="p1") in caused
    assert (
        LeaderMoved(seat="p1", source="weather_hills", target="borderlands", reason="conquest")
        in caused
    )
    assert game.state.leaders == {"p1": ("borderlands",), "p2": ()}
    assert game.state.phase == OCCUPY


def test_a_player_without_a_leader_places_one_at_the_end_of_the_turn() -> None:
    """002: "Om du inte har någon ledare i spel återgår din ledare till vilket som helst av
    dina territorier när din speltur är slut, innan du drar kort"."""
    # rule: 002-leader-return
    game = attacking(lotr({"p1": P1, "p2": P2}, leaders={"p2": ["rhudaur"]}), "fornost")
    to_fortify(game)
    game.reject(cmd.EndPhase(seat="p1"), "leader_to_place")
    kinds = {a["command"]["type"] for a in legal_actions(game.state, "p1")}
    assert "place_leader" in kinds and "end_phase" not in kinds
    game.reject(PlaceLeader(seat="p1", territory="rhudaur"), "not_your_territory")
    game.do(PlaceLeader(seat="p1", territory="fornost"))
    game.reject(PlaceLeader(seat="p1", territory="the_shire"), "leader_in_play")
    game.do(cmd.EndPhase(seat="p1"))
    assert game.state.current == "p2" and game.state.leaders["p1"] == ("fornost",)


def test_leaders_move_along_own_territories_never_two_in_one() -> None:
    """002: "Ledarna kan flyttas separat som en truppmanöver"; "Två ledare från samma armé
    får inte vara på samma territorium, men under manöverfasen kan en ledare flyttas genom
    ett territorium där det finns en annan ledare med samma färg"."""
    # rule: 002-two-leaders
    # rule: 002-leader-manoeuvre
    game = attacking(
        lotr({"p1": P1, "p2": P2}, leaders={"p1": ["the_shire", "buckland"]}), "fornost"
    )
    game.reject(MoveLeader(seat="p1", source="the_shire", target="fornost"), "wrong_phase")
    to_fortify(game)
    game.reject(
        MoveLeader(seat="p1", source="the_shire", target="buckland"), "leader_already_there"
    )
    game.reject(MoveLeader(seat="p1", source="old_forest", target="fornost"), "no_leader_there")
    game.reject(MoveLeader(seat="p1", source="the_shire", target="rhudaur"), "not_your_territory")
    game.reject(MoveLeader(seat="p1", source="the_shire", target="moria"), "not_connected")
    # Through Buckland, where the other leader stands, to Fornost.
    game.do(MoveLeader(seat="p1", source="the_shire", target="fornost"))
    assert game.state.leaders["p1"] == ("fornost", "buckland")
    game.reject(MoveLeader(seat="p1", source="buckland", target="old_forest"), "leader_moved")


def test_no_leader_crosses_mountains() -> None:
    """002: "du får inte gå över berg eller floder, förutom via en bro"."""
    game = attacking(
        lotr({"p1": [*P1, "tower_hills"], "p2": P2}, leaders={"p1": ["the_shire"]}), "fornost"
    )
    game = with_barriers(game, {("the_shire", "tower_hills"): "mountain"})
    to_fortify(game)
    game.reject(
        MoveLeader(seat="p1", source="the_shire", target="tower_hills"), "mountains_impassable"
    )


# The Fellowship and the end ---------------------------------------------------------


def test_the_fellowship_moves_a_step_at_the_end_of_every_turn() -> None:
    """002: "Brödraskapet ... börjar sin färd i Fylke. I slutet av varje spelares tur flyttas
    det till nästa territorium längs färdvägen"."""
    # rule: 002-ring-start
    # rule: 002-five-phases
    game = attacking(lotr({"p1": P1, "p2": P2}, leaders={"p1": ["fornost"]}), "fornost")
    game.end_turn()
    moved = [e for e in game.events if isinstance(e, FellowshipMoved)]
    assert moved == [FellowshipMoved(seat="p1", roll=None, moved=True, step=1)]
    assert game.state.mode.view(game.state, None)["fellowship"]["territory"] == "buckland"


@pytest.mark.parametrize("step", [s for s, square in enumerate(ME.path) if square.needs_roll])
def test_a_marked_square_is_left_only_on_more_than_three(step: int) -> None:
    """002: "När brödraskapet är i ett territorium med en [ring] måste du slå tärningen innan
    brödraskapet flyttas. För att brödraskapet ska få fortsätta färden måste tärningen visa
    mer än 3. Om tärningsslaget misslyckas blir brödraskapet kvar"."""
    # rule: 002-fellowship-roll
    leaders = {"p1": ["fornost"], "p2": ["rhudaur"]}
    game = attacking(lotr({"p1": P1, "p2": P2}, leaders=leaders, steps=step), "fornost")
    start = len(game.events)
    to_fortify(game)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng([3]))
    assert game.state.fellowship == step
    game.place_all()
    to_fortify(game)
    game.do(cmd.EndPhase(seat="p2"), ScriptedRng([4]))
    assert game.state.fellowship == step + 1
    rolls = [e.roll for e in game.events[start:] if isinstance(e, FellowshipMoved)]
    assert rolls == [3, 4]


def test_unmarked_squares_need_no_roll() -> None:
    """The path's squares without the mark are left at once (no die is rolled)."""
    for step, square in enumerate(ME.path):
        if square.needs_roll:
            continue
        game = attacking(
            lotr({"p1": P1, "p2": P2}, leaders={"p1": ["fornost"]}, steps=step), "fornost"
        )
        to_fortify(game)
        game.do(cmd.EndPhase(seat="p1"), ScriptedRng([]))
        assert game.state.fellowship == step + 1, step


SCORED = {"p1": [*REGION["eriador"], *REGION["rhun"]], "p2": REGION["mirkwood"]}


def test_the_game_ends_when_the_ring_leaves_the_dead_marshes_and_the_score_decides() -> None:
    """002: "När brödraskapet lämnar Döda Träsken med Ringen, är spelet slut. Den spelare som
    har flest poäng vinner"; "1 poäng per territorium", "Extrapoäng om du har kontrollen över
    en hel region ... t.ex. Mörkmården = 4 poäng", "Ytterligare 2 poäng för varje befästning"."""
    # rule: 002-end-score
    # rule: 002-stronghold-points
    last = len(ME.path) - 1
    game = attacking(lotr(SCORED, leaders={"p1": ["the_shire"]}, steps=last), "the_shire")
    to_fortify(game)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng([4]))
    s = game.state
    assert s.phase == FINISHED and s.finish_reason == "fellowship_left"
    table = score_table(s)
    # Eriador 7 + Rhûn 4 territories, bonuses 3 + 2, Annúminas: 18. Mirkwood 5 + 4 + Dol
    # Guldur: 11. The rest (Arnor, Rohan, Rhovanion: 26, bonuses 16, four strongholds): 50.
    assert {p: row["total"] for p, row in table.items()} == {"p1": 18, "p2": 11, "p3": 50}
    assert s.winner == "p3" and s.winners == ("p3",)
    assert ranking(s) == ["p3", "p1", "p2"] == s.mode.view(s, None)["ranking"]
    (finished,) = [e for e in game.events if isinstance(e, ev.GameFinished)]
    assert finished.reason == "fellowship_left" and finished.winner == "p3"


def _duel(p1: Sequence[str], p2: Sequence[str], script: Sequence[int]) -> Game:
    """Two players and the neutral army (which holds the rest); the Fellowship leaves at the
    end of p1's turn (the first die of ``script``)."""
    game = lotr({"p1": p1, "p2": p2}, rest="n1", leaders={"p1": [p1[0]]}, steps=len(ME.path) - 1)
    attacking(game, p1[0])
    to_fortify(game)
    game.do(cmd.EndPhase(seat="p1"), ScriptedRng(script))
    assert game.state.phase == FINISHED
    return game


def test_a_tied_score_goes_to_the_most_territories() -> None:
    """002: "Om det blir oavgjort är det den spelare som har flest territorier som vinner"."""
    # rule: 002-tie-breaks
    plain = ["fornost", "old_forest", "buckland", "weather_hills", "south_downs", "borderlands"]
    game = _duel(REGION["rhun"], plain, [4])  # 4 + 2 against 6
    table = score_table(game.state)
    assert table["p1"]["total"] == table["p2"]["total"] == 6
    assert game.state.winner == "p2" and ranking(game.state) == ["p2", "p1"]


def test_then_to_the_most_strongholds() -> None:
    """002: "Om det fortfarande är oavgjort vinner den spelare som har flest befästningar"."""
    game = _duel(["fornost", "old_forest", "buckland", "rhudaur"], REGION["rhun"], [4])
    table = score_table(game.state)
    assert [table[p]["total"] for p in ("p1", "p2")] == [6, 6]
    assert [table[p]["territories"] for p in ("p1", "p2")] == [4, 4]
    assert game.state.winner == "p1"


def test_then_to_the_most_adventure_points() -> None:
    """002: "och om det ändå är oavgjort vinner den som har flest poäng på sina
    äventyrskort". (No adventure card is played yet: the points are put in by hand.)"""
    game = _duel(["fornost", "old_forest"], ["angmar", "north_downs"], [4, 1, 1, 1, 6, 6, 6])
    state = game.state.copy()
    state.mode_data["adventure_points"] = {"p1": 1}
    state.mode_data.pop("tie_winner")
    assert ranking(state) == ["p1", "p2"]


def test_at_last_three_dice_decide() -> None:
    """002: "Om det fortfarande är oavgjort slår ni de tre röda tärningarna. Den som får det
    högsta sammanlagda tärningsresultatet vinner"; level rolls are rolled again."""
    game = _duel(
        ["fornost", "old_forest"],
        ["angmar", "north_downs"],
        [4, 3, 3, 3, 4, 4, 1, 1, 1, 6, 6, 6, 6],
    )
    (tie,) = [e for e in game.events if isinstance(e, ScoreTieRolled)]
    assert tie.rounds == ({"p1": [3, 3, 3], "p2": [4, 4, 1]}, {"p1": [1, 1, 6], "p2": [6, 6, 6]})
    assert tie.winner == "p2" and game.state.winner == "p2"


def test_conquering_every_territory_ends_the_game_at_once() -> None:
    """002: "Obs! Om en spelare får kontrollen över alla territorier i Midgård innan
    brödraskapet lämnar spelplanen, vinner den spelaren"."""
    # rule: 002-all-territories
    game = attacking(
        lotr(
            {"p2": ["borderlands"], "p3": ["angmar"]},
            {"weather_hills": 10, "forodwaith": 10},
            rest="p1",
            leaders={"p1": ["the_shire"]},
        ),
        "fornost",
    )
    game.do(
        cmd.Attack(seat="p1", source="weather_hills", target="borderlands", dice=3),
        ScriptedRng([6, 6, 6, 1]),
    )
    game.do(cmd.Occupy(seat="p1", count=3))
    game.do(
        cmd.Attack(seat="p1", source="forodwaith", target="angmar", dice=3),
        ScriptedRng([6, 6, 6, 1]),
    )
    assert game.state.phase in (OCCUPY, FINISHED)
    if game.state.phase == OCCUPY:
        game.do(cmd.Occupy(seat="p1", count=3))
    assert game.state.phase == FINISHED
    assert game.state.winner == "p1" and game.state.finish_reason == "conquest"


# Whole games ----------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bots_play_it_to_the_end_and_the_record_verifies(n: int) -> None:
    seed = b"lotr %d" % n
    bots = [get_bot(name) for name in ("heuristic", "random", "heuristic", "random")[:n]]
    result = play_game(bots, seed=seed, mode="lotr")
    state = fold(result.events)
    assert state.phase == FINISHED and result.reason in ("fellowship_left", "conquest")
    assert replay(result, seed) == result.events
    verdict = verify_text(record_of(result, seed))
    assert verdict.ok, verdict.divergence


def test_random_legal_play_always_finishes() -> None:
    for i in range(6):
        game = new(2 + i % 3, mode="lotr", seed=b"walk %d" % i)
        rnd = random.Random(i)
        for _ in range(5000):
            if game.state.phase == FINISHED:
                break
            seat = game.state.mode.waiting_for(game.state)
            assert seat is not None
            actions = [
                a for a in legal_actions(game.state, seat) if a["command"]["type"] != "resign"
            ]
            game.body(seat, rnd.choice(actions)["command"])
        assert game.state.phase == FINISHED


# The odds of a battle under the bonuses ---------------------------------------------


@pytest.mark.parametrize(
    ("leaders", "dice", "bonus"),
    [
        ({"p1": ["weather_hills"]}, 1, (1, 1)),  # a leader attacks a stronghold
        ({"p2": ["rhudaur"]}, 2, (0, 2)),  # a leader holds a stronghold
        ({"p1": ["weather_hills"], "p2": ["rhudaur"]}, 3, (1, 2)),
    ],
)
def test_every_roll_of_a_battle_loses_what_the_odds_enumerate(
    leaders: Mapping[str, Sequence[str]], dice: int, bonus: tuple[int, int]
) -> None:
    """The engine's battles with a leader and a stronghold, over every roll of the dice, lose
    armies exactly as ``roll_outcomes`` counts them with the same bonuses (the odds of
    ``GET /v1/odds``), which the odds tests check against a brute force."""
    game = attacking(
        lotr({"p1": P1, "p2": P2}, {"weather_hills": 6, "rhudaur": 3}, leaders=leaders),
        "fornost",
    )
    defending = 1 if dice == 1 else 2
    counts: Counter[tuple[int, int]] = Counter()
    for roll in itertools.product(range(1, 7), repeat=dice + defending):
        fork = game.fork()
        resolved = battle_of(
            fork.do(
                cmd.Attack(seat="p1", source="weather_hills", target="rhudaur", dice=dice),
                ScriptedRng(roll),
            )
        )
        counts[resolved.attacker_losses, resolved.defender_losses] += 1
    total = 6 ** (dice + defending)
    expected = roll_outcomes(dice, defending, attacker_bonus=bonus[0], defender_bonus=bonus[1])
    assert {k: Fraction(v, total) for k, v in counts.items()} == expected


def test_a_resignation_while_leaders_are_placed_passes_the_placing_on() -> None:
    game = new(3, mode="lotr")
    while game.state.phase in (SETUP_CLAIM, SETUP_PLACE):
        game.do(setup_policy(game.state, game.current))
    first, second, third = game.state.order
    game.do(PlaceLeader(seat=first, territory=game.state.territories_of(first)[0]))
    game.do(cmd.Resign(seat=second))
    assert game.state.phase == SETUP_LEADER and game.current == third
    game.do(PlaceLeader(seat=third, territory=game.state.territories_of(third)[0]))
    assert game.state.phase == "reinforce" and game.current == first
    assert any(isinstance(e, ev.DeckShuffled) for e in game.events)


def test_a_manoeuvre_follows_a_path_of_own_territories_by_default() -> None:
    """002_84c66041fccdfcee.txt: a manoeuvre goes along territories the player holds
    (``fortify`` ``connected``, this mode's default): from Weather Hills through Fornost
    and Buckland to the Shire, never to Moria, which none of p1's territories borders."""
    # rule: 002-manoeuvre
    game = attacking(lotr({"p1": P1, "p2": P2}, {"weather_hills": 5}), "weather_hills")
    assert game.state.rules.fortify == "connected"
    to_fortify(game)
    game.reject(
        cmd.Fortify(seat="p1", source="weather_hills", target="moria", count=1), "not_connected"
    )
    game.do(cmd.Fortify(seat="p1", source="weather_hills", target="the_shire", count=2))
    assert game.state.troops("the_shire") == 3
