"""Forks ("continue from here", issue 37): a new game from a finished game's
position, verified on its own and against its parent's record."""

from __future__ import annotations

import pytest

from riskcore.audit.forks import check_parent
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.audit.verify import verify_text
from riskcore.bots.base import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.fork import fork_game
from riskcore.errors import RiskError
from riskcore.protocol import events as ev
from riskcore.simulate import play_game, record_of
from tests.riskcore.fork_games import AT, FORK_SEED, fork_record, head, parent


def test_the_fork_starts_from_the_parents_position_with_the_deck_drawn_again() -> None:
    result, record = parent()
    at = fold(result.events[:AT])
    opening = fork_game(at, parent_head=head(record), game_id="f", seed=FORK_SEED, names={})
    first, shuffled = opening
    assert isinstance(first, ev.GameForked) and isinstance(shuffled, ev.DeckShuffled)
    assert (first.parent_game_id, first.parent_version) == ("parent", AT)
    state = fold(opening)
    assert state.owner == at.owner and state.armies == at.armies and state.hands == at.hands
    assert (state.turn, state.current, state.phase) == (at.turn, at.current, at.phase)
    assert sorted(state.deck) == sorted(at.deck)
    other = fold(fork_game(at, parent_head="h", game_id="f", seed=b"another", names={}))
    assert other.deck != state.deck  # the order comes from the fork's own seed


def test_a_fork_replays_from_its_own_record() -> None:
    verdict = verify_text(fork_record())
    assert verdict.ok, verdict.divergence
    assert verdict.game_id == "fork"
    first = envelope_from_dict(parse_record(fork_record()).entries[0].envelope()).event
    assert isinstance(first, ev.GameForked) and first.seats[1]["name"] == "me"


def test_a_fork_verifies_against_its_parents_record() -> None:
    assert check_parent(fork_record(), parent()[1]) is None


def test_a_fork_is_refused_by_another_game_as_parent() -> None:
    bots = [get_bot("heuristic") for _ in range(3)]
    stranger = record_of(play_game(bots, seed=b"other", game_id="parent"), b"other")
    found = check_parent(fork_record(), stranger)
    assert found is not None and found.field == "parent_head"


def test_an_edited_position_fails_verification() -> None:
    lines = fork_record().splitlines()
    edited = lines[1].replace('"turn":', '"turn":1', 1)
    verdict = verify_text("\n".join([lines[0], edited, *lines[2:]]) + "\n")
    assert not verdict.ok and verdict.divergence is not None
    assert verdict.divergence.check == "chain"


def test_the_finished_position_cannot_be_forked() -> None:
    result, _ = parent()
    with pytest.raises(RiskError) as error:
        fork_game(fold(result.events), parent_head="h", game_id="f", seed=b"s", names={})
    assert error.value.code == "fork_at_end"


def test_a_position_inside_a_command_cannot_be_forked() -> None:
    """Between a blitz's last battle and its conquest the territory stands empty: no
    player ever decided there, so no fork starts there."""
    result, _ = parent()
    conquest = next(i for i, e in enumerate(result.events) if isinstance(e, ev.TerritoryConquered))
    emptied = fold(result.events[:conquest])  # the battle applied, the conquest not yet
    with pytest.raises(RiskError) as error:
        fork_game(emptied, parent_head="h", game_id="f", seed=b"s", names={})
    assert error.value.code == "fork_mid_command"
