"""RQ queues, job ids and the service's one enqueue: the door to the job queues.

The queues live in RQ's Redis (``service.store.connections.queue_client``).
This module names them and the ids of the jobs, for the service and the
workers alike (``workers.queues`` re-exports them), so the service never
imports ``workers`` (``.importlinter``). Jobs are named by their dotted path
(RQ imports it in the worker), take only ids and versions, and are serialised
as JSON, never pickle: a job in Redis can be read by anyone and cannot carry
code. A bot job's id names its game and is fresh for each job
(``workers.claims``: one job per game at a time); the other jobs' ids derive
from what they were made for, so the same request made twice makes one job.

Every other job of the service goes through the outbox and the relay
(``workers.relay``); the analysis of a finished game, asked for by a person
and not by a game's progress, is the one the service enqueues itself, here
(``JobQueues.analyse``).

Issue 54: what a game waits for (bot turns, clocks: ``GAMES_QUEUES``) and what
costs CPU for nobody waiting at a board (records, analyses: ``COSTLY_QUEUES``)
are taken by different worker processes (``risk worker --kind``), so a costly
job, once started, never holds the worker a bot turn or a deadline needs.
"""

from __future__ import annotations

import contextlib
import time

from redis import Redis
from rq import Queue
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from service.store.errors import translated
from service.store.keys import KeySpace

__all__ = [
    "ANALYSES_QUEUE",
    "ANALYSIS_JOB",
    "CLOCKS_QUEUE",
    "CONTINUED_QUEUE",
    "COSTLY_QUEUES",
    "EXPORTS_QUEUE",
    "GAMES_QUEUE",
    "GAMES_QUEUES",
    "WEBHOOKS_QUEUE",
    "WEBHOOK_WORKER_QUEUES",
    "WORKER_QUEUES",
    "JobQueues",
    "analysis_job_id",
    "deadline_job_id",
    "escaped_game_id",
    "export_job_id",
    "queue",
    "tournament_job_id",
]

GAMES_QUEUE = "games"
CLOCKS_QUEUE = "clocks"
# Bot jobs that used their time slice and carry on (``workers.jobs``). Workers take
# from it only when the other two are empty, so a game a person just moved in, a
# new game or a deadline never waits behind every all-bot game's next slice.
CONTINUED_QUEUE = "continued"
# Building finished games' records (``workers.jobs.export_record``).
EXPORTS_QUEUE = "exports"
# Analyses of finished games (``workers.analysis``): seconds to minutes of CPU each.
ANALYSES_QUEUE = "analyses"
# The games workers' queues and the costly workers' (issue 54), each in the order
# its kind takes them.
GAMES_QUEUES = (GAMES_QUEUE, CLOCKS_QUEUE, CONTINUED_QUEUE)
COSTLY_QUEUES = (EXPORTS_QUEUE, ANALYSES_QUEUE)
# Every queue, in the order a single worker of both kinds takes them (tests, --kind both).
WORKER_QUEUES = GAMES_QUEUES + COSTLY_QUEUES
# Webhook sends (``workers.webhooks``, issue 50): taken only by ``risk worker --webhooks``,
# never by games or costly workers, so a slow receiver never delays a bot turn or a clock.
WEBHOOKS_QUEUE = "webhooks"
WEBHOOK_WORKER_QUEUES = (WEBHOOKS_QUEUE,)

# The job functions the service enqueues, by name: the service never imports workers.
ANALYSIS_JOB = "workers.analysis.analyse_game"
ANALYSIS_TIMEOUT_SECONDS = 1800


def queue(connection: Redis, keys: KeySpace, name: str = GAMES_QUEUE) -> Queue:
    return Queue(f"{keys.rq_prefix()}{name}", connection=connection, serializer=JSONSerializer)


class JobQueues:
    """The jobs the service itself enqueues, in the application's words."""

    def __init__(self, connection: Redis, keys: KeySpace) -> None:
        self._connection = connection
        self._keys = keys

    @translated
    def analyse(self, game_id: str, depth: int, head: str, job: str) -> None:
        """Queue the analysis of ``game_id`` at ``depth`` for the game at ``head`` (hex)
        on the analyses queue, which only costly workers take, as the attempt ``job``
        (``analysis_job_id``); the same attempt queued twice makes one job."""
        jobs = queue(self._connection, self._keys, ANALYSES_QUEUE)
        with contextlib.suppress(DuplicateJobError):
            jobs.enqueue(
                ANALYSIS_JOB,
                game_id,
                depth,
                head,
                job,
                job_id=job,
                unique=True,
                result_ttl=60,
                job_timeout=ANALYSIS_TIMEOUT_SECONDS,
            )


def escaped_game_id(game_id: str) -> str:
    """``game_id`` as it can stand in a job id (see ``_escaped``)."""
    return _escaped(game_id)


def analysis_job_id(game_id: str, depth: int, head: str) -> str:
    """A new attempt at analysing ``game_id`` at ``depth`` for its head ``head`` (hex):
    fresh each time (issue 54), so asking again after a lost worker queues a new job,
    and the analysis's status names the attempt whose job may run it."""
    return f"analysis-{_escaped(game_id)}-{depth}-{head[:16]}-{time.time_ns():x}"


def deadline_job_id(game_id: str, version: int, again_at_ms: int | None = None) -> str:
    """The deadline job a clock starts at ``version``; ``again_at_ms`` names the
    one a deadline job schedules when it ran before its deadline."""
    again = "" if again_at_ms is None else f"-again-{again_at_ms}"
    return f"deadline-{_escaped(game_id)}-{version}{again}"


def export_job_id(game_id: str) -> str:
    return f"export-{_escaped(game_id)}"


def tournament_job_id(tournament_id: str, game_id: str) -> str:
    """The job that records ``game_id``'s end in its tournament."""
    return f"tournament-{tournament_id}-{_escaped(game_id)}"


def _escaped(game_id: str) -> str:
    """RQ job ids allow letters, digits, ``_`` and ``-``; game ids also allow ``.``.

    ``_`` becomes ``_u`` and ``.`` becomes ``_d``: one-to-one, so distinct
    games never share a job id.
    """
    return game_id.replace("_", "_u").replace(".", "_d")
