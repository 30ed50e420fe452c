"""The stack with its game store on a real Redis Cluster (issue 4: "An operator can run
it on one Redis or on Redis Cluster"; README "Scaling").

The store runs on a three-primary cluster (``tests/redis_cluster.py``) and RQ's
queues on the plain test Redis, configured as an operator would: ``Settings``
with ``redis_cluster=True`` and ``queue_url`` (``RISK_REDIS_CLUSTER=1``,
``RISK_QUEUE_URL``). A person plays over the API against bots that the relay
and a worker move, and the games land on every shard.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
import redis as redis_lib
from flask import Flask
from redis.cluster import RedisCluster
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.http.app import create_app
from service.settings import RateLimit, Settings
from service.store.connections import store_client
from tests.service.api_helpers import ApiClient
from workers import jobs
from workers.queues import queue
from workers.relay import Relay

OFF = RateLimit(0, 1)


@pytest.fixture
def settings(redis_cluster_url: str, redis_url: str, key_prefix: str) -> Settings:
    return Settings(
        redis_url=redis_cluster_url,
        redis_cluster=True,
        queue_url=redis_url,
        key_prefix=key_prefix,
        rate_token=OFF,
        rate_ip=OFF,
    )


@pytest.fixture
def cluster(settings: Settings) -> Iterator[RedisCluster]:
    client = store_client(settings)
    assert isinstance(client, RedisCluster)
    yield client
    for key in client.scan_iter(f"{settings.key_prefix}:*", target_nodes=RedisCluster.PRIMARIES):
        client.delete(key)
    client.close()


@pytest.fixture
def app(settings: Settings, cluster: RedisCluster, redis: redis_lib.Redis) -> Flask:
    return create_app(settings)


@pytest.fixture
def api(app: Flask) -> ApiClient:
    return ApiClient(app.test_client(), sample=10)


@pytest.fixture
def relay(app: Flask, cluster: RedisCluster, redis: redis_lib.Redis) -> Iterator[Relay]:
    """The relay and jobs as ``risk worker`` wires them: the store on the cluster, RQ on Redis."""
    keys = app.extensions["risk"].games.keys
    relay = Relay(cluster, keys, queue(redis, keys), consumer="cluster-test")
    relay.ensure_groups()
    jobs.use_store(cluster)
    yield relay
    jobs.use_store(None)


def drive(relay: Relay, redis: redis_lib.Redis, rounds: int = 200) -> None:
    """Relay then work, until nothing is left to do."""
    worker = SimpleWorker([relay.queue], connection=redis, serializer=JSONSerializer)
    for _ in range(rounds):
        if relay.run_once(block_ms=1) == 0:
            return
        worker.work(burst=True, logging_level="WARNING")


def test_settings_refuse_rq_on_the_cluster(redis_cluster_url: str) -> None:
    """RQ moves jobs between keys in one transaction, which a cluster refuses."""
    with pytest.raises(ValueError, match="RISK_QUEUE_URL"):
        Settings(redis_url=redis_cluster_url, redis_cluster=True)
    env = {"REDIS_URL": redis_cluster_url, "RISK_REDIS_CLUSTER": "1", "RISK_QUEUE_URL": "x"}
    assert Settings.from_env(env).queue_redis_url == "x"


def test_a_person_plays_bots_with_the_store_on_a_cluster(
    api: ApiClient, relay: Relay, redis: redis_lib.Redis
) -> None:
    seats: list[dict[str, Any]] = [
        {"kind": "human", "name": "Ada"},
        {"kind": "bot", "bot": "random"},
        {"kind": "bot", "bot": "random"},
    ]
    game, tokens = api.create(seats, rules={"setup": "deal"})
    rnd = random.Random(4)
    moves = 0
    while moves < 60:
        drive(relay, redis)
        document = api.get(f"/v1/games/{game}", token=tokens["p1"]).json
        if document["status"] == "finished":
            break
        assert document["current"] == "p1", "the bots must have moved on their own"
        actions = api.get(f"/v1/games/{game}/legal-actions", token=tokens["p1"]).json["actions"]
        playable = [a for a in actions if a["command"]["type"] != "resign"]
        before = document["version"]
        sent = api.command(game, tokens["p1"], rnd.choice(playable)["command"])
        assert sent.status_code == 200, sent.json
        assert sent.json["version"] > before
        moves += 1
    events = api.get(f"/v1/games/{game}/events?since=0", token=tokens["p1"]).json["events"]
    actors = {e["actor"] for e in events}
    assert {"p1", "p2", "p3"} <= actors, "the person and both bots acted"
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))


def test_metrics_read_the_queues_from_rq_and_the_leases_from_the_store(
    api: ApiClient, app: Flask, cluster: RedisCluster
) -> None:
    keys = app.extensions["risk"].games.keys
    cluster.zadd(keys.worker_leases(), {"g1": 1, "g2": 2})
    metrics = api.get("/metrics").get_data(as_text=True)
    assert 'risk_queue_jobs{queue="games"} 0.0' in metrics
    assert "risk_games_awaiting_worker 2.0" in metrics


def test_games_spread_over_the_shards_and_list_from_all(
    api: ApiClient, app: Flask, cluster: RedisCluster
) -> None:
    created = {api.create(3)[0] for _ in range(12)}
    keys = app.extensions["risk"].games.keys
    shards = {cluster.get_node_from_key(keys.game(g).events).name for g in created}
    assert len(shards) >= 2, "hash tags must let games land on more than one shard"
    listed = api.get("/v1/games?limit=100").json["games"]
    assert created <= {g["game_id"] for g in listed}


def test_the_projector_archives_games_from_every_shard(
    cluster: RedisCluster, settings: Settings, sqlite_url: str
) -> None:
    """Issue 48 on a cluster: the projector's pipelined reads (both ends of each game's
    stream, its acknowledgements, what a dead consumer left) span the shards."""
    from riskcore.simulate import acting_seat
    from service.application.games import GameService, SeatPlan
    from service.store.archive import Archive
    from service.store.database import create_engine
    from service.store.keys import KeySpace
    from workers.projector import Projector

    service = GameService(cluster, KeySpace(settings.key_prefix))
    games = [service.create(seats=[SeatPlan("human")] * 3).info.game_id for _ in range(12)]
    for game_id in games[:6]:  # finished by two resignations
        for _ in range(2):
            seat = acting_seat(service.load(game_id).state)
            assert seat is not None
            service.execute(game_id, seat, {"type": "resign"})
    engine = create_engine(sqlite_url)
    try:
        archive = Archive(engine)
        killed = Projector(cluster, service, archive, consumer="dead")
        killed.ensure_groups()
        assert killed._read(10)  # read, never committed nor acknowledged: killed here
        projector = Projector(cluster, service, archive, consumer="alive", claim_idle_ms=0)
        assert projector.run_once(block_ms=10) == 0  # the dead one holds them all
        assert projector.reclaim() > 0
        while projector.run_once(block_ms=10) or projector.reclaim():
            pass
        while projector.archive_records(budget_seconds=5):
            pass
        assert archive.count() == 12
        assert archive.recorded(games) == set(games[:6])
        assert {archive.get(g).row.status for g in games[:6]} == {"finished"}  # type: ignore[union-attr]
    finally:
        engine.dispose()
    shards = {cluster.keyslot(service.keys.game(g).events) for g in games}
    assert len({cluster.nodes_manager.get_node_from_slot(s).name for s in shards}) > 1
