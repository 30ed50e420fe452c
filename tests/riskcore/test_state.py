"""What ``State`` keeps derived from ``owner`` (``held_by``, ``borders``) stays true.

The rules list a seat's territories and its attacks on nearly every move, so
``State`` keeps both (issue 18) and brings them up to date where a territory
changes hands (docs/rules.md, "Conquest"; in the team game control follows the
most armies, "The team game"). These tests replay seeded games of every mode
event by event and compare what is kept with what ``owner`` says at that moment.
"""

from __future__ import annotations

import random

import pytest

from riskcore.bots import get_bot
from riskcore.engine.evolve import apply, fold
from riskcore.engine.snapshot import decode_state, encode_state
from riskcore.model.state import FIELD_NAMES, State
from riskcore.simulate import play_game

MODES = {
    "classic": 4,
    "two_player": 2,
    "two_player_active": 2,
    "team": 4,
    "middle_earth": 4,
    "lotr": 4,
    "secret_missions": 4,
    "mission_game": 4,
}


def held_afresh(state: State, player: str | None) -> list[str]:
    return [t for t, holder in state.owner.items() if holder == player]


def borders_afresh(state: State, territory: str) -> tuple[tuple[str, str | None], ...]:
    holder = state.owner.get(territory)
    return tuple(
        (t, state.owner.get(t))
        for t in state.board.neighbours[territory]
        if state.owner.get(t) != holder
    )


def check_kept(state: State, asked: random.Random | None) -> None:
    """Everything kept equals a fresh count. Then ask again: for all of it (the
    next events must bring every list and border up to date, not just drop
    them), or with ``asked`` for a few players and territories only, as the
    rules do (lists and borders of some, none of others)."""
    for player, held in state.held.items():
        assert held == held_afresh(state, player)
    for territory, borders in state.frontier.items():
        assert borders == borders_afresh(state, territory)
    if state.places:
        assert list(state.places) == list(state.owner)
    players = [*state.seats, None]
    territories = list(state.owner)
    if asked is not None:
        players = asked.sample(players, asked.randint(0, 2))
        territories = asked.sample(territories, min(len(territories), asked.randint(0, 6)))
    for player in players:
        assert state.held_by(player) == held_afresh(state, player)
    for territory in territories:
        assert state.borders(territory) == borders_afresh(state, territory)


@pytest.mark.parametrize("partly", [False, True], ids=["all asked", "some asked"])
@pytest.mark.parametrize("mode", list(MODES))
def test_what_a_state_keeps_of_owner_is_true_after_every_event(mode: str, partly: bool) -> None:
    bots = [get_bot("random") for _ in range(MODES[mode])]
    result = play_game(
        bots, seed=b"kept " + mode.encode(), game_id="g", mode=mode, max_commands=1_500
    )
    asked = random.Random(mode) if partly else None
    state = fold(result.events[:1])
    changed_hands = 0
    for event in result.events[1:]:
        before = dict(state.owner)
        apply(state, event)
        changed_hands += before != state.owner
        check_kept(state, asked)
    assert changed_hands > 20


def test_the_kept_lists_are_no_part_of_the_game() -> None:
    """A copy starts without them, equality and snapshots ignore them: they are a cache."""
    result = play_game([get_bot("random") for _ in range(3)], seed=b"kept", game_id="g")
    state = fold(result.events)
    state.held_by("p1")
    state.borders(next(iter(state.owner)))
    assert state.held and state.frontier
    copy = state.copy()
    assert copy == state and not copy.held and not copy.frontier
    assert {"held", "frontier", "places"}.isdisjoint(FIELD_NAMES)
    restored = decode_state(encode_state(state))
    assert restored == state and not restored.held and not restored.frontier
    assert encode_state(restored) == encode_state(state.copy())


def test_territories_of_is_the_callers_own_list() -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=b"kept", game_id="g")
    state = fold(result.events[:400])
    assert state.phase not in ("setup_claim", "setup_place", "finished")
    seat = state.current
    mine = state.territories_of(seat)
    mine.clear()
    assert state.held_by(seat) == held_afresh(state, seat) != []
