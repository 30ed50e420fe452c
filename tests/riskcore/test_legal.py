"""``legal_actions``: every listed action is accepted, the bounds are tight, and play
built from the list alone always ends.

``legal_actions(state, seat)`` lists what a seat may do now (docs/engine.md, "Legal
actions"); bots and clients use it, and these tests check that every listed action is
accepted by ``decide``. The positions are those random legal play reaches.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from riskcore.engine.decide import decide
from riskcore.engine.legal import ActionGroup, command_values, legal_actions, of_type
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import (
    ATTACK,
    FINISHED,
    FORTIFY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    State,
)
from riskcore.protocol.commands import command_from_dict
from riskcore.simulate import acting_seat
from tests.riskcore.helpers import Game, Policy, card_of, new, position, split, step

CONFIGS = [
    pytest.param(3, RuleSet(), id="classic-3"),
    pytest.param(4, RuleSet(first_player="reroll", fortify="connected"), id="classic-4"),
    pytest.param(5, RuleSet(setup="deal", card_values="fixed"), id="classic-5"),
    pytest.param(
        6, RuleSet(conquest_min_move="survivors", elimination_trade_threshold=5), id="classic-6"
    ),
    pytest.param(4, RuleSet(defender_chooses_dice=True), id="defenders-choose"),
    pytest.param(2, RuleSet(), id="two-player"),
    pytest.param(2, RuleSet(defender_chooses_dice=True), id="two-player-choose"),
]


def bodies(action: dict[str, Any]) -> list[dict[str, Any]]:
    """The action as listed, and at each end of each numeric field's bounds."""
    out = [dict(action["command"])]
    for name, (low, high) in action["bounds"].items():
        assert low <= action["command"][name] <= high
        for value in (low, high):
            out.append({**action["command"], name: value})
    return out


def outside(action: dict[str, Any]) -> list[dict[str, Any]]:
    """The action with a numeric field just beyond its bounds."""
    return [
        {**action["command"], name: value}
        for name, (low, high) in action["bounds"].items()
        for value in (low - 1, high + 1)
    ]


def accepted(game: Game, seat: str, body: dict[str, Any]) -> bool:
    try:
        decide(game.state, command_from_dict(body, seat), game.rng())
    except RuleViolation:
        return False
    return True


def check_all(game: Game, seat: str) -> int:
    actions = legal_actions(game.state, seat)
    assert actions, f"{seat} must act but has no action: {game.state.summary()}"
    for action in actions:
        for body in bodies(action):
            assert accepted(game, seat, body), (body, game.state.summary())
        for body in outside(action):
            assert not accepted(game, seat, body), (body, game.state.summary())
    return len(actions)


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_every_listed_action_is_accepted_and_bounds_are_tight(n: int, rules: RuleSet) -> None:
    """Each listed command, at either end of its bounds, is accepted by ``decide``; one
    step beyond either end is refused."""
    rnd = random.Random(n)
    game = new(n, rules, seed=b"legal %d" % n)
    policy = Policy(wander=0.2)
    checked = 0
    phases = set()
    while game.state.phase != FINISHED:
        seat = acting_seat(game.state)
        assert seat is not None
        setup = game.state.phase in (SETUP_CLAIM, SETUP_PLACE)
        if rnd.random() < (0.02 if setup else 0.5):
            checked += check_all(game, seat)
            phases.add(game.state.phase)
        step(game, rnd, policy)
    assert checked > 1000
    assert {REINFORCE, ATTACK} <= phases


def listed(state: State, seat: str, kind: str, *fields: str) -> set[tuple[Any, ...]]:
    return {
        tuple(a["command"][f] for f in fields)
        for a in legal_actions(state, seat)
        if a["command"]["type"] == kind
    }


