"""Players' ratings per mode (issue 49): openskill's Plackett-Luce over rated games.

Every rated game that finishes changes the rating of each seat's account
for the game's mode. Humans and bot accounts share one pool. As in the
tournament tables (``service.application.ratings``), the winners share
first place and every other seat ties second. A rating is provisional
while its uncertainty is large (``sigma`` ≥ ``PROVISIONAL_SIGMA``, about
the first ten games); leaderboards sort by the ordinal ``mu - 3 sigma``.

``rate_finished_game`` is the pure step (a result and the ratings before
→ the ratings after). The ratings are a projection of the log of rated
results (``rated_games``): ``PlayerRatings.rebuild`` replays it, in the order
the games finished, and gets the same table. Finished games reach the log
two ways, each idempotent per game (the log's row is inserted once):

* the archive's projector (``workers.projector``, issue 48) rates each rated
  game whose summary row says it finished (``result_from_row``), as soon as
  it projects it;
* a Redis list the lobby fills when a rated game finishes (``Lobby.move``):
  ``catch_up`` drains it before every read of ratings and from
  ``risk archive ratings``, so ratings are current even without a projector.

Both stamp a result with the time the game finished (its last event's), so
the log's order is the games' order whichever path rated them first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping

from openskill.models import PlackettLuce

from riskcore.model.state import FINISHED
from service.application.games import GameService
from service.application.lobby import FINISHED as LISTED_FINISHED
from service.store.archive import Archive, Filters, GameRow
from service.store.errors import GameNotFound
from service.store.ratings import FinishedQueue, RatedGame, RatingRow, RatingStore

__all__ = [
    "PROVISIONAL_SIGMA",
    "PlayerRatings",
    "RatedGame",
    "rate_finished_game",
    "result_from_row",
    "start",
]

_MODEL = PlackettLuce()
PROVISIONAL_SIGMA = 5.0
BATCH = 100


def start(account_id: str, mode: str) -> RatingRow:
    """A new player's rating: openskill's prior (25, 25/3), provisional."""
    prior = _MODEL.rating()
    return _rating_row(account_id, mode, prior.mu, prior.sigma, 0)


def rate_finished_game(game: RatedGame, current: Mapping[str, RatingRow]) -> dict[str, RatingRow]:
    """The ratings of ``game``'s accounts after it (``current``: theirs before, if any).

    An account in two seats of one game (it played itself) counts once, as
    a winner if either seat won.
    """
    won: dict[str, bool] = {}
    for account, seat_won in game.seats:
        won[account] = won.get(account, False) or seat_won
    if len(won) < 2:
        return {}
    before = {a: current.get(a) or start(a, game.mode) for a in won}
    teams = [[_MODEL.rating(mu=before[a].mu, sigma=before[a].sigma)] for a in won]
    ranks = [1.0 if won[a] else 2.0 for a in won]
    rated = _MODEL.rate(teams, ranks=ranks)
    return {
        a: _rating_row(a, game.mode, new.mu, new.sigma, before[a].games + 1)
        for a, (new,) in zip(won, rated, strict=True)
    }


def result_from_row(row: GameRow) -> RatedGame | None:
    """The rated result of a game's archive row (``workers.archiving.summary``): None
    unless it is a rated game that finished. Its seats' accounts and results are the
    row's; its time the game's last event's."""
    if row.finished_ms is None or not json.loads(row.info).get("rated"):
        return None
    seats = tuple((s.account_id, s.result == "won") for s in row.seats if s.account_id)
    return RatedGame(row.game_id, row.mode, row.finished_ms, seats)


def _rating_row(account_id: str, mode: str, mu: float, sigma: float, games: int) -> RatingRow:
    ordinal = mu - 3.0 * sigma
    return RatingRow(account_id, mode, mu, sigma, ordinal, games, sigma >= PROVISIONAL_SIGMA)


class PlayerRatings:
    """Rate finished games, read ratings and leaderboards, rebuild the table."""

    def __init__(
        self,
        store: RatingStore,
        queue: FinishedQueue,
        games: GameService,
        *,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.store = store
        self._queue = queue
        self._games = games
        self._now_ms = now_ms

    def rate(self, game: RatedGame) -> bool:
        """Rate one result (False: rated before, or fewer than two accounts)."""
        updated = rate_finished_game(game, self.store.of(game.mode, (a for a, _ in game.seats)))
        return bool(updated) and self.store.record(game, updated)

    def catch_up(self) -> int:
        """Rate the rated games that finished since the last call: how many."""
        done = 0
        while ids := self._queue.take(BATCH):
            for game_id in ids:
                result = self.result_of(game_id)
                if result is not None and self.rate(result):
                    done += 1
        return done

    def result_of(self, game_id: str) -> RatedGame | None:
        """The rated result of a finished game still in Redis (None: not one to rate)."""
        try:
            info = self._games.lobby.get(game_id)
            if not info.rated or info.version == 0:
                return None
            loaded = self._games.load(game_id)
            state = loaded.state
            if state.phase != FINISHED:
                return None
            last = self._games.log.envelopes(game_id, loaded.version, loaded.version)
        except GameNotFound:
            return None
        seats = tuple(
            (s.account, s.seat in state.winners or s.seat == state.winner)
            for s in info.seats
            if s.account is not None
        )
        finished_ms = last[0].time_ms if last else self._now_ms()
        return RatedGame(game_id, info.mode, finished_ms, seats)

    def rate_archived(self, archive: Archive, page: int = 500) -> int:
        """Rate the archive's finished rated games the log lacks (say Redis lost them
        before anything rated them), oldest first: how many. ``rebuild`` after it
        orders the log's games by finish time again."""
        results: list[RatedGame] = []
        cursor: str | None = None
        while True:
            rows, cursor = archive.page(Filters(status=LISTED_FINISHED), page, cursor)
            results += [r for r in map(result_from_row, rows) if r is not None]
            if cursor is None:
                break
        ordered = sorted(results, key=lambda r: (r.finished_ms, r.game_id))
        return sum(1 for result in ordered if self.rate(result))

    def rebuild(self) -> int:
        """Replay the log of rated results into a new table: how many games."""
        table: dict[tuple[str, str], RatingRow] = {}
        games = self.store.log()
        for game in games:
            current = {a: table[a, game.mode] for a, _ in game.seats if (a, game.mode) in table}
            for account, row in rate_finished_game(game, current).items():
                table[account, game.mode] = row
        self.store.replace_all(table.values())
        return len(games)

    def of_account(self, account_id: str) -> list[RatingRow]:
        self.catch_up()
        return self.store.of_account(account_id)

    def leaderboard(self, mode: str, limit: int) -> list[tuple[RatingRow, str, str]]:
        self.catch_up()
        return self.store.top(mode, limit)
