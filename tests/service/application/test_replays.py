"""The state at any version (issue 7): equal to a fold of the first N events,
and cheap at any N thanks to checkpoints (``service.application.replays``)."""

from __future__ import annotations

import redis as redis_lib

from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.simulate import GameResult, play_game
from service.application.games import GameService
from service.application.records import append_simulated
from service.application.replays import CHECKPOINT_EVERY
from service.store.keys import KeySpace

SEED = b"r" * 32


def long_game(game_id: str) -> tuple[GameResult, bytes]:
    """A random-bot game of more than two checkpoints' worth of events (the
    first such seed: lengths vary from game to game)."""
    for attempt in range(100):
        seed = SEED[:-1] + bytes([attempt])
        result = play_game([get_bot("random") for _ in range(4)], seed=seed, game_id=game_id)
        if len(result.events) > 2 * CHECKPOINT_EVERY:
            return result, seed
    raise AssertionError("no long game in 100 seeds")


def test_state_at_any_version_equals_the_fold_of_its_events(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    keys = KeySpace(key_prefix)
    result, seed = long_game("replayed")
    game = append_simulated(GameService(redis, keys).store, result, seed)
    checkpoints = {int(k) for k in redis.hkeys(keys.replay_checkpoints(game)) if k.isdigit()}
    assert checkpoints and min(checkpoints) >= CHECKPOINT_EVERY
    for version in (1, 2, 77, CHECKPOINT_EVERY, CHECKPOINT_EVERY + 1, len(result.events) - 1):
        fresh = GameService(redis, keys)
        assert fresh.state_at(game, version) == fold(result.events[:version])


def test_a_missing_checkpoint_is_rebuilt_by_the_first_replay(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    keys = KeySpace(key_prefix)
    result, seed = long_game("again")
    game = append_simulated(GameService(redis, keys).store, result, seed)
    redis.delete(keys.replay_checkpoints(game))
    target = len(result.events) - 1
    assert GameService(redis, keys).state_at(game, target) == fold(result.events[:target])
    assert redis.hlen(keys.replay_checkpoints(game)) >= 2