@pytest.mark.parametrize(("n", "rules"), CONFIGS[:2] + CONFIGS[4:6])
def test_the_list_is_complete(n: int, rules: RuleSet) -> None:
    """Nothing ``decide`` accepts is missing: every claim, placement, attack and fortify
    that is accepted is listed, territory by territory."""
    rnd = random.Random(10 + n)
    game = new(n, rules, seed=b"complete %d" % n)
    names = list(game.state.board.territory_names)
    pairs = [(a, b) for a in names for b in game.state.board.neighbours[a]]
    if rules.fortify == "connected":
        pairs = [(a, b) for a in names for b in names if a != b]
    checks = 0
    while game.state.phase != FINISHED and checks < 60:
        s, seat = game.state, acting_seat(game.state)
        assert seat is not None
        if rnd.random() < 0.2:
            checks += 1
            if s.phase == SETUP_CLAIM:
                ok = {(t,) for t in names if accepted(game, seat, claim(t))}
                assert ok == listed(s, seat, "claim_territory", "territory")
            if s.phase == REINFORCE and s.must_trade_until is None:
                ok = {(t,) for t in names if accepted(game, seat, place(t))}
                assert ok == listed(s, seat, "place_armies", "territory")
            if s.phase == ATTACK:
                ok = {p for p in pairs if accepted(game, seat, attack(*p))}
                assert ok == listed(s, seat, "attack", "source", "target")
            if s.phase == FORTIFY:
                ok = {p for p in pairs if accepted(game, seat, fortify(*p))}
                assert ok == listed(s, seat, "fortify", "source", "target")
        step(game, rnd, Policy(wander=0.3))


def claim(t: str) -> dict[str, Any]:
    return {"type": "claim_territory", "territory": t}


def place(t: str) -> dict[str, Any]:
    return {"type": "place_armies", "territory": t, "count": 1}


def attack(source: str, target: str) -> dict[str, Any]:
    return {"type": "attack", "source": source, "target": target, "dice": 1}


def fortify(source: str, target: str) -> dict[str, Any]:
    return {"type": "fortify", "source": source, "target": target, "count": 1}


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_only_the_seat_that_must_act_has_actions(n: int, rules: RuleSet) -> None:
    """003_281a902b564cb498.txt: "plaatst iedereen op zijn beurt": one seat acts at a time
    (the defender, while a defence is awaited)."""
    rnd = random.Random(20 + n)
    game = new(n, rules, seed=b"turns %d" % n)
    for _ in range(400):
        if game.state.phase == FINISHED:
            break
        acting = acting_seat(game.state)
        for seat in game.state.seats:
            actions = legal_actions(game.state, seat)
            assert bool(actions) == (seat == acting), (seat, acting, game.state.summary())
        step(game, rnd, Policy())
    assert legal_actions(game.state, "nobody") == []


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_random_play_from_the_list_alone_always_finishes(n: int, rules: RuleSet) -> None:
    """The last player left, owner of all 42 territories, wins (docs/rules.md, "Winning");
    in the two-player game, eliminating the other player wins ("The two-player game")."""
    for i in range(4):
        rnd = random.Random(i)
        game = new(n, rules, seed=b"finish %d %d" % (n, i))
        while game.state.phase != FINISHED:
            assert game.state.version < 60_000, game.state.summary()
            step(game, rnd, Policy(wander=0.1))
        winner = game.state.winner
        assert winner is not None and game.state.finish_reason == "conquest"
        players = [s for s, info in game.state.seats.items() if info.kind == "player"]
        assert all(game.state.out.get(p) == "eliminated" for p in players if p != winner)
        if game.state.mode.name == "classic":
            assert set(game.state.owner.values()) == {winner}
        else:
            assert set(game.state.owner.values()) <= {winner, "n1", "n2"}


