"""``risk projector``: the outbox into the SQL archive, as a process of its own (issue 48).

Its own process, not a thread of ``risk worker``: projecting (building and
verifying finished games' records) is CPU work that would otherwise wait
behind bot turns for the interpreter, and the archive's lag is what it is
measured by (``workers.projector``). Imported only when the command runs.
"""

from __future__ import annotations

import logging
import os
import signal
import threading

import click

from service import logs
from service.application.archived import archive_for
from service.application.games import GameService
from service.application.player_ratings import PlayerRatings
from service.settings import Settings
from service.store.connections import store_client
from service.store.database import migrate
from service.store.keys import KeySpace
from service.store.ratings import FinishedQueue, RatingStore
from workers.projector import Projector

log = logging.getLogger(__name__)


@click.command("projector")
@click.option("--consumer", default=None, help="Consumer name (default: <host>-projector).")
@click.option("--count", default=500, show_default=True, help="Notifications read per batch.")
@click.option("--log-level", default="INFO", show_default=True)
def projector(consumer: str | None, count: int, log_level: str) -> None:
    """Project finished games into the SQL archive (RISK_DATABASE_URL). Stops on SIGTERM."""
    logs.configure(log_level, json_lines=os.environ.get("RISK_LOG_FORMAT", "json") != "text")
    settings = Settings.from_env()
    migrate(settings.database_url)
    client = store_client(settings, socket_timeout=10, health_check_interval=30)
    keys = KeySpace(settings.key_prefix)
    service = GameService(client, keys, cache_games=256)
    archive = archive_for(settings, pool_size=2)
    # Rated games that finish change their accounts' ratings here (issue 49).
    ratings = PlayerRatings(RatingStore(archive.engine), FinishedQueue(client, keys), service)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    worker = Projector(
        client,
        service,
        archive,
        consumer=consumer,
        count=count,
        archive_days=settings.archive_days,
        ratings=ratings,
    )
    log.info("projector %s started", worker.consumer)
    try:
        worker.run(stop)
    finally:
        archive.engine.dispose()
