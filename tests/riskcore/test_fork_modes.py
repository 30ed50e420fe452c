"""Forks of every mode (issue 53): a finished game of any mode continues from any
version, its hidden piles drawn again from the fork's own seed, and the fork
verifies alone and against its parent, as `risk verify --parent` checks it."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from riskcore.audit.forks import check_parent
from riskcore.audit.verify import verify_text
from riskcore.bots.base import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.fork import fork_game
from riskcore.errors import RiskError
from riskcore.model.options import RuleSet
from riskcore.model.state import FINISHED
from riskcore.modes import BUILT_IN_MODES, GameMode, mode_named
from riskcore.modes.adventure import AdventureDeckShuffled
from riskcore.protocol import events as ev
from riskcore.simulate import play_game, record_of
from tests.riskcore.fork_games import command_ends, head, play_on, recorded_events
from tests.strategies import rule_sets, seeds


@pytest.mark.parametrize("mode", BUILT_IN_MODES)
@settings(max_examples=2, deadline=None)
@given(data=st.data(), rules=rule_sets(), seed=seeds, fork_seed=seeds, cut=st.floats(0, 1))
def test_a_fork_of_any_mode_at_any_version_plays_on_and_verifies(
    mode: str, data: st.DataObject, rules: RuleSet, seed: bytes, fork_seed: bytes, cut: float
) -> None:
    """Random games of every mode, forked at a random version between commands: the
    fork starts from the parent's position, plays to its end, replays from its own
    record and is the parent's at that version."""
    players = data.draw(st.integers(*mode_named(mode).players), label="players")
    bots = [get_bot("random") for _ in range(players)]
    parent = play_game(bots, seed=seed, game_id="parent", mode=mode, rules=rules)
    assume(parent.reason is not None)  # a game stopped at the command cap never ends
    record = record_of(parent, seed)
    ends = command_ends(parent)
    at = ends[min(int(cut * len(ends)), len(ends) - 1)]
    position = fold(recorded_events(record)[:at])
    opening = fork_game(
        position, parent_head=head(record), game_id="fork", seed=fork_seed, names={}
    )
    start = fold(opening)
    for pile in position.mode.hidden_piles:
        assert sorted(getattr(start, pile)) == sorted(getattr(position, pile)), pile
    assert (start.owner, start.armies, start.phase) == (
        position.owner,
        position.armies,
        position.phase,
    )
    fork = play_on(opening, fork_seed, "fork", "random")
    assume(fork.reason is not None)  # as the parent: a fork may stall at the cap too
    fork_text = record_of(fork, fork_seed)
    verdict = verify_text(fork_text)
    assert verdict.ok, verdict.divergence
    assert check_parent(fork_text, record) is None


def lotr_game() -> tuple[list[ev.Event], str]:
    """A finished 3-player Lord of the Rings game (the adventure deck of the mode)."""
    bots = [get_bot("random") for _ in range(3)]
    result = play_game(bots, seed=b"lotr", game_id="parent", mode="lotr")
    record = record_of(result, b"lotr")
    return recorded_events(record), record


def test_a_lord_of_the_rings_fork_draws_its_adventure_pile_again() -> None:
    """The adventure pile is as secret as the draw pile: the fork's position holds it in
    card order and its own seed shuffles it (issue 53: once refused, fork_not_supported)."""
    events, record = lotr_game()
    at = len(events) // 2
    position = fold(events[:at])
    assert position.adventure_deck
    opening = fork_game(position, parent_head=head(record), game_id="f", seed=b"one", names={})
    first, *shuffles = opening
    assert isinstance(first, ev.GameForked)
    assert first.position["adventure_deck"] == sorted(position.adventure_deck)
    assert [type(e) for e in shuffles] == [ev.DeckShuffled, AdventureDeckShuffled]
    assert isinstance(shuffles[1], AdventureDeckShuffled) and shuffles[1].purpose == "fork"
    one = fold(opening)
    other = fold(fork_game(position, parent_head="h", game_id="f", seed=b"two", names={}))
    assert sorted(one.adventure_deck) == sorted(other.adventure_deck)
    assert one.adventure_deck != other.adventure_deck  # the order comes from the fork's seed
    assert one.adventure_hands == position.adventure_hands


@pytest.mark.parametrize("where", ["middle", "last_but_one"])
def test_a_finished_lord_of_the_rings_game_forks_and_the_fork_verifies(where: str) -> None:
    events, record = lotr_game()
    at = len(events) // 2 if where == "middle" else len(events) - 1
    position = fold(events[:at])
    assert position.phase != FINISHED
    opening = fork_game(position, parent_head=head(record), game_id="f", seed=b"f", names={})
    fork = play_on(opening, b"f", "f")
    text = record_of(fork, b"f")
    verdict = verify_text(text)
    assert verdict.ok, verdict.divergence
    assert check_parent(text, record) is None


class _KeepsItsPile(GameMode):
    """A mode that would not draw an adventure pile again (never registered; a subclass
    of GameMode, which the compiled build lets tests subclass)."""

    name = "keeps_its_pile"
    hidden_piles = ("deck",)


def test_a_pile_the_mode_does_not_draw_again_is_refused() -> None:
    events, _ = lotr_game()
    position = fold(events[: len(events) // 2])
    position.mode = _KeepsItsPile()
    with pytest.raises(RiskError) as error:
        fork_game(position, parent_head="h", game_id="f", seed=b"s", names={})
    assert error.value.code == "fork_not_supported"
