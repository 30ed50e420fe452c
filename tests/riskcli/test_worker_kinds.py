"""``risk worker --kind`` (issue 54): games workers never take a costly job.

An analysis held the worker that also played bots and fired clocks for as long as
it ran; the queues a games worker takes and the ones a costly worker takes are
now disjoint, and every queue a job is put on is one of them.
"""

from __future__ import annotations

from riskcli.worker import KIND_QUEUES
from workers.queues import (
    ANALYSES_QUEUE,
    CLOCKS_QUEUE,
    COSTLY_QUEUES,
    EXPORTS_QUEUE,
    GAMES_QUEUE,
    WORKER_QUEUES,
)


def test_games_and_costly_workers_take_disjoint_queues() -> None:
    assert not set(KIND_QUEUES["games"]) & set(KIND_QUEUES["costly"])
    assert KIND_QUEUES["all"] == KIND_QUEUES["games"]  # its costly work is its children's
    assert {ANALYSES_QUEUE, EXPORTS_QUEUE} == set(KIND_QUEUES["costly"]) == set(COSTLY_QUEUES)
    assert {GAMES_QUEUE, CLOCKS_QUEUE} <= set(KIND_QUEUES["games"])
    assert set(WORKER_QUEUES) == set(KIND_QUEUES["games"]) | set(KIND_QUEUES["costly"])
