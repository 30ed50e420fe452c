"""The RQ and redis-py pair the workers run on (pyproject.toml pins around a bad one).

RQ's worker listens for commands on a pub/sub thread and joins it on the way out.
With redis-py 8.2.0 that thread, once it finds nothing subscribed, waits out its whole
poll (RQ asks for 60 s) before it sees the stop: a burst worker took a minute to end,
and so would every ``risk worker`` shutdown; the workers' tests ran 60 s each instead
of 1 s. The worker runs in a process of its own here, as ``risk worker`` does (in the
test process the race went the other way); this test fails with that version.
"""

from __future__ import annotations

import subprocess
import sys
import time

import redis as redis_lib

BURST = """
import sys
import redis
from rq import Queue, SimpleWorker

connection = redis.Redis.from_url(sys.argv[1])
empty = Queue(sys.argv[2], connection=connection)
SimpleWorker([empty], connection=connection).work(burst=True, logging_level="WARNING")
"""


def test_burst_workers_with_nothing_queued_stop_at_once(
    redis: redis_lib.Redis, redis_url: str, key_prefix: str
) -> None:
    # The wait is a race a process's thread wins about one time in two: four processes.
    # A minute each is the defect; 20 s leaves a loaded machine room.
    for attempt in range(4):
        started = time.monotonic()
        burst = [sys.executable, "-c", BURST, redis_url, f"{key_prefix}nothing"]
        subprocess.run(burst, check=True, timeout=20)
        assert time.monotonic() - started < 20, attempt
