"""The analysis job (issue 37): a finished game's analysis, run by a costly worker.

Queued by ``POST /v1/games/{id}/analysis`` on the analyses queue, which only
costly workers take (``workers.queues.COSTLY_QUEUES``, issue 54: a bot turn or
a deadline never waits behind an analysis), with the game's id, the depth and
the head hash it was asked for. Safe to run twice: a game whose head is no
longer that one (deleted and created again), an analysis already done or one
asked for again since (another attempt's job id) is left alone. Progress and
the report are written through the analyses' door (``service.store.analyses``).

Issue 54: a heartbeat thread renews the analysis's lease while the job runs,
so a job whose worker died is seen as lost within its lease (``RISK_ANALYSIS_LEASE``,
30 s); and the
job has a hard time budget (``RISK_ANALYSIS_BUDGET``, 600 s): past it, the
analysis stops at its next unit of work and is reported failed with how far
it got (``budget_exceeded``), instead of holding a worker for as long as it likes.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from riskcore.analysis import analyse
from service import logs
from service.store.analyses import RUNNING_LEASE_MS, Analyses
from workers.jobs import job_service

log = logging.getLogger(__name__)
DEFAULT_BUDGET_S = 600.0
WORKER_STOPPED = "worker_stopped: the worker was stopped during this analysis; POST again"


class BudgetExceeded(Exception):
    """The analysis used its time budget: stopped where it was."""


def budget_seconds() -> float:
    """The hard time budget of one analysis (``RISK_ANALYSIS_BUDGET``, seconds)."""
    return float(os.environ.get("RISK_ANALYSIS_BUDGET", DEFAULT_BUDGET_S))


def lease_ms() -> int:
    """A running analysis's lease (``RISK_ANALYSIS_LEASE``, seconds; 30 by default):
    how soon a job whose worker died reads as failed."""
    return int(1000 * float(os.environ.get("RISK_ANALYSIS_LEASE", RUNNING_LEASE_MS / 1000)))


def analyse_game(game_id: str, depth: int, head: str, job: str = "") -> str:
    service = job_service()
    kept = service.analyses
    with logs.context(game_id=game_id):
        loaded = service.load(game_id)
        if loaded.hash.hex() != head:
            return "stale"
        current = kept.read(game_id, depth, head)
        if current is not None and current["status"] == "done":
            return "done already"
        if job and kept.current_job(game_id, depth) not in (job, None):
            return "superseded"  # asked for again since: that attempt's job runs it
        envelopes = list(service.log.envelopes(game_id))
        budget = budget_seconds()
        started = time.monotonic()

        def progress(done: int, total: int) -> None:
            kept.progress(game_id, depth, done, total)
            if time.monotonic() - started > budget:
                raise BudgetExceeded(f"{done}/{total}")

        failure = None
        with _Heartbeat(kept, game_id, depth):  # stopped before the outcome is written
            try:
                report = analyse(envelopes, depth=depth, head=head, progress=progress)
            except ValueError as error:
                failure = str(error)
            except BudgetExceeded as error:
                failure = (
                    f"budget_exceeded: stopped after {budget:g} s at {error} units of work "
                    "(RISK_ANALYSIS_BUDGET); a smaller depth finishes sooner"
                )
            except (SystemExit, KeyboardInterrupt):  # the worker's cold shutdown
                kept.failed(game_id, depth, WORKER_STOPPED)
                raise
        if failure is not None:
            kept.failed(game_id, depth, failure)
            log.warning("analyse_game: depth %d failed: %s", depth, failure)
            return "failed"
        kept.finished(game_id, depth, report)
        log.info("analyse_game: depth %d, %d points", depth, len(report["points"]))
    return "done"


class _Heartbeat:
    """Renews the analysis's lease every third of it while the job runs (a thread:
    one unit of work may take longer than a lease)."""

    def __init__(self, kept: Analyses, game_id: str, depth: int) -> None:
        self._lease = lease_ms()
        self._renew = lambda: kept.renew(game_id, depth, self._lease)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="analysis-lease", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._renew()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self._lease / 3000):
            try:
                self._renew()
            except Exception:  # Redis away for a moment: the next beat tries again
                log.warning("analysis lease not renewed", exc_info=True)
