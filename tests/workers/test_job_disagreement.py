"""A bot job whose game's stream and lobby record disagree ends at once (issue 36, item 8).

The game's events are there (its meta says version N) but its lobby record is
not (expired, or deleted halfway): ``_play`` read the game as gone at
version 0, ``claims.release`` then found the game at N and answered MOVED,
and the job played again, and again, until its 180 s timeout, after which
the watchdog queued it again; a person's game behind it waited minutes.
"""

from __future__ import annotations

import time

import pytest
import redis as redis_lib
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.application.games import GameService, SeatPlan
from service.store.keys import KeySpace
from workers.claims import Claims
from workers.queues import CONTINUED_QUEUE, GAMES_QUEUE, queue
from workers.relay import Relay


@pytest.mark.timeout(60)
def test_a_game_without_its_lobby_record_ends_its_job_as_gone(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    keys = KeySpace(key_prefix)
    service = GameService(redis, keys)
    game = service.create(seats=[SeatPlan("bot", bot="random") for _ in range(3)]).info.game_id
    assert service.store.version(game) > 0
    redis.delete(keys.game_info(game), keys.game_seats(game))
    relay = Relay(redis, keys, queue(redis, keys), consumer="test")
    relay.ensure_groups()
    assert relay.run_once(block_ms=1) > 0
    games = queue(redis, keys)
    worker = SimpleWorker(
        [games, queue(redis, keys, CONTINUED_QUEUE)], connection=redis, serializer=JSONSerializer
    )
    started = time.monotonic()
    worker.work(burst=True, logging_level="WARNING")
    assert time.monotonic() - started < 10
    finished = [games.fetch_job(j) for j in games.finished_job_registry.get_job_ids()]
    assert [job.return_value() for job in finished if job] == ["gone"]
    assert Claims(redis, keys).holder(game) is None
    assert redis.zscore(keys.worker_leases(), game) is None
    assert queue(redis, keys, GAMES_QUEUE).count == 0
