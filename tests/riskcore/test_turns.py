"""Leaving a game: resignations and what the turn order does about them.

The rule books have no resignation; docs/rules.md, "Winning" (the last player left
wins) and the ``PlayerResigned`` event's contract ("it takes no more turns. Its
armies stay on the board, passive, until conquered; its cards go to the discard pile")
are what these tests hold the engine to.
"""

from __future__ import annotations

from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, DEFEND, OCCUPY, REINFORCE, SETUP_CLAIM
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from tests.riskcore.helpers import (
    CLASSIC,
    Game,
    ScriptedRng,
    cards_with,
    new,
    position,
    split,
)

INFANTRY = cards_with("infantry")


def three(rules: RuleSet | None = None, hands: dict[str, list[int]] | None = None) -> Game:
    """p1 (Brazil 5, Peru) to play; p3 holds North Africa (3) and Egypt; p2 the rest."""
    owners = split({"p1": ["brazil", "peru"], "p3": ["north_africa", "egypt"]}, "p2")
    return position(owners, {"brazil": 5, "north_africa": 3}, rules=rules, hands=hands)


def test_resigning_on_your_turn_passes_the_turn_and_discards_the_hand() -> None:
    """``PlayerResigned``: "it takes no more turns ... its cards go to the discard pile"."""
    game = three(hands={"p1": INFANTRY[:2]})
    events = game.do(cmd.Resign(seat="p1"))
    assert events[:2] == [
        ev.PlayerResigned(seat="p1", reason="resigned", discarded=tuple(INFANTRY[:2])),
        ev.TurnEnded(seat="p1"),
    ]
    assert isinstance(events[2], ev.TurnStarted) and events[2].seat == "p2"
    assert game.state.discard == INFANTRY[:2] and game.state.hands["p1"] == []
    assert game.state.out == {"p1": "resigned"}
    assert game.state.owner["brazil"] == "p1" and game.state.troops("brazil") == 5
    game.reject(cmd.EndPhase(seat="p1"), "player_out")
    game.reject(cmd.Resign(seat="p1"), "player_out")
    game.place_all()
    game.end_turn()
    assert game.current == "p3"
    game.place_all()
    game.end_turn()
    assert game.current == "p2"  # p1 is skipped


def test_resigning_out_of_turn_leaves_the_turn_alone() -> None:
    """``PlayerResigned``: a seat may leave at any time; the player on turn plays on."""
    game = three()
    (resigned,) = game.do(cmd.Resign(seat="p3"))
    assert resigned == ev.PlayerResigned(seat="p3", reason="resigned", discarded=())
    assert game.current == "p1" and game.state.phase == REINFORCE


def test_a_resigned_players_armies_defend_with_the_most_dice_until_conquered() -> None:
    """The armies "stay on the board, passive, until conquered"."""
    game = three(rules=RuleSet(defender_chooses_dice=True))
    game.do(cmd.Resign(seat="p3"))
    game.place_all("brazil")
    rng = ScriptedRng([6, 6, 6, 1, 1, 6, 6, 6, 1])
    first = game.do(cmd.Attack(seat="p1", source="brazil", target="north_africa"), rng)
    (resolved,) = first  # nobody is asked to defend
    assert isinstance(resolved, ev.BattleResolved) and resolved.defender_dice == (1, 1)
    game.do(cmd.Attack(seat="p1", source="brazil", target="north_africa"), rng)
    assert game.state.phase == OCCUPY
    game.do(cmd.Occupy(seat="p1", count=3))
    assert game.state.owner["north_africa"] == "p1"


def test_the_last_player_left_wins_by_resignation() -> None:
    """The last player left wins (docs/rules.md, "Winning")."""
    game = three()
    game.do(cmd.Resign(seat="p2"))
    events = game.do(cmd.Resign(seat="p1"))
    assert events[-1] == ev.GameFinished(
        winner="p3", reason="resignation", seed=game.seed.hex(), winners=("p3",)
    )
    assert game.state.winner == "p3"


