"""Quotas of open and running games per creator, and ending abandoned lobbies.

One address created 1,200 games in 8.5 s before the rate limit stopped it,
and games never went away. So each creator (its address, and the bearer
token it created with, where there is one) may have at most ``limit``
*active* games at once. A game stops counting when it is finished, deleted,
or abandoned:

* an open game that nobody joined for ``open_seconds`` is ended as
  abandoned: it is listed as finished, its seats can no longer be joined,
  and its lobby record is kept (``Lobby.abandon``);
* a running game with no event for ``idle_seconds`` is ended as abandoned:
  the server's own ``abandon`` command finishes it with no winner, in its
  record like any other command (so the record is kept and verifies).

The active games of a creator are a sorted set per creator in Redis
(``service.store.quotas.ActiveGames``): game id → creation ms. A creation first adds a
``pending:`` placeholder, then counts; over the limit, the placeholder goes
again and the creation is refused, so concurrent creations can never pass
the limit together. Counting prunes the set: what no longer counts is
removed, which is where abandoned lobbies are ended when their creator
creates again; the workers' sweep (``workers.sweep``, about once a minute)
ends the others.

A tournament schedules its games itself, ``parallel`` at a time, so it holds
that many places of its creator's quota for as long as it runs (members
``tournament:<id>:<k>``): one request can no longer start more games at once
than its creator could create by hand.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from service.application.game_log import GameLog
from service.application.lobby import FINISHED, OPEN, RUNNING, Lobby
from service.application.tournaments import RUNNING as TOURNAMENT_RUNNING
from service.store.errors import GameNotFound
from service.store.keys import KeySpace
from service.store.quotas import ActiveGames
from service.store.tournaments import TournamentRecords
from service.store.values import Client

__all__ = ["Creator", "GameQuota", "GameQuotaExceeded", "Ticket"]

PENDING = "pending:"
TOURNAMENT = "tournament:"
PENDING_MS = 60_000  # a creation that takes longer than this has failed


class Creator(NamedTuple):
    """Who creates: ``scope`` "ip" or "token", its id there, and its limit (0: none)."""

    scope: str
    ident: str
    limit: int


class Ticket(NamedTuple):
    keys: tuple[str, ...]
    placeholders: tuple[str, ...]


class GameQuotaExceeded(Exception):
    def __init__(self, scope: str, limit: int) -> None:
        super().__init__(
            f"this {scope} already has {limit} open or running games; finish or leave one first"
        )
        self.scope = scope
        self.limit = limit


class GameQuota:
    def __init__(
        self,
        client: Client,
        keys: KeySpace,
        lobby: Lobby,
        log: GameLog,
        *,
        open_seconds: float,
        idle_seconds: float,
        abandon: Callable[[str], object] = lambda game_id: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._active_games = ActiveGames(client, keys)
        self._tournaments = TournamentRecords(client, keys)
        self._lobby = lobby
        self._log = log
        self._open_ms = int(open_seconds * 1000)
        self._idle_ms = int(idle_seconds * 1000)
        self._abandon = abandon
        self._clock = clock

    def reserve(self, creators: Sequence[Creator], places: int = 1) -> Ticket:
        """Hold ``places`` more games of each creator; GameQuotaExceeded if over."""
        counted = [c for c in creators if c.limit > 0]
        token = secrets.token_hex(8)
        placeholders = tuple(f"{PENDING}{token}:{k}" for k in range(places))
        keys: list[str] = []
        for creator in counted:
            key = self._active_games.key(creator.scope, creator.ident)
            keys.append(key)
            self._active_games.add(key, placeholders, self._now_ms())
            if self._active(key) > creator.limit:
                self.cancel(Ticket(tuple(keys), placeholders))
                raise GameQuotaExceeded(creator.scope, creator.limit)
        return Ticket(tuple(keys), placeholders)

    def check(self, creators: Sequence[Creator]) -> None:
        """GameQuotaExceeded unless each creator could create a game now (a game made
        later, by others' answers or a pairing, is then ``count``-ed)."""
        self.cancel(self.reserve(creators))

    def count(self, creators: Sequence[Creator], game_id: str, created_ms: int) -> None:
        """``game_id`` counts against each creator from now on, over the limit or not:
        a game several people agreed to is not refused for one of them."""
        for creator in creators:
            if creator.limit > 0:
                key = self._active_games.key(creator.scope, creator.ident)
                self._active_games.add(key, [game_id], created_ms)

    def confirm(self, ticket: Ticket, game_id: str, created_ms: int) -> None:
        """The game exists: it takes the placeholder's place."""
        self._replace(ticket, {game_id: created_ms})

    def confirm_tournament(self, ticket: Ticket, tournament_id: str, created_ms: int) -> None:
        """The tournament exists: it holds the places while it runs."""
        members = {
            f"{TOURNAMENT}{tournament_id}:{k}": created_ms for k in range(len(ticket.placeholders))
        }
        self._replace(ticket, members)

    def cancel(self, ticket: Ticket) -> None:
        for key in ticket.keys:
            self._active_games.remove(key, ticket.placeholders)

    def _replace(self, ticket: Ticket, members: dict[str, int]) -> None:
        self._active_games.replace(ticket.keys, ticket.placeholders, members)

    def _active(self, key: str) -> int:
        """Members that still count, after removing those that do not."""
        now = self._now_ms()
        members = self._active_games.members(key)
        games = [m for m in members if not m.startswith(PENDING)]
        stale = [m for m in members if m.startswith(PENDING) and self._is_stale(key, m, now)]
        gone = stale + [g for g in games if not self._counts(g, now)]
        self._active_games.remove(key, gone)
        return len(members) - len(gone)

    def _is_stale(self, key: str, member: str, now: int) -> bool:
        score = self._active_games.added_at(key, member)
        return score is None or now - score > PENDING_MS

    def _counts(self, game_id: str, now: int) -> bool:
        if game_id.startswith(TOURNAMENT):
            tournament_id = game_id.split(":")[1]
            return self._tournaments.status(tournament_id) == TOURNAMENT_RUNNING
        try:
            info = self._lobby.get(game_id)
        except GameNotFound:
            return False
        if info.status == FINISHED:
            return False
        if info.status == OPEN and info.version == 0:
            if now - info.created_ms <= self._open_ms:
                return True
            self._lobby.abandon(info)
            return False
        if info.status == RUNNING or info.version > 0:
            head = self._log.version(game_id)  # the lobby's version is the start's
            last = self._log.envelopes(game_id, head, count=1)
            moved = last[0].time_ms if last else info.created_ms
            if now - moved <= self._idle_ms:
                return True
            self._abandon(game_id)
            return False
        return True

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)
