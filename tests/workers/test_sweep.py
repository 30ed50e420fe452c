"""The periodic sweep re-drives what nothing else would (issue 36, item 10).

A bot game whose job and lease were both lost waited for a notification
that never came; abandoned lobbies and idle games were ended only when
their creator came back. Real Redis and RQ; the sweep's clock is moved
instead of waiting minutes.
"""

from __future__ import annotations

import time

import pytest
import redis as redis_lib
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.application.games import GameService, SeatPlan
from service.store.keys import KeySpace
from workers import jobs
from workers.claims import Claims
from workers.queues import CONTINUED_QUEUE, queue
from workers.relay import Relay
from workers.sweep import QUIET_MS, Sweep

HOUR_MS = 3_600_000


def sweep(redis: redis_lib.Redis, service: GameService, ahead_ms: int) -> dict[str, int]:
    keys = service.keys

    def enqueue(game_id: str, job_id: str) -> None:
        queue(redis, keys).enqueue(jobs.advance_game, game_id, None, True, job_id=job_id)

    now = int(time.time() * 1000) + ahead_ms
    return Sweep(service, Claims(redis, keys), enqueue, 24 * HOUR_MS, 72 * HOUR_MS, now).run()


def work(redis: redis_lib.Redis, keys: KeySpace) -> None:
    queues = [queue(redis, keys), queue(redis, keys, CONTINUED_QUEUE)]
    SimpleWorker(queues, connection=redis, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )


def test_a_bot_game_no_job_holds_is_woken(redis: redis_lib.Redis, key_prefix: str) -> None:
    keys = KeySpace(key_prefix)
    service = GameService(redis, keys)
    game = service.create(seats=[SeatPlan("bot", bot="random") for _ in range(3)]).info.game_id
    version = service.store.version(game)  # created, never notified to a relay: stalled
    assert sweep(redis, service, 0)["woken"] == 0  # recent: its own jobs see to it
    counts = sweep(redis, service, QUIET_MS + 1000)
    assert counts["woken"] == 1, counts
    assert sweep(redis, service, QUIET_MS + 1000)["woken"] == 0  # its job holds it now
    work(redis, keys)
    assert service.store.version(game) > version


def test_a_person_is_not_woken_and_idle_games_and_lobbies_are_ended(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    keys = KeySpace(key_prefix)
    service = GameService(redis, keys)
    humans = [SeatPlan("human", name=n) for n in ("Ada", "Bo", "Cy")]
    running = service.create(seats=humans).info.game_id
    lobby = service.create(seats=[SeatPlan("human"), SeatPlan("open"), SeatPlan("human")])
    counts = sweep(redis, service, QUIET_MS + 1000)
    assert counts == {"looked": 2, "ended": 0, "woken": 0}, counts
    counts = sweep(redis, service, 73 * HOUR_MS)
    assert counts["ended"] == 2, counts
    assert service.lobby.get(running).status == "finished"
    assert service.lobby.get(lobby.info.game_id).status == "finished"


def test_one_relay_of_all_enqueues_the_sweep_once_a_window(
    redis: redis_lib.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch, sqlite_url: str
) -> None:
    """With it, the challenges' expiry (issue 49), which reads the SQL database."""
    monkeypatch.setenv("RISK_DATABASE_URL", sqlite_url)
    keys = KeySpace(key_prefix)
    first = Relay(redis, keys, queue(redis, keys), consumer="a")
    second = Relay(redis, keys, queue(redis, keys), consumer="b")
    assert first.sweep_games() and not second.sweep_games()
    assert sorted(queue(redis, keys).job_ids) == ["expire-challenges", "sweep-games"]
    work(redis, keys)
    job = queue(redis, keys).fetch_job("sweep-games")
    assert job is not None and job.return_value() == "looked=0 ended=0 woken=0"


def test_a_game_ends_at_the_ceiling_of_its_length(
    redis: redis_lib.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36: a client could pump its game to any length (accepted commands cost
    nothing), and its record past what the server can verify. At ``max_game_events``
    the server's own ``abandon`` ends it, no winner, in the record like any command."""
    monkeypatch.setenv("RISK_MAX_GAME_EVENTS", "120")  # the jobs' services read it
    keys = KeySpace(key_prefix)
    service = GameService(redis, keys, max_game_events=120)
    game = service.create(seats=[SeatPlan("bot", bot="random") for _ in range(3)]).info.game_id
    relay = Relay(redis, keys, queue(redis, keys), consumer="test")
    relay.ensure_groups()
    for _ in range(200):
        if relay.run_once(block_ms=1) == 0 and not queue(redis, keys).count:
            break
        work(redis, keys)
    loaded = service.load(game)
    assert loaded.state.phase == "finished" and loaded.version < 120 + 300
    last = service.log.envelopes(game, loaded.version, count=1)[0]
    assert last.actor == "system" and last.command == {"type": "abandon"}
    assert loaded.state.winner is None
