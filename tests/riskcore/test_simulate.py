"""In-process games with bots (``riskcore.simulate``): they end, replay and audit.

004_780a86783e2219ae.txt: "Fortsett spille til en spiller eliminerer alle motstandere
og fanger alle de 42 territorier"; anyone holding the record can
recompute every roll and shuffle (docs/rules.md, "Fair dice").
"""

from __future__ import annotations

import random

import pytest

from riskcore.bots import Bot, bot_names, get_bot
from riskcore.engine.decide import decide
from riskcore.engine.evolve import apply, fold
from riskcore.model.options import RuleSet
from riskcore.model.state import DEFEND, FINISHED
from riskcore.protocol import events as ev
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import GameResult, acting_seat, bot_rng, play_game
from tests.riskcore.helpers import position, split


def randoms(n: int) -> list[Bot]:
    return [get_bot("random") for _ in range(n)]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_bots_play_a_classic_game_to_a_winner(n: int) -> None:
    """004_780a86783e2219ae.txt: "Fortsett spille til en spiller eliminerer alle motstandere og
    fanger alle de 42 territorier"."""
    result = play_game(randoms(n), seed=b"sim %d" % n)
    assert result.winner in {f"p{i}" for i in range(1, n + 1)}
    assert result.reason == "conquest"
    state = fold(result.events)
    assert state.phase == FINISHED and state.winner == result.winner
    assert set(state.owner.values()) == {result.winner}
    assert result.turns == state.turn
    assert result.seats == {f"p{i}": "random" for i in range(1, n + 1)}


def test_random_bots_play_the_two_player_game_to_a_winner() -> None:
    """000_ed9208fe5525be2d.txt: "Spelets Mål Att besegra motståndaren"."""
    rules = RuleSet(defender_chooses_dice=True)
    result = play_game(randoms(2), seed=b"two", mode="two_player", rules=rules)
    assert result.winner in {"p1", "p2"} and result.reason == "conquest"
    assert fold(result.events).out[{"p1": "p2", "p2": "p1"}[result.winner]] == "eliminated"


def test_the_same_seed_replays_the_same_game_and_another_does_not() -> None:
    """simulate.py: "Bot generators are seeded per game and turn so a game replays identically
    from its seed"."""
    one = play_game(randoms(4), seed=b"same", game_id="g")
    again = play_game(randoms(4), seed=b"same", game_id="g")
    other = play_game(randoms(4), seed=b"other", game_id="g")
    renamed = play_game(randoms(4), seed=b"same", game_id="h")
    assert again.events == one.events and again.batches == one.batches
    assert other.events != one.events
    assert renamed.events[1:] != one.events[1:]


def test_player_seeds_change_the_game() -> None:
    """The generator is mixed with the players' seeds (docs/rules.md, "Fair dice")."""
    plain = play_game(randoms(3), seed=b"s")
    mixed = play_game(randoms(3), seed=b"s", player_seeds={"p2": "5eed"})
    assert mixed.events[1:] != plain.events[1:]
    created = mixed.events[0]
    assert isinstance(created, ev.GameCreated) and created.player_seeds == {"p2": "5eed"}


def replay(result: GameResult, seed: bytes) -> list[ev.Event]:
    """An auditor's replay: each recorded command through ``decide`` again."""
    events = list(result.events[: result.opening])
    state = fold(events)
    for seat, body, count in result.batches:
        assert acting_seat(state) == seat
        rng = GameRng(seed, result.game_id, state.version, state.player_seeds)
        caused = decide(state, command_from_dict(body, seat), rng)
        assert len(caused) == count
        for event in caused:
            apply(state, event)
        events += caused
    return events


@pytest.mark.parametrize(
    "rules", [RuleSet(), RuleSet(defender_chooses_dice=True, card_values="fixed")]
)
def test_every_recorded_command_replays_to_the_recorded_events(rules: RuleSet) -> None:
    """Anyone holding the record can recompute every roll and shuffle: each
    recorded command, decided again, gives the recorded events."""
    seed = b"audit"
    result = play_game(randoms(4), seed=seed, rules=rules, player_seeds={"p1": "ab"})
    assert result.commands == len(result.batches)
    assert result.opening + sum(count for _, _, count in result.batches) == len(result.events)
    assert replay(result, seed) == result.events


def test_a_command_cap_stops_an_unfinished_game() -> None:
    """simulate.py: ``max_commands`` bounds a game that would not end."""
    result = play_game(randoms(3), seed=b"cap", max_commands=30)
    assert result.commands == 30 and result.winner is None and result.reason is None
    assert fold(result.events).phase != FINISHED


def test_bot_generators_are_fixed_per_game_seat_and_turn() -> None:
    """simulate.py: "A bot's generator, fixed per game, seat and turn"."""
    draws = [bot_rng(b"s", "g", "p1", 3).random() for _ in range(2)]
    assert draws[0] == draws[1]
    assert bot_rng(b"s", "g", "p1", 4).random() != draws[0]
    assert bot_rng(b"s", "g", "p2", 3).random() != draws[0]
    assert bot_rng(b"t", "g", "p1", 3).random() != draws[0]


def test_a_reused_bot_generator_draws_what_a_new_one_would() -> None:
    """simulate.py: ``reuse`` is "the same as a new one but cheaper" (the workers seed
    one generator again per command)."""
    reused = random.Random(99)
    reused.gauss(0, 1)  # a generator in the middle of its sequence
    for turn in (3, 4):
        new = bot_rng(b"s", "g", "p1", turn)
        expected = [new.random(), new.gauss(0, 1), new.random()]
        again = bot_rng(b"s", "g", "p1", turn, reuse=reused)
        assert again is reused
        assert [again.random(), again.gauss(0, 1), again.random()] == expected


def test_the_defender_acts_while_a_defence_is_awaited() -> None:
    """000_ed9208fe5525be2d.txt: "Därefter bestämmer försvararen hur många arméer han eller hon
    ska använda": while that choice is awaited, the defender acts."""
    owners = split({"p1": ["brazil"], "p3": ["japan"]}, "p2")
    game = position(
        owners, {"brazil": 5, "north_africa": 3}, rules=RuleSet(defender_chooses_dice=True)
    )
    assert acting_seat(game.state) == "p1"
    game.place_all("brazil")
    game.body("p1", {"type": "attack", "source": "brazil", "target": "north_africa"})
    assert game.state.phase == DEFEND
    assert acting_seat(game.state) == "p2"


def test_bots_are_found_by_name() -> None:
    """At least a random bot, found by name (docs/bots.md)."""
    assert "random" in bot_names()
    with pytest.raises(ValueError, match="'no such bot'"):
        get_bot("no such bot")


@pytest.mark.parametrize(("n", "mode"), [(3, "classic"), (2, "two_player")])
def test_regular_risk_plays_on_the_middle_earth_board(n: int, mode: str) -> None:
    """002_84c66041fccdfcee.txt: "Du kan också använda spelplanen till Sagan om Ringen Risk
    för att spela Risk på vanligt sätt, genom att utelämna specialobjekten"."""
    result = play_game(randoms(n), seed=b"middle-earth", board="middle_earth", mode=mode)
    state = fold(result.events)
    assert state.board.name == "middle_earth"
    assert result.winner is not None and result.reason == "conquest"
    assert replay(result, b"middle-earth") == result.events