def test_a_defender_who_resigns_is_rolled_for() -> None:
    """docs/rules.md, "Attack": the defender's dice default to the most allowed; a defender who
    leaves while asked is rolled for with it."""
    game = three(rules=RuleSet(defender_chooses_dice=True))
    game.place_all("brazil")
    game.do(cmd.Attack(seat="p1", source="brazil", target="north_africa"))
    assert game.state.phase == DEFEND
    events = game.do(cmd.Resign(seat="p3"), ScriptedRng([1, 1, 1, 6, 6]))
    assert isinstance(events[-1], ev.BattleResolved)
    assert events[-1].defender_dice == (6, 6) and events[-1].attacker_losses == 2
    assert game.state.phase == ATTACK


def test_resigning_during_the_claim_lets_the_others_claim_on() -> None:
    """003_281a902b564cb498.txt: "plaatst iedereen op zijn beurt een leger op een onbezet gebied.
    Ga door tot alle 42 gebieden zijn opgeëist": those still playing claim on."""
    game = new(4)
    quitter = game.state.order[1]
    game.do(cmd.Resign(seat=quitter))
    assert game.state.phase == SETUP_CLAIM
    seen = set()
    while game.state.phase == SETUP_CLAIM:
        seen.add(game.current)
        free = next(t for t in CLASSIC.territory_names if t not in game.state.owner)
        game.do(cmd.ClaimTerritory(seat=game.current, territory=free))
    assert quitter not in seen and len(seen) == 3
    assert len(game.state.owner) == 42


def test_resigning_while_occupying_leaves_no_empty_territory() -> None:
    """001_c708159c204162c3.txt: "Minst en armé måste alltid ockupera varje territorium under
    spelet". ``turns.resign`` ends the turn without the pending occupation: the conquered
    territory stays owned by the resigned seat with 0 armies, ``occupation`` stays set, and
    a later attack on it (which ``legal_actions`` lists) crashes in ``compare_dice`` with no
    defender dice."""
    game = three()
    game.place_all("brazil")
    game.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1, 1])
    )
    game.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1])
    )
    assert game.state.phase == OCCUPY
    game.do(cmd.Resign(seat="p1"))
    assert all(game.state.troops(t) >= 1 for t in game.state.owner)
    assert game.state.occupation is None


def test_resignations_during_the_claim_never_leave_territories_unclaimed() -> None:
    """003_281a902b564cb498.txt: "Ga door tot alle 42 gebieden zijn opgeëist". With six
    players (20 armies each), four resign at once: the two left hold 40 armies for 42
    territories. ``begin_play_if_placed`` starts the game anyway with two territories
    unowned; an attack on one (listed by ``legal_actions``) raises KeyError in
    ``battle.battle`` (``s.owner[target]``)."""
    game = new(6)
    for seat in ("p1", "p2", "p3", "p4"):
        game.do(cmd.Resign(seat=seat))
    while game.state.phase == SETUP_CLAIM:
        free = next(t for t in CLASSIC.territory_names if t not in game.state.owner)
        game.do(cmd.ClaimTerritory(seat=game.current, territory=free))
    assert len(game.state.owner) == 42


def test_the_server_abandons_a_game_with_no_winner_and_only_once() -> None:
    """docs/rules.md, "Resigning and timeouts": a game nobody plays is ended as abandoned,
    no winner, the seed revealed; an ended game cannot be abandoned again."""
    from riskcore.protocol import commands as cmd
    from tests.riskcore.helpers import new

    game = new(3)
    events = game.do(cmd.Abandon(seat="system"))
    assert [e.TYPE for e in events] == ["game_finished"]
    s = game.state
    assert s.phase == "finished" and s.winner is None and s.winners == ()
    assert s.finish_reason == "abandoned" and s.revealed_seed is not None
    game.reject(cmd.Abandon(seat="system"), "game_finished")
