"""A seat's standing on the points a scored game ends on (riskcore/bots/end_score.py).

docs/rules.md, Lord of the Rings Risk, "The end" (002_84c66041fccdfcee.txt: the game
ends when the Fellowship has left the last square, and the highest score wins: a point
a territory, each whole region's bonus, two a stronghold, and the adventure points).
The strong bot mixes the seat's share of those points into its score as the end nears.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import islice

import pytest

from riskcore.bots import get_bot
from riskcore.bots.end_score import standing
from riskcore.bots.evaluate import DEFAULT_WEIGHTS, Weights, evaluate
from riskcore.bots.strong import SearchConfig, score
from riskcore.bots.win_model import MODELS
from riskcore.engine.evolve import fold
from riskcore.model.state import FINISHED, State
from riskcore.simulate import play_game, turn_starts


def _positions(seed: bytes, mode: str = "lotr") -> list[State]:
    """The position after every 40th event of a random game."""
    game = play_game([get_bot("random") for _ in range(3)], seed=seed, mode=mode)
    return [fold(game.events[:end]) for end in range(40, len(game.events), 40)]


def test_the_standing_is_the_share_of_the_points_and_the_fellowships_way() -> None:
    seen_moving = False
    for state in _positions(b"end-score"):
        if state.phase == FINISHED:
            continue
        table = state.mode.view(state, None)["scores"]
        active = state.active_players()
        total = sum(table[p]["total"] for p in active)
        shares = {p: standing(state, p) for p in active}
        for player, found in shares.items():
            assert found is not None
            share, near = found
            assert share == pytest.approx(table[player]["total"] / total)
            assert near == pytest.approx(min(1.0, (state.fellowship or 0) / len(state.board.path)))
            seen_moving = seen_moving or 0 < near < 1
        assert sum(s for s, _ in shares.values() if s is not None) == pytest.approx(1.0)
    assert seen_moving


def test_the_points_weigh_more_as_the_end_nears_and_only_where_a_game_ends_on_them() -> None:
    weights = Weights(points=1.0)
    weighed = []
    for state in _positions(b"end-weigh"):
        if state.phase == FINISHED or state.current is None:
            continue
        seat = state.current
        found = standing(state, seat)
        assert found is not None
        share, near = found
        plain = evaluate(state, seat)
        assert evaluate(state, seat, weights) == pytest.approx((1 - near) * plain + near * share)
        weighed.append(near)
    assert any(near > 0 for near in weighed) and min(weighed) == 0  # from the start on
    # Regular Risk on the Middle-earth board has the path on its map but no scored end.
    for mode in ("classic", "middle_earth"):
        for state in _positions(b"end-" + mode.encode(), mode)[:5]:
            seat = state.order[0]
            assert standing(state, seat) is None
            assert evaluate(state, seat, weights) == evaluate(state, seat, DEFAULT_WEIGHTS)


def test_the_share_of_points_is_a_strong_bot_option() -> None:
    bot = get_bot("strong", {"points": 0.5})
    assert bot.config.weights.points == 0.5  # type: ignore[attr-defined]
    for wrong in (-1, 2, "1", False):
        with pytest.raises(ValueError, match="points"):
            get_bot("strong", {"points": wrong})


def test_where_no_game_ends_on_points_the_option_leaves_every_other_score_alone() -> None:
    """``points`` in classic: the win model's chance and the powered share are scored as
    without it (the mode has no points to mix in)."""
    game = play_game([get_bot("random") for _ in range(3)], seed=b"end-other")
    for state in islice(turn_starts(game), 3, 8):  # (one state, updated in place)
        seat = state.current
        assert seat is not None
        for config in (SearchConfig(win_model=MODELS["classic"]), SearchConfig(power=2.0)):
            with_points = replace(config, weights=Weights(points=1.0))
            assert score(state, seat, with_points) == score(state, seat, config)
