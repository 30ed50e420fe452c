"""``risk projector``: the outbox into the SQL archive, as processes of its own (issue 48).

Its own processes, not a thread of ``risk worker``: the archive's lag is what
the projector is measured by (``workers.projector``), and it would otherwise
wait behind bot turns for the interpreter. Two processes: this one projects
the summaries; a child (forked at start, before any connection is made)
builds, verifies and stores finished games' records, the costly part, so
that a record's verification never delays a summary. Either dying stops
both (the supervisor restarts them). Imported only when the command runs.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.process
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
RECORDS_NICENESS = 10  # added to the records' process's niceness (``nice``)


@click.command("projector")
@click.option("--consumer", default=None, help="Consumer name (default: <host>-projector).")
@click.option("--count", default=500, show_default=True, help="Notifications read per batch.")
@click.option("--log-level", default="INFO", show_default=True)
def projector(consumer: str | None, count: int, log_level: str) -> None:
    """Project finished games into the SQL archive (RISK_DATABASE_URL). Stops on SIGTERM."""
    logs.configure(log_level, json_lines=os.environ.get("RISK_LOG_FORMAT", "json") != "text")
    settings = Settings.from_env()
    migrate(settings.database_url)
    records = multiprocessing.get_context("fork").Process(
        target=_records, args=(settings, log_level), name="projector-records", daemon=True
    )
    records.start()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    worker = _projector(settings, consumer, count)
    threading.Thread(target=_watch, args=(records, stop), daemon=True).start()
    log.info("projector %s started", worker.consumer)
    try:
        worker.run(stop, records=False)
    finally:
        worker.archive.engine.dispose()
        if records.is_alive():
            records.terminate()
        records.join(30)
    if records.exitcode not in (0, -signal.SIGTERM):
        raise SystemExit(1)


def _projector(settings: Settings, consumer: str | None, count: int) -> Projector:
    client = store_client(settings, socket_timeout=10, health_check_interval=30)
    keys = KeySpace(settings.key_prefix)
    service = GameService(client, keys, cache_games=256)
    archive = archive_for(settings, pool_size=2)
    # Rated games that finish change their accounts' ratings here (issue 49).
    ratings = PlayerRatings(RatingStore(archive.engine), FinishedQueue(client, keys), service)
    return Projector(
        client,
        service,
        archive,
        consumer=consumer,
        count=count,
        archive_days=settings.archive_days,
        ratings=ratings,
    )


def _records(settings: Settings, log_level: str) -> None:
    """The child: records of finished games, until SIGTERM. At a lower priority than
    the summaries: a record may wait, a summary's lag is what the projector is
    measured by, and on a machine whose cores are busy (with bot turns, say) the
    records' verifying would otherwise take its share from the summaries."""
    os.nice(RECORDS_NICENESS)
    logs.configure(log_level, json_lines=os.environ.get("RISK_LOG_FORMAT", "json") != "text")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it
    worker = _projector(settings, None, 1)
    try:
        worker.run_records(stop)
    finally:
        worker.archive.engine.dispose()


def _watch(child: multiprocessing.process.BaseProcess, stop: threading.Event) -> None:
    """Stop the projector if its records' process died."""
    while not stop.wait(1.0):
        if not child.is_alive():
            log.critical("the projector's records process died (%s); stopping", child.exitcode)
            stop.set()
