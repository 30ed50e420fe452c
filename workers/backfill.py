"""``risk archive backfill``: archive the finished games still in Redis (issue 48).

For games that finished before the projector ran, or whose notifications it
never saw (the outbox is trimmed at 100,000 entries, so a projector away for
long misses some): every game the store lists is projected as the projector
would (``workers.archiving``), a batch at a time, and its record archived if
it has finished and has none yet. Idempotent: run it as often as you like.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.application.games import GameService
from service.store.archive import Archive, RecordRow
from service.store.errors import GameNotFound
from workers.archiving import RecordRefused, Summaries, checked_record

__all__ = ["Backfilled", "backfill"]
log = logging.getLogger(__name__)


@dataclass
class Backfilled:
    games: int = 0
    records: int = 0
    refused: int = 0


def backfill(
    service: GameService,
    archive: Archive,
    *,
    batch: int = 50,
    progress: Callable[[Backfilled], None] | None = None,
) -> Backfilled:
    """Project every game in the store; archive the records finished games lack."""
    done = Backfilled()
    summaries = Summaries(service, cache_games=batch)
    ids = service.store.list_games()
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        recorded = archive.recorded(chunk)
        games = summaries.rows(chunk)
        records: list[RecordRow] = []
        for row in games:
            if row.finished_ms is not None and row.game_id not in recorded:
                try:
                    records.append(checked_record(service, row.game_id))
                except RecordRefused as error:
                    log.error("%s", error)
                    done.refused += 1
                except GameNotFound:  # deleted meanwhile
                    continue
        archive.write(games, records, int(time.time() * 1000))
        done.games += len(games)
        done.records += len(records)
        if progress is not None:
            progress(done)
    return done
