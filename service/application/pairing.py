"""The quick-pairing queue (issue 49): play whoever else is waiting, or bots.

A seeker asks for a mode and a seat count (its *bucket*, rated or not) and
how long it will wait. As soon as the bucket holds enough seekers for a game
they are paired, in the order they came; when a seeker's wait is over, the
oldest others of its bucket join it and bots of its chosen level fill the
seats left. The queue is ``service.store.pairing`` (one Lua script decides
every match); this module makes the matches' games: right after the match by
whoever made it (the joining request), or by the workers' pairing sweep
(``workers.pairing_jobs``) for the matches of ended waits, and for any
match whose maker died before its game existed (the game id is chosen with
the match, so making it again finds it).

An account's seat is bound to it (its token plays it, its webhooks hear of
it); a seeker without an account gets a seat token at once, shown once, whose
hash the game's seat takes. The seek's id is unguessable: it is how the
seeker polls for its game (``GET /v1/pairing/{id}``). One account waits in
one seek at a time. A paired game counts against each seeker's quota of
active games and its budget of stored games (``service.application.storage``),
its account's or an anonymous seeker's address's: checked when it joins,
counted when the game is made (whatever the count then, as a challenge's).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from riskcore.engine.registry import mode_named
from riskcore.errors import RiskError
from service.application import auth
from service.application.accounts import Accounts
from service.application.challenge_errors import (
    AlreadyPaired,
    AlreadySeeking,
    RatedNeedsAccount,
    SeekNotFound,
)
from service.application.errors import ServiceError
from service.application.game_types import SeatPlan
from service.application.games import GameService
from service.application.lobby import GameInfo
from service.application.quotas import Creator, GameQuota
from service.application.storage import StorageBudget, stored_budget
from service.store.accounts import AccountRow
from service.store.errors import GameNotFound
from service.store.pairing import FAILED, LEFT, MATCHED, Match, PairingQueue, Seek

__all__ = ["Pairing", "SeekRequest"]

KEEP_MS = 24 * 3600 * 1000  # a seek is kept this long after its wait (to be read back)
LOCK_MS = 30_000  # the longest a game's making may take before another process may try
STALE_MATCH_MS = 10_000  # a match older than this without its game: its maker died
FILLS_PER_SWEEP = 200


@dataclass(frozen=True, slots=True)
class SeekRequest:
    """What ``POST /v1/pairing`` asks for, once its body is checked."""

    mode: str | None = None
    players: int | None = None
    wait_s: float = 30.0
    level: str = "medium"
    rated: bool | None = None  # default: rated for an account, not for anyone else
    name: str | None = None  # an anonymous seeker's name in the game


class Pairing:
    """Join, read and leave the queue; make the games of its matches."""

    def __init__(
        self,
        queue: PairingQueue,
        games: GameService,
        accounts: Accounts,
        quotas: GameQuota,
        storage: StorageBudget,
        *,
        games_per_account: int,
        games_per_address: int,
        stored_per_account: int,
        stored_per_address: int,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        """``stored_per_*``: the budgets of stored games (0: none; ``stored_budget``)."""
        self.queue = queue
        self._games = games
        self._accounts = accounts
        self._quotas = quotas
        self._storage = storage
        self._per_account = games_per_account
        self._per_address = games_per_address
        self._stored_limits = {"account": stored_per_account, "ip": stored_per_address}
        self._now_ms = now_ms

    def join(
        self, request: SeekRequest, account: AccountRow | None, address: str
    ) -> tuple[Seek, str | None]:
        """A new seek (paired at once when it completes a game), and an anonymous
        seeker's seat token; AlreadySeeking for an account that waits already."""
        rated = account is not None if request.rated is None else request.rated
        if rated and account is None:
            raise RatedNeedsAccount()
        mode = request.mode or ("two_player" if request.players == 2 else "classic")
        players = request.players or (2 if mode == "two_player" else 3)
        self._games.check_setup(mode_named(mode).board, mode, None, players)
        creator = self._creator(account, address)
        self._quotas.check([creator])
        self._storage.check([stored_budget(creator, self._stored_limits)])
        token = None if account is not None else auth.new_token()
        now, wait_ms = self._now_ms(), round(request.wait_s * 1000)
        seek = Seek(
            id="pk_" + secrets.token_urlsafe(18),
            mode=mode,
            players=players,
            rated=rated,
            level=request.level,
            wait_ms=wait_ms,
            joined_ms=now,
            fill_ms=now + wait_ms,
            account=None if account is None else account.id,
            name=request.name if account is None else account.name,
            token_hash=None if token is None else auth.hash_token(token),
            address=None if account is not None else address,
        )
        status, other = self.queue.join(seek, _new_game_id(), wait_ms + KEEP_MS)
        if status == "held":
            raise AlreadySeeking(str(other))
        if status == MATCHED and other is not None:
            self.finish(other)
        return self.seek(seek.id), token

    def seek(self, seek_id: str) -> Seek:
        """The seek as it is; a match whose maker died is finished on the way."""
        found = self.queue.seek(seek_id) if len(seek_id) <= 40 else None
        if found is None:
            raise SeekNotFound(seek_id)
        if found.status == MATCHED and found.game is not None:
            self.finish(found.game)
            found = self.queue.seek(seek_id) or found
        return found

    def leave(self, seek_id: str) -> None:
        """Leave the queue (again: a safe retry); AlreadyPaired once it was matched."""
        status = self.queue.leave(seek_id) if len(seek_id) <= 40 else None
        if status is None:
            raise SeekNotFound(seek_id)
        if status not in (LEFT, FAILED):
            found = self.queue.seek(seek_id)
            raise AlreadyPaired(seek_id, None if found is None else found.game)

    # -- the sweep (workers.pairing_jobs) ------------------------------------------

    def fill_due(self) -> int:
        """Match every seek whose wait is over (bots fill in): how many games."""
        made = 0
        for _ in range(FILLS_PER_SWEEP):
            game = self.queue.fill_next(self._now_ms(), _new_game_id(), KEEP_MS)
            if game is None:
                break
            if game and self.finish(game) is not None:
                made += 1
        return made

    def recover(self) -> int:
        """Make the games of matches whose maker died: how many."""
        stale = self.queue.stale_matches(self._now_ms() - STALE_MATCH_MS)
        return sum(1 for game in stale if self.finish(game) is not None)

    def finish(self, game: str) -> GameInfo | None:
        """Make the match's game (once, whoever calls; None if another process is at it,
        or the match is gone or could not be made)."""
        owner = secrets.token_hex(8)
        if not self.queue.lock(game, owner, LOCK_MS):
            return None
        try:
            match = self.queue.match(game)
            if match is None:
                return None
            info: GameInfo | None
            try:
                info = self._games.info(game)  # made before its maker died
            except GameNotFound:
                info = self._create(match)
            if info is not None:
                self.queue.paired(game, match.members)
            return info
        finally:
            self.queue.unlock(game, owner)

    def _create(self, match: Match) -> GameInfo | None:
        seeks = [self.queue.seek(member) for member in match.members]
        found = [s for s in seeks if s is not None]
        if len(found) != len(seeks):
            self.queue.failed(match.game, match.members, "a seek expired before its game")
            return None
        first = found[0]
        plans = [self._seat(s) for s in found]
        for _ in range(first.players - len(found)):
            bot = self._accounts.bot(match.level or first.level)
            plans.append(SeatPlan("bot", name=bot.name, level=bot.level, account=bot.id))
        try:
            created = self._games.create(
                seats=plans, mode=first.mode, rated=first.rated, game_id=match.game
            )
        except (ServiceError, RiskError) as error:  # a setup checked at the join: a bug
            self.queue.failed(match.game, match.members, str(error))
            return None
        creators = [self._creator_of(s) for s in found]
        self._quotas.count(creators, match.game, created.info.created_ms)
        self._storage.count([stored_budget(c, self._stored_limits) for c in creators])
        return created.info

    @staticmethod
    def _seat(seek: Seek) -> SeatPlan:
        if seek.account is not None:
            return SeatPlan("human", name=seek.name, account=seek.account)
        return SeatPlan("human", name=seek.name, token_hash=seek.token_hash)

    def _creator(self, account: AccountRow | None, address: str) -> Creator:
        if account is not None:
            return Creator("account", account.id, self._per_account)
        return Creator("ip", address, self._per_address)

    def _creator_of(self, seek: Seek) -> Creator:
        if seek.account is not None:
            return Creator("account", seek.account, self._per_account)
        return Creator("ip", seek.address or "unknown", self._per_address)


def _new_game_id() -> str:
    return "g" + secrets.token_hex(8)