def test_a_trade_with_two_pictured_territories_lists_a_choice_of_bonus() -> None:
    """docs/rules.md, "Reinforce" (003_281a902b564cb498.txt: "Je moet beide legers op dat specifieke
    gebied plaatsen"): with two traded cards picturing the player's territories, the player names
    one, so the list offers the set once per territory; with one, the set once."""
    peru, venezuela, siam = card_of("peru"), card_of("venezuela"), card_of("siam")
    owners = split({"p1": ["peru", "venezuela"], "p3": ["siam"]}, "p2")
    game = position(owners, hands={"p1": [peru, venezuela, siam]})
    trades = [a["command"] for a in legal_actions(game.state, "p1").of_type("trade_cards")]
    cards = sorted([peru, venezuela, siam])
    assert sorted(trades, key=lambda t: t["bonus_territory"]) == [
        {"type": "trade_cards", "cards": cards, "bonus_territory": "peru"},
        {"type": "trade_cards", "cards": cards, "bonus_territory": "venezuela"},
    ]
    owners = split({"p1": ["peru"], "p3": ["siam"]}, "p2")
    game = position(owners, hands={"p1": [peru, venezuela, siam]})
    trades = [a["command"] for a in legal_actions(game.state, "p1").of_type("trade_cards")]
    assert trades == [{"type": "trade_cards", "cards": cards}]


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_each_group_is_the_list_filtered_by_type(n: int, rules: RuleSet) -> None:
    """``of_type`` builds one group alone; it must hold exactly what the whole list holds
    of that type, in the same order, and ``types`` names the non-empty groups."""
    rnd = random.Random(30 + n)
    game = new(n, rules, seed=b"groups %d" % n)
    for _ in range(300):
        if game.state.phase == FINISHED:
            break
        seat = acting_seat(game.state)
        assert seat is not None
        whole = list(legal_actions(game.state, seat))
        kinds = [a["command"]["type"] for a in whole]
        grouped = legal_actions(game.state, seat)
        assert grouped.types() == list(dict.fromkeys(kinds))
        for kind in set(kinds) | {"attack", "blitz", "claim_territory"}:
            fresh = legal_actions(game.state, seat).of_type(kind)
            assert list(fresh) == [a for a in whole if a["command"]["type"] == kind]
            assert of_type(whole, kind) == list(fresh)
            for field in {name for a in fresh for name in a["command"]}:
                # Read from the entries where a group can: the same as the actions say.
                values = [a["command"][field] for a in fresh]
                assert command_values(fresh, field) == values == command_values(list(fresh), field)
        step(game, rnd, Policy())


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_a_group_builds_each_command_as_its_body_parses(n: int, rules: RuleSet) -> None:
    """``ActionGroup.command`` (what the random bot hands ``riskcore.simulate``) is the
    command ``command_from_dict`` makes of the action's body, and ``to_body`` gives that
    body back (the record keeps it), for every action of every group that builds them."""
    rnd = random.Random(50 + n)
    game = new(n, rules, seed=b"typed %d" % n)
    built = set()
    for _ in range(300):
        if game.state.phase == FINISHED:
            break
        seat = acting_seat(game.state)
        assert seat is not None
        actions = legal_actions(game.state, seat)
        for kind in actions.types():
            group = actions.of_type(kind)
            # (``type``, not ``isinstance``: on the compiled build an ABC's check from
            # interpreted code can answer from ``Sequence``'s cache, lists included.)
            if type(group) is not ActionGroup or not group.builds_commands:
                continue
            for index, action in enumerate(group):
                command = group.command(index, seat)
                assert command == command_from_dict(action["command"], seat)
                assert command.to_body() == action["command"]
                built.add(kind)
        step(game, rnd, Policy())
    assert {"place_armies", "attack", "occupy"} <= built


def test_a_list_read_after_the_game_moved_on_refuses_to_answer() -> None:
    """The list is built lazily from the state, so it must not silently describe a
    later version than the one it was made at."""
    game = new(3, RuleSet(), seed=b"stale")
    actions = legal_actions(game.state, acting_seat(game.state) or "")
    read_before = legal_actions(game.state, acting_seat(game.state) or "")
    assert read_before.of_type("claim_territory") and len(read_before) > 1  # built, cached
    step(game, random.Random(0), Policy())
    with pytest.raises(RuntimeError, match="list them again"):
        actions.of_type("claim_territory")
    with pytest.raises(RuntimeError, match="list them again"):
        read_before.of_type("claim_territory")
    with pytest.raises(RuntimeError, match="list them again"):
        list(read_before)
