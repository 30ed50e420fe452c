"""RQ queues and job ids, as the workers use them.

They are named in one place, ``service.store.queues`` (the service enqueues the
analysis job there, and must never import ``workers``); this module re-exports
them under the names the workers, the relay and the tests have always used.
Issue 54: games workers take ``GAMES_QUEUES``, costly workers ``COSTLY_QUEUES``
(``risk worker --kind``).
"""

from __future__ import annotations

from service.store.queues import (
    ANALYSES_QUEUE,
    CLOCKS_QUEUE,
    CONTINUED_QUEUE,
    COSTLY_QUEUES,
    EXPORTS_QUEUE,
    GAMES_QUEUE,
    GAMES_QUEUES,
    WEBHOOK_WORKER_QUEUES,
    WEBHOOKS_QUEUE,
    WORKER_QUEUES,
    analysis_job_id,
    deadline_job_id,
    escaped_game_id,
    export_job_id,
    queue,
    tournament_job_id,
)

__all__ = [
    "ANALYSES_QUEUE",
    "CLOCKS_QUEUE",
    "CONTINUED_QUEUE",
    "COSTLY_QUEUES",
    "EXPORTS_QUEUE",
    "GAMES_QUEUE",
    "GAMES_QUEUES",
    "WEBHOOKS_QUEUE",
    "WEBHOOK_WORKER_QUEUES",
    "WORKER_QUEUES",
    "analysis_job_id",
    "deadline_job_id",
    "escaped_game_id",
    "export_job_id",
    "queue",
    "tournament_job_id",
]
