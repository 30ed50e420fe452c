"""RQ queues and job ids, as the workers use them.

They are named in one place, ``service.store.queues`` (the service enqueues the
analysis job there, and must never import ``workers``); this module re-exports
them under the names the workers, the relay and the tests have always used.
"""

from __future__ import annotations

from service.store.queues import (
    CLOCKS_QUEUE,
    CONTINUED_QUEUE,
    EXPORTS_QUEUE,
    GAMES_QUEUE,
    WORKER_QUEUES,
    analysis_job_id,
    deadline_job_id,
    escaped_game_id,
    export_job_id,
    queue,
    tournament_job_id,
)

__all__ = [
    "CLOCKS_QUEUE",
    "CONTINUED_QUEUE",
    "EXPORTS_QUEUE",
    "GAMES_QUEUE",
    "WORKER_QUEUES",
    "analysis_job_id",
    "deadline_job_id",
    "escaped_game_id",
    "export_job_id",
    "queue",
    "tournament_job_id",
]
