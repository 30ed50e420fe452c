"""End to end on Redis Cluster: real `risk serve` and `risk worker` processes configured
only by the environment (``RISK_REDIS_CLUSTER=1``, ``RISK_QUEUE_URL``), the game store on
a three-primary cluster and RQ's queues on the plain test Redis; bots answer a person."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.cluster import RedisCluster

from tests.e2e.conftest import Stack, http, running_stack

pytestmark = pytest.mark.e2e


@pytest.fixture
def cluster_stack(
    stack_env: dict[str, str], redis_cluster_url: str, redis_url: str, tmp_path: Path
) -> Iterator[Stack]:
    env = {
        **stack_env,
        "REDIS_URL": redis_cluster_url,
        "RISK_REDIS_CLUSTER": "1",
        "RISK_QUEUE_URL": redis_url,
    }
    try:
        with running_stack(env, tmp_path) as stack:
            yield stack
    finally:
        cluster = RedisCluster.from_url(redis_cluster_url)
        prefix = env["RISK_KEY_PREFIX"]
        for key in cluster.scan_iter(f"{prefix}:*", target_nodes=RedisCluster.PRIMARIES):
            cluster.delete(key)
        cluster.close()


def test_bots_answer_a_person_with_the_store_on_a_cluster(cluster_stack: Stack) -> None:
    url = cluster_stack.url
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    status, created = http("POST", f"{url}/v1/games", {"seats": seats, "rules": {"setup": "deal"}})
    assert status == 201, created
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    for _ in range(9):  # nine moves of the person's (setup placing), each answered by both bots
        document = wait_for_p1(cluster_stack, game, token)
        if document["status"] == "finished":
            break
        status, listed = http("GET", f"{url}/v1/games/{game}/legal-actions", token=token)
        by_type = {a["command"]["type"]: a["command"] for a in reversed(listed["actions"])}
        kind = next(k for k in ("trade_cards", "place_armies", "end_phase") if k in by_type)
        status, sent = http("POST", f"{url}/v1/games/{game}/commands", by_type[kind], token=token)
        assert status == 200, sent
    assert wait_for_p1(cluster_stack, game, token)["version"] >= created["game"]["version"] + 27
    status, page = http("GET", f"{url}/v1/games/{game}/events?since=0&limit=1000")
    assert {e["actor"] for e in page["events"]} >= {"p1", "p2", "p3"}
    assert "Traceback" not in cluster_stack.log("worker") + cluster_stack.log("api")


def wait_for_p1(stack: Stack, game: str, token: str) -> dict[str, Any]:
    """The person's view once it is their move (or the game is over)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, document = http("GET", f"{stack.url}/v1/games/{game}", token=token)
        assert status == 200
        if document["current"] == "p1" or document["status"] == "finished":
            return dict(document)
        time.sleep(0.05)
    raise AssertionError("the bots never moved:\n" + stack.log("worker")[-3000:])
