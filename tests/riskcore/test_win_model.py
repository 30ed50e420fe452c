"""The win model the strong bot's rollouts may end on (docs/bots.md, "The win
model"): each player's chance from features of the board, adding up to one,
and the bot's ``score`` option that chooses it. How much it helps is measured
against Domination's AI (docs/bots.md), not asserted here."""

from __future__ import annotations

import pytest

from riskcore.bots import get_bot
from riskcore.bots.strong import SearchConfig, score
from riskcore.bots.win_model import CLASSIC, FEATURES, WinModel, chances, features
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.simulate import play_game, turn_starts
from tests.riskcore.test_bots import _midgame


def _turn_starts(seed: bytes) -> tuple[list[State], str]:
    """The state at every turn start of a seeded four-player heuristic game, and its winner."""
    result = play_game([get_bot("heuristic") for _ in range(4)], seed=seed, rules=RuleSet())
    assert result.winner is not None
    starts = [state.copy() for state in turn_starts(result)]
    return starts, result.winner


def test_chances_add_up_to_one_over_the_players_still_in() -> None:
    state = _midgame(b"win-model")
    odds = chances(state, CLASSIC)
    assert set(odds) == set(state.active_players())
    assert sum(odds.values()) == pytest.approx(1.0)
    assert all(0 < p < 1 for p in odds.values())
    assert all(len(f) == len(FEATURES) for f in features(state).values())


def test_the_player_whose_turn_starts_is_marked_and_the_next_one() -> None:
    state = _midgame(b"win-model")
    read = features(state)
    mover, after = state.current, state.next_player(state.current or "")
    to_move, next_ = FEATURES.index("to_move"), FEATURES.index("next")
    assert [p for p, f in read.items() if f[to_move]] == [mover]
    assert [p for p, f in read.items() if f[next_]] == [after]


def test_the_winner_is_favoured_as_the_game_nears_its_end() -> None:
    """Over the last quarter of a seeded game's turn starts, the model gives the
    seat that went on to win well over an equal share (a quarter) on average, and
    more than over the first quarter."""
    starts, winner = _turn_starts(b"win-model-end")
    quarter = len(starts) // 4

    def mean(states: list[State]) -> float:
        return sum(chances(s, CLASSIC).get(winner, 0.0) for s in states) / len(states)

    assert mean(starts[-quarter:]) > 1 / 3
    assert mean(starts[-quarter:]) > mean(starts[:quarter]) + 0.1


def test_a_rollout_scores_the_seats_chance_when_the_bot_uses_the_model() -> None:
    state = _midgame(b"win-model")
    seat = state.current
    assert seat is not None
    modelled = SearchConfig(win_model=CLASSIC)
    assert score(state, seat, modelled) == pytest.approx(chances(state, CLASSIC)[seat])
    assert score(state, seat, SearchConfig()) != score(state, seat, modelled)


def test_the_score_option_names_a_model() -> None:
    bot = get_bot("strong", {"score": "classic"})
    assert bot.config.win_model == CLASSIC  # type: ignore[attr-defined]
    assert get_bot("strong", {"score": "share"}).config.win_model is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="score"):
        get_bot("strong", {"score": "oracle"})
    with pytest.raises(ValueError, match="weights"):
        WinModel(weights=(1.0,))


def test_the_fit_recovers_the_weights_games_were_drawn_from() -> None:
    """scripts/fit_win_model.py: winners drawn from a known conditional logit give
    those weights back (Newton's method on the log likelihood)."""
    np = pytest.importorskip("numpy")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "scripts" / "fit_win_model.py"
    spec = importlib.util.spec_from_file_location("fit_win_model", path)
    assert spec is not None and spec.loader is not None
    fitting = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fitting)
    rng = np.random.default_rng(7)
    truth = np.array([1.5, -0.8, 0.3])
    rows, seats = 20_000, 4
    x = rng.normal(size=(rows, 6, 3))
    mask = np.zeros((rows, 6), dtype=bool)
    mask[:, :seats] = True
    p = fitting.probabilities(truth, x, mask)
    winners = np.array([rng.choice(6, p=row) for row in p])
    y = np.zeros((rows, 6))
    y[np.arange(rows), winners] = 1.0
    fitted = fitting.fit(x, mask, y, 0.0)
    assert np.allclose(fitted, truth, atol=0.08)
