"""RQ queues and job ids: one place that names them.

Jobs take only ids and versions and are serialised as JSON, never pickle,
so a job in Redis can be read by anyone and cannot carry code. A bot job's
id names its game and is fresh for each job (``workers.claims``: one job per
game at a time); the other jobs' ids derive from what they were made for, so
the same request made twice makes one job.
"""

from __future__ import annotations

from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.store.keys import KeySpace

GAMES_QUEUE = "games"
CLOCKS_QUEUE = "clocks"
# Bot jobs that used their time slice and carry on (``workers.jobs``). Workers take
# from it only when the other two are empty, so a game a person just moved in, a
# new game or a deadline never waits behind every all-bot game's next slice.
CONTINUED_QUEUE = "continued"
# Building finished games' records (``workers.jobs.export_record``): last, since a
# download builds a record that is not ready yet itself, while a game in play waits.
EXPORTS_QUEUE = "exports"
# The order a worker takes jobs in.
WORKER_QUEUES = (GAMES_QUEUE, CLOCKS_QUEUE, CONTINUED_QUEUE, EXPORTS_QUEUE)
# Webhook sends (``workers.webhooks``, issue 50): taken only by ``risk worker --webhooks``,
# never by game workers, so a slow receiver never delays a bot turn or a clock.
WEBHOOKS_QUEUE = "webhooks"
WEBHOOK_WORKER_QUEUES = (WEBHOOKS_QUEUE,)


def queue(connection: Redis, keys: KeySpace, name: str = GAMES_QUEUE) -> Queue:
    return Queue(f"{keys.rq_prefix()}{name}", connection=connection, serializer=JSONSerializer)


def escaped_game_id(game_id: str) -> str:
    """``game_id`` as it can stand in a job id (see ``_escaped``)."""
    return _escaped(game_id)


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
