"""What the archive keeps of one game, read from Redis (issue 48).

``Summaries`` builds games' rows (setup, seats and their names, status,
result, times, version and head) as of their version now, from the two ends
of each stream and a cache of their setups; ``checked_record`` a finished
game's complete record, verified with exactly what ``risk verify`` runs
(``riskcore.audit.verify``) and compressed, in its export form, to one gzip
member (``service.application.archived``), which an export sends as is. The
projector (``workers.projector``) and ``risk archive backfill`` both build
their rows here.
"""

from __future__ import annotations

import gzip
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from riskcore.audit.verify import verify_text
from riskcore.protocol import events as ev
from service.application.archived import export_form, info_json
from service.application.game_log import Ends
from service.application.game_types import Lru
from service.application.games import GameService
from service.application.lobby import FINISHED as DONE
from service.application.lobby import RUNNING, GameInfo
from service.application.records import export
from service.store.archive import GameRow, RecordRow, SeatRow

__all__ = ["RecordRefused", "Setup", "Summaries", "checked_record"]
log = logging.getLogger(__name__)
GZIP_LEVEL = 6  # ~8x on records; level 9 costs twice the time for ~3 % less


@dataclass(frozen=True, slots=True)
class RecordRefused(Exception):
    """A finished game's record that did not verify: it is never archived."""

    game_id: str
    reason: str

    def __str__(self) -> str:
        return f"record of {self.game_id} did not verify: {self.reason}"


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game's summary keeps for the game's life: its lobby info (seats fixed
    once it started), that info as the archive's JSON, and the game it was forked
    from; ``first_hash`` is its first event's, which tells it from another game
    later created under the same id."""

    info: GameInfo
    info_json: str
    parent: str | None
    first_hash: bytes


class Summaries:
    """Games' summary rows as of their newest events, many at a time (issue 48).

    A row needs what never changes after the start (``Setup``, read once per game
    and kept in an LRU of ``cache_games``) and what the last event says: the
    version and head, and, when it is ``GameFinished``, the winners, why and
    when. So a row costs the reads of both ends of its stream (one round trip for
    the whole batch) and the decoding of one event, however many events the game
    gained since the last row: no fold (only ``GameFinished`` ends a game, and
    nothing follows it).
    """

    def __init__(self, service: GameService, *, cache_games: int = 4096) -> None:
        self.service = service
        self._setups: Lru[Setup] = Lru(cache_games)

    def rows(self, game_ids: Sequence[str]) -> list[GameRow]:
        """The rows of ``game_ids`` that have events (a lobby's or a deleted game's are
        left out), in their order."""
        ends = self.service.log.ends(game_ids)
        setups = self._setups_of(ends)
        rows: list[GameRow] = []
        for game_id in game_ids:
            found, setup = ends.get(game_id), setups.get(game_id)
            if found is not None and setup is not None:
                rows.append(self._row(game_id, found, setup))
        self.service.settle_finished({r.game_id: r.version for r in rows if r.status == DONE})
        return rows

    def _setups_of(self, ends: dict[str, Ends]) -> dict[str, Setup]:
        """The setups of the games of ``ends``: those not kept yet (or of a game since
        created again under its id) read in one round trip."""
        setups: dict[str, Setup] = {}
        for game_id, found in ends.items():
            kept = self._setups.get(game_id)
            if kept is not None and kept.first_hash == found.first_hash:
                setups[game_id] = kept
        new = [game_id for game_id in ends if game_id not in setups]
        for info in self.service.lobby.many(new) if new else ():  # deleted ones are left out
            found = ends[info.game_id]
            first = found.first().event
            parent = first.parent_game_id if isinstance(first, ev.GameForked) else None
            setup = Setup(info, info_json(info), parent, found.first_hash)
            self._setups.put(info.game_id, setup)
            setups[info.game_id] = setup
        return setups

    def _row(self, game_id: str, ends: Ends, setup: Setup) -> GameRow:
        info = setup.info
        end = ends.last.event if isinstance(ends.last.event, ev.GameFinished) else None
        winners = set(end.winners) | ({end.winner} if end.winner else set()) if end else set()
        seats = tuple(
            SeatRow(
                seat=s.seat,
                kind=s.kind,
                name=s.shown_name,
                bot=s.bot,
                level=s.level,
                account_id=s.account,  # issue 49: the account the seat is bound to
                result=(("won" if s.seat in winners else "lost") if end else None),
            )
            for s in info.seats
        )
        return GameRow(
            game_id=game_id,
            mode=info.mode,
            board=info.board,
            status=DONE if end else RUNNING,
            created_ms=info.created_ms,
            updated_ms=int(time.time() * 1000),
            version=ends.head.version,
            head=ends.head.hash.hex(),
            info=setup.info_json,
            seats=seats,
            winner=end.winner if end else None,
            outcome=end.reason if end else None,
            tournament=info.tournament,
            parent=setup.parent,
            finished_ms=ends.last.time_ms if end else None,
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
