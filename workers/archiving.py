"""What the archive keeps of one game, read from Redis (issue 48).

``summary`` is a game's row (setup, seats and their names, status, result,
times, version and head) as of its version now; ``checked_record`` a
finished game's complete record, verified with exactly what ``risk verify``
runs (``riskcore.audit.verify``) and compressed, in its export form, to one
gzip member (``service.application.archived``), which an export sends as
is. The projector (``workers.projector``) and ``risk archive backfill`` both
build their rows here.
"""

from __future__ import annotations

import gzip
import logging
import time
from dataclasses import dataclass

from riskcore.audit.verify import verify_text
from riskcore.model.state import FINISHED
from riskcore.protocol import events as ev
from service.application.archived import export_form, info_json
from service.application.games import GameService
from service.application.lobby import FINISHED as DONE
from service.application.lobby import RUNNING
from service.application.records import export
from service.store.archive import GameRow, RecordRow, SeatRow

__all__ = ["RecordRefused", "checked_record", "summary"]
log = logging.getLogger(__name__)
GZIP_LEVEL = 6  # ~8x on records; level 9 costs twice the time for ~3 % less


@dataclass(frozen=True, slots=True)
class RecordRefused(Exception):
    """A finished game's record that did not verify: it is never archived."""

    game_id: str
    reason: str

    def __str__(self) -> str:
        return f"record of {self.game_id} did not verify: {self.reason}"


def summary(service: GameService, game_id: str) -> GameRow:
    """The game's summary row now (GameNotFound / GameNotStarted pass on)."""
    info, loaded = service.current(game_id)
    if loaded is None:  # a lobby: its notification came with its first append
        raise LookupError(game_id)
    state = loaded.state
    finished = state.phase == FINISHED
    winners = set(state.winners) | ({state.winner} if state.winner else set())
    first = service.log.envelopes(game_id, 1, 1)
    parent = first[0].event.parent_game_id if isinstance(first[0].event, ev.GameForked) else None
    outcome, finished_ms = None, None
    if finished:
        last = service.log.envelopes(game_id, loaded.version, loaded.version)[0]
        if isinstance(last.event, ev.GameFinished):
            outcome = last.event.reason
        finished_ms = last.time_ms
    seats = tuple(
        SeatRow(
            seat=s.seat,
            kind=s.kind,
            name=s.shown_name,
            bot=s.bot,
            level=s.level,
            account_id=s.account,  # issue 49: the account the seat is bound to
            result=(("won" if s.seat in winners else "lost") if finished else None),
        )
        for s in info.seats
    )
    return GameRow(
        game_id=game_id,
        mode=info.mode,
        board=info.board,
        status=DONE if finished else RUNNING,
        created_ms=info.created_ms,
        updated_ms=int(time.time() * 1000),
        version=loaded.version,
        head=loaded.hash.hex(),
        info=info_json(info),
        seats=seats,
        winner=state.winner,
        outcome=outcome,
        tournament=info.tournament,
        parent=parent,
        finished_ms=finished_ms,
    )


def checked_record(service: GameService, game_id: str) -> RecordRow:
    """The finished game's complete record, verified, as one gzip member."""
    text = export(service, game_id)
    verdict = verify_text(text)
    if not verdict.ok:
        reason = verdict.divergence.message if verdict.divergence else verdict.status
        raise RecordRefused(game_id, str(reason))
    packed = gzip.compress(export_form(text).encode(), compresslevel=GZIP_LEVEL, mtime=0)
    return RecordRow(game_id, packed, verdict.events, len(text.encode()))
