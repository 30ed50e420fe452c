"""The game analysis (riskcore.analysis, issue 37) on real played games.

A short three-player game (two heuristic bots and a random one) is played,
written as a record and read back, as ``risk analyse`` reads it.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from riskcore.analysis import analyse
from riskcore.analysis.decisions import judge, options
from riskcore.analysis.positions import read_game
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import Envelope, envelope_from_dict
from riskcore.bots.base import get_bot
from riskcore.engine.decide import decide
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import play_game, record_of

SEED = b"an1"  # 20 turns, won by p1


@cache
def game() -> tuple[Envelope, ...]:
    bots = [get_bot("heuristic"), get_bot("random"), get_bot("heuristic")]
    result = play_game(bots, seed=SEED, game_id="t")
    record = parse_record(record_of(result, SEED))
    return tuple(envelope_from_dict(entry.envelope()) for entry in record.entries)


@cache
def report(seed: str = "s") -> str:
    return json.dumps(analyse(list(game()), depth=2, seed=seed, head="h"), sort_keys=True)


def test_the_same_seed_and_depth_give_the_same_analysis() -> None:
    again = analyse(list(game()), depth=2, seed="s", head="h")
    assert json.dumps(again, sort_keys=True) == report()


def test_the_graph_has_a_point_per_turn_and_ends_in_the_result() -> None:
    found = json.loads(report())
    turns = [p["turn"] for p in found["points"][:-1]]
    assert turns == list(range(1, len(turns) + 1))
    assert found["points"][-1]["chances"] == {"p1": 1.0, "p2": 0.0, "p3": 0.0}
    for point in found["points"]:
        assert abs(sum(point["chances"].values()) - 1.0) < 1e-6
    assert found["players"]["p1"]["won"] and not found["players"]["p2"]["won"]


def test_a_costly_decision_names_a_legal_better_move_that_played_out_better() -> None:
    """The game's moves are judged until one is found costly: its better move
    is legal there and did better on the same dice."""
    moves = [m for t in read_game(list(game())).turns for m in t.moves]
    verdicts = (judge(move, b"key", 3) for move in moves if options(move))
    found = next((v for v in verdicts if v is not None), None)
    assert found is not None, "no costly move in the game"
    move = next(m for m in moves if m.version == found["version"])
    assert found["better_chance"] > found["played_chance"] and found["cost"] > 0
    assert found["better"] in options(move)[1:] and found["played"] == options(move)[0]
    command = command_from_dict(found["better"], move.seat)
    assert decide(move.before, command, GameRng(SEED, "t", move.version))  # a legal move


def test_the_report_lists_judged_decisions_with_their_turn() -> None:
    found = json.loads(report())
    for decision in found["decisions"]:
        assert decision["better_chance"] - decision["played_chance"] == pytest.approx(
            decision["cost"], abs=0.002
        )
    listed = {v for point in found["turning_points"] for v in point["decisions"]}
    assert listed <= {d["version"] for d in found["decisions"]}


def test_a_game_that_has_not_ended_is_refused() -> None:
    running = list(game())[:-30]
    with pytest.raises(ValueError, match="finished"):
        analyse(running, depth=1)


@pytest.mark.parametrize("depth", [0, 65])
def test_depth_out_of_range_is_refused(depth: int) -> None:
    with pytest.raises(ValueError, match="depth"):
        analyse(list(game()), depth=depth)
