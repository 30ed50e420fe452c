"""`risk worker`'s Redis clients: RQ's blocking pop must outlast redis-py's default timeout.

redis-py 8 gives a client a 5 s socket timeout unless told otherwise. RQ's
worker blocks in ``BLPOP`` for minutes and raises its pool's timeout to fit,
but connections opened before that keep 5 s. When the relay and scheduler
threads shared RQ's pool, a restarted worker's pops timed out every 5 s and
a job popped by an abandoned read was lost, stalling its game (the e2e
worker-crash test stalled so in about one clean run of three).
"""

from __future__ import annotations

import time

import pytest
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from riskcli.worker import _connections
from service.store.keys import KeySpace
from workers.queues import WORKER_QUEUES, queue


@pytest.mark.slow
def test_the_workers_blocking_pop_outlasts_the_clients_default_timeout(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    connections = _connections()
    keys = KeySpace(key_prefix)
    # The helper threads start talking first, as in `risk worker`.
    connections.helpers.ping()
    connections.store.ping()
    worker = SimpleWorker(
        [queue(connections.worker, keys, name) for name in WORKER_QUEUES],
        connection=connections.worker,
        serializer=JSONSerializer,
    )
    started = time.monotonic()
    assert worker.connection.blpop([f"{key_prefix}:nothing"], 6) is None  # no TimeoutError
    assert time.monotonic() - started >= 5.5
    pools = {id(c.connection_pool) for c in (connections.worker, connections.helpers)}
    assert len(pools) == 2, "RQ's worker shares its pool with the helper threads"
