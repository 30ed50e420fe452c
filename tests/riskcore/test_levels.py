"""Bot levels (issue 19): each level is a bot and its options, declared once;
``turn_ms`` is the strong bot's time per own turn, ``think_ms`` per decision."""

from __future__ import annotations

import json

import pytest

from riskcore.bots import Bot, get_bot
from riskcore.bots.heuristic import HeuristicBot, Params
from riskcore.bots.levels import LEVELS, bot_for, resolve
from riskcore.bots.strong import StrongBot
from riskcore.model.state import FORTIFY, OCCUPY, REINFORCE
from riskcore.simulate import play_game


def test_each_level_names_a_bot_that_takes_its_options() -> None:
    assert list(LEVELS) == ["easy", "medium", "hard"]
    easy = bot_for(None, "easy")
    assert isinstance(easy, HeuristicBot) and not easy.policy.params.hunt
    assert HeuristicBot().policy.params.hunt  # easy is the heuristic without its plans
    medium, hard = bot_for(None, "medium"), bot_for("strong", "hard")
    assert isinstance(medium, StrongBot) and isinstance(hard, StrongBot)
    # issue 34's think-time targets: 0.25 s and 1 s of CPU a turn
    assert medium.config.turn_time == 0.25 and hard.config.turn_time == 1.0
    assert medium.config.clock == hard.config.clock == "cpu"
    assert medium.config.turn_rollouts is not None and hard.config.turn_rollouts is not None
    assert hard.config.turn_rollouts > medium.config.turn_rollouts
    # issue 34's fourth round: both search trades and take an alternative at half
    # a standard error (docs/bots.md, "Fourth round")
    # and (the eighth round) search only the placing of reinforcements and the
    # armies moved in: claims and attacks are the heuristic's ("Eighth round")
    for strong in (medium, hard):
        assert strong.config.trades and strong.config.confidence == 0.5
    assert medium.config.searched == {REINFORCE, OCCUPY}
    # issue 52: hard searches its fortify too (docs/bots.md, "What pays at hard");
    # both play the plain heuristic
    assert hard.config.searched == {REINFORCE, OCCUPY, FORTIFY}
    assert hard.policy.params == medium.policy.params == Params()
    # and, where a game ends on points (Lord of the Rings), hard's rollouts score them
    # as the end nears; medium's, the strength alone (docs/bots.md, "Levers at hard")
    assert hard.config.weights.points == 1.0 and medium.config.weights.points == 0.0
    # medium's placing may take most of its turn's time ("Eighth round")
    assert medium.config.place_share == 0.7 and hard.config.place_share is None


def test_levels_are_published_as_plain_json() -> None:
    """The API lists the levels with their options (``GET /board/{name}``): the
    published options, read back from JSON, make the same bot."""
    published = json.loads(json.dumps([level.public() for level in LEVELS.values()]))
    assert [p["level"] for p in published] == list(LEVELS)
    for entry in published:
        declared, rebuilt = bot_for(None, entry["level"]), get_bot(entry["bot"], entry["options"])
        if isinstance(declared, StrongBot):
            assert isinstance(rebuilt, StrongBot) and rebuilt.config == declared.config
            assert rebuilt.rivals.params == declared.rivals.params
        else:
            assert isinstance(declared, HeuristicBot) and isinstance(rebuilt, HeuristicBot)
            assert rebuilt.policy.params == declared.policy.params


def test_a_bot_and_a_level_must_agree() -> None:
    assert resolve("strong", None) == ("strong", None)
    with pytest.raises(ValueError, match="plays the heuristic bot"):
        resolve("strong", "easy")
    with pytest.raises(ValueError, match="unknown level 'expert'"):
        resolve(None, "expert")


def test_think_ms_is_the_strong_bots_budget_and_others_take_no_options() -> None:
    bot = get_bot("strong", {"think_ms": 250})
    assert isinstance(bot, StrongBot) and bot.config.time_budget == 0.25
    assert get_bot("strong").config.time_budget is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="does not take options"):
        get_bot("heuristic", {"think_ms": 10})
    with pytest.raises(ValueError, match="think_ms must be a positive integer"):
        get_bot("strong", {"think_ms": 0})
    per_turn = get_bot("strong", {"turn_ms": 300, "turn_rollouts": 50, "clock": "cpu"})
    assert isinstance(per_turn, StrongBot)
    assert (per_turn.config.turn_time, per_turn.config.turn_rollouts) == (0.3, 50)
    assert per_turn.config.clock == "cpu"
    for bad in ({"turn_ms": -1}, {"turn_rollouts": True}, {"horizon": -1}, {"clock": "sun"}):
        with pytest.raises(ValueError, match="must be"):
            get_bot("strong", bad)


def test_a_time_bound_strong_bot_finishes_its_game() -> None:
    """5 ms a decision with room for 100,000 rollouts: only the time budget can end
    each search, so the game finishing at all (within the test timeout) shows it binds."""
    bots = [get_bot("strong", {"think_ms": 5, "iterations": 100_000}), get_bot("heuristic")]
    result = play_game([*bots, get_bot("heuristic")], seed=b"levels", game_id="lv")
    assert result.winner is not None and result.commands > 0


def test_an_iteration_bound_strong_bot_replays_identically() -> None:
    """Without a time budget the strong bot is a function of the seed."""

    def seated() -> list[Bot]:
        return [get_bot("strong", {"iterations": 2}), get_bot("random"), get_bot("random")]

    first = play_game(seated(), seed=b"r", game_id="r")
    assert first.events == play_game(seated(), seed=b"r", game_id="r").events


def test_a_turn_rollout_bound_strong_bot_replays_identically() -> None:
    """A budget per turn in rollouts (``turn_rollouts``) is a node budget: the same
    seed gives the same game, unlike ``turn_ms``."""

    def seated() -> list[Bot]:
        return [get_bot("strong", {"turn_rollouts": 12}), get_bot("random"), get_bot("random")]

    first = play_game(seated(), seed=b"t", game_id="t")
    assert first.events == play_game(seated(), seed=b"t", game_id="t").events
