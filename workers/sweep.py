"""The periodic sweep: what nothing else would re-drive (issue 36, item 10).

Games move on notifications: an append makes a job, a job's lease lets the
relay's watchdog make another. Three things fell through:

* a running game whose acting seat is a bot and whose job was lost together
  with its lease (a Redis restart without AOF, an operator's cleanup) waited
  for a notification that would never come;
* an open lobby nobody joins, and a running game nobody moves, were ended
  only when their creator created again (``service.application.quotas``, lazily);
* (tournaments are swept by the relay itself, ``Relay.sweep_tournaments``.)

So about once a minute one relay of all enqueues ``workers.jobs.sweep_games``
(one job a window, ``SWEEP_SECONDS``), which looks at every open and running
game: it ends the abandoned ones as the quotas would, and makes a job for a
game that waits for a bot while no job holds it. A game with a recent event
is skipped (its own jobs see to it), so a sweep costs a directory read and,
for quiet games, a head read each.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from service.application.games import GameService
from service.application.lobby import OPEN, RUNNING
from service.store.errors import GameNotFound
from workers.claims import Claims, new_job_id

log = logging.getLogger(__name__)
SWEEP_SECONDS = 60
QUIET_MS = 30_000  # a game with an event this recent is being played: not swept
MAX_GAMES = 10_000  # a sweep's share of work; the next one goes on from the newest


@dataclass
class Sweep:
    service: GameService
    claims: Claims
    enqueue: Callable[[str, str], None]  # (game id, job id): an advance_game job, claimed
    open_ms: int
    idle_ms: int
    now_ms: int

    def run(self) -> dict[str, int]:
        counts = {"looked": 0, "ended": 0, "woken": 0}
        lobby = self.service.lobby
        for status in (OPEN, RUNNING):
            games, _ = lobby.page([status], MAX_GAMES, None)
            for info in games:
                counts["looked"] += 1
                try:
                    outcome = self._one(info.game_id, status, info.created_ms, info.version)
                except GameNotFound:
                    continue  # deleted or expired meanwhile
                if outcome:
                    counts[outcome] += 1
        return counts

    def _one(self, game_id: str, status: str, created_ms: int, version: int) -> str | None:
        service = self.service
        if status == OPEN and version == 0:
            if self.now_ms - created_ms > self.open_ms:
                service.lobby.abandon(service.lobby.get(game_id))
                return "ended"
            return None
        head = service.log.version(game_id)
        last = service.log.envelopes(game_id, head, count=1)
        moved_ms = last[0].time_ms if last else created_ms
        quiet = self.now_ms - moved_ms
        if quiet <= QUIET_MS:
            return None
        if quiet > self.idle_ms:
            return "ended" if service.abandon(game_id) else None
        loaded = service.load(game_id)
        if loaded.state.phase == FINISHED or self.claims.holder(game_id) is not None:
            return None
        seat = acting_seat(loaded.state)
        seats = service.seat_info(game_id)
        if seat is None or seat not in seats or seats[seat].kind != "bot":
            return None  # a person's turn: their clock, if any, is the clock jobs' business
        job_id = new_job_id(game_id)
        if not self.claims.acquire(game_id, job_id):
            return None
        self.enqueue(game_id, job_id)
        log.info("sweep: woke game %s, a bot's turn with no job", game_id)
        return "woken"
