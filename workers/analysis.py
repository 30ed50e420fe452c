"""The analysis job (issue 37): a finished game's analysis, run by a worker.

Queued by ``POST /v1/games/{id}/analysis`` on the exports queue (the last a
worker takes from: a game in play never waits behind an analysis), with the
game's id, the depth and the head hash it was asked for. Safe to run twice:
a game whose head is no longer that one (deleted and created again) or an
analysis already done is left alone. Progress and the report are written
where ``service.application.analysis`` reads them.
"""

from __future__ import annotations

import logging

from riskcore.analysis import analyse
from service import logs
from workers.jobs import job_service

log = logging.getLogger(__name__)


def analyse_game(game_id: str, depth: int, head: str) -> str:
    service = job_service()
    kept = service.analyses
    with logs.context(game_id=game_id):
        loaded = service.load(game_id)
        if loaded.hash.hex() != head:
            return "stale"
        current = kept.read(game_id, depth, head)
        if current is not None and current["status"] == "done":
            return "done already"
        envelopes = list(service.log.envelopes(game_id))

        def progress(done: int, total: int) -> None:
            kept.progress(game_id, depth, done, total)

        try:
            report = analyse(envelopes, depth=depth, head=head, progress=progress)
        except ValueError as error:
            kept.failed(game_id, depth, str(error))
            return "failed"
        kept.finished(game_id, depth, report)
        log.info("analyse_game: depth %d, %d points", depth, len(report["points"]))
    return "done"
