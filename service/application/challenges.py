"""Challenges (issue 49): games against bots at once, or against accounts who answer.

``POST /v1/challenges`` with only ``{"bots": ["medium", "medium"]}`` seats the
caller's account first and a bot of each level after it, and the game starts
at once (``challenge_seats``). Each level plays as its bot account
(``bot-easy``, ``bot-medium``, ``bot-hard``), so a rated challenge changes
the bot account's rating as well as the person's: humans and bots share one
pool.

A challenge that names accounts (``opponents``) or has open seats (``open``)
is kept (``service.store.challenges``) until every seat is accepted: each
named account accepts or declines (one decline ends it), anyone holding the
challenge's id (an unguessable link) takes an open seat, with an account
token (the seat is bound to the account) or without (a seat token is made
then, shown once, and only its hash kept; a rated challenge's seats are
accounts' only, as ratings are). The last acceptance makes the
game, with a game id derived from the challenge's, so a start that died
half-way is finished by the next request instead of making a second game.
A challenge expires unanswered after ``RISK_CHALLENGE_HOURS`` (or the
``expires_in`` it asked for). Its game counts against the challenger's
account's quota of active games (``RISK_GAMES_PER_TOKEN``) and its budget of
stored games (``RISK_STORED_GAMES_PER_TOKEN``, ``service.application.storage``):
a challenger with no room left in either is refused when it challenges, and a
game everyone agreed to is then made whatever the count (``GameQuota.count``,
``StorageBudget.count``).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from riskcore.engine.registry import mode_named
from service.application import auth
from service.application.accounts import AccountNotFound, Accounts
from service.application.challenge_errors import (
    AlreadyAnswered,
    AlreadySeatedHere,
    ChallengeClosed,
    ChallengeExpired,
    ChallengeFull,
    ChallengeNotFound,
    NotAddressed,
    NotChallenger,
    OpponentIsBot,
    RatedNeedsAccount,
    SelfChallenge,
    TooManyChallenges,
    UnknownPlayer,
)
from service.application.challenge_events import accepted_event, received_events
from service.application.game_types import SeatPlan
from service.application.games import GameService
from service.application.lobby import GameInfo
from service.application.quotas import Creator, GameQuota
from service.application.storage import StorageBudget, stored_budget
from service.application.webhooks import Webhooks
from service.store.accounts import AccountRow
from service.store.challenges import (
    ACCEPTED,
    CANCELLED,
    DECLINED,
    EXPIRED,
    PENDING,
    AlreadySeated,
    ChallengeRow,
    ChallengeSeat,
    ChallengeStore,
    accounts_of,
)
from service.store.errors import GameNotFound

__all__ = [
    "Answered",
    "ChallengeRequest",
    "Challenges",
    "challenge_game_id",
    "challenge_seats",
    "default_mode",
]

MAX_PENDING = 20  # pending challenges an account may have made
START_STALE_MS = 30_000  # a start held this long was lost with its process: take it over
KEEP_ENDED_MS = 30 * 24 * 3600 * 1000  # ended challenges are forgotten after 30 days


def challenge_seats(
    accounts: Accounts, challenger: AccountRow, levels: Sequence[str]
) -> list[SeatPlan]:
    """The seats of a challenge of bots: the challenger, then each level's bot account."""
    seats = [SeatPlan("human", name=challenger.name, account=challenger.id)]
    for level in levels:
        bot = accounts.bot(level)
        seats.append(SeatPlan("bot", name=bot.name, level=level, account=bot.id))
    return seats


def default_mode(mode: str | None, players: int) -> str | None:
    """The mode asked for; for two players, the two-player game (classic needs three)."""
    if mode is None and players == 2:
        return "two_player"
    return mode


def challenge_game_id(challenge_id: str) -> str:
    """The game a challenge becomes: derived, so that starting it twice finds it."""
    return "g" + hashlib.sha256(f"challenge:{challenge_id}".encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ChallengeRequest:
    """What ``POST /v1/challenges`` asks for, once its body is checked."""

    opponents: tuple[str, ...] = ()
    open_seats: int = 0
    bots: tuple[str, ...] = ()
    mode: str | None = None
    board: str | None = None
    rated: bool = True
    expires_in_s: float | None = None


@dataclass(frozen=True, slots=True)
class Answered:
    """A seat accepted: the challenge after it, the seat, an anonymous taker's seat
    token (shown once), and the game once the last seat made it."""

    challenge: ChallengeRow
    seat: str
    token: str | None
    game: GameInfo | None


class Challenges:
    """Make, answer, cancel and list challenges; start their games."""

    def __init__(
        self,
        store: ChallengeStore,
        accounts: Accounts,
        games: GameService,
        webhooks: Webhooks,
        quotas: GameQuota,
        storage: StorageBudget,
        *,
        expiry_s: float,
        games_per_account: int,
        stored_per_account: int,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        """``stored_per_account``: the budget of stored games (0: none; ``stored_budget``)."""
        self.store = store
        self._accounts = accounts
        self._games = games
        self._webhooks = webhooks
        self._quotas = quotas
        self._storage = storage
        self._expiry_ms = round(expiry_s * 1000)
        self._games_per_account = games_per_account
        self._stored_limits = {"account": stored_per_account}
        self._now_ms = now_ms

    # -- making ----------------------------------------------------------------

    def make(self, challenger: AccountRow, request: ChallengeRequest) -> ChallengeRow:
        """A new pending challenge; its named accounts receive it."""
        now = self._now_ms()
        kinds: list[tuple[str, str | None, str | None]] = [
            ("named", self._opponent(challenger, n).id, None) for n in request.opponents
        ]
        kinds += [("open", None, None)] * request.open_seats
        kinds += [("bot", None, level) for level in request.bots]
        seats = [ChallengeSeat("p1", "challenger", challenger.id, answer=ACCEPTED, answered_ms=now)]
        for index, (kind, account, level) in enumerate(kinds, 2):
            answer = ACCEPTED if kind == "bot" else PENDING
            seats.append(ChallengeSeat(f"p{index}", kind, account, level, answer))
        mode = default_mode(request.mode, len(seats)) or "classic"
        board = request.board or mode_named(mode).board
        self._games.check_setup(board, mode, None, len(seats))
        if self.store.pending_count(challenger.id, now) >= MAX_PENDING:
            raise TooManyChallenges(MAX_PENDING)
        creator = self._creator(challenger.id)
        self._quotas.check([creator])
        self._storage.check([stored_budget(creator, self._stored_limits)])
        expires = now + (
            round(request.expires_in_s * 1000) if request.expires_in_s else self._expiry_ms
        )
        row = ChallengeRow(
            "ch_" + secrets.token_urlsafe(18),
            challenger.id,
            mode,
            request.board,
            request.rated,
            PENDING,
            now,
            expires,
            tuple(seats),
        )
        self.store.create(row)
        base = self._webhooks.settings.public_url
        self._webhooks.emit(received_events(row, self.names([row]), base))
        return row

    def _opponent(self, challenger: AccountRow, name: str) -> AccountRow:
        try:
            found = self._accounts.named(name)
        except AccountNotFound:
            raise UnknownPlayer(name) from None
        if found.id == challenger.id:
            raise SelfChallenge()
        if found.kind == "bot":
            raise OpponentIsBot(name)
        return found

    # -- reading ---------------------------------------------------------------

    def get(self, challenge_id: str, caller: AccountRow | None) -> ChallengeRow:
        """The challenge, if the caller may see it (a party to it, or anyone for a
        challenge with open seats); a start a dead process left is finished here."""
        row = self._visible(challenge_id, caller)
        return self._start_if_ready(row)[0]

    def of_account(
        self, account: AccountRow, *, pending_only: bool, limit: int
    ) -> tuple[list[ChallengeRow], list[ChallengeRow]]:
        """(incoming, outgoing): challenges naming the account, and its own."""
        at = self._now_ms() if pending_only else None
        incoming = self.store.incoming(account.id, limit, pending_at=at)
        outgoing = self.store.outgoing(account.id, limit, pending_at=at)
        return incoming, outgoing

    def names(self, rows: Iterable[ChallengeRow]) -> dict[str, str]:
        """Account id -> name, for every account ``rows`` name."""
        found = self._accounts.store.many(sorted(accounts_of(rows)))
        return {account_id: row.name for account_id, row in found.items()}

    def now_ms(self) -> int:
        return self._now_ms()

    # -- answering -------------------------------------------------------------

    def accept(
        self, challenge_id: str, caller: AccountRow | None, name: str | None = None
    ) -> Answered:
        """Accept the caller's named seat, or take an open one; the game is made when
        this was the last seat. Accepting again answers the same (a safe retry)."""
        row = self._found(challenge_id)
        mine = _seat_of(row, caller)
        if row.status == ACCEPTED and mine is not None:
            return Answered(row, mine.seat, None, self._game_of(row))
        if caller is not None and caller.id == row.challenger_id:
            raise SelfChallenge("you made this challenge: it waits for the others")
        if mine is not None and mine.answer == DECLINED:
            raise AlreadyAnswered(row.id, "declined")
        self._check_pending(row)
        token = None
        if mine is None:
            mine, token = self._take(row, caller, name)
        elif mine.answer == PENDING:
            self._answer(row, mine, ACCEPTED)
        row, game = self._start_if_ready(self._found(row.id))
        base = self._webhooks.settings.public_url
        seat = _seat_named(row, mine.seat)
        self._webhooks.emit([accepted_event(row, seat, self.names([row]), base)])
        return Answered(row, mine.seat, token, game)

    def decline(self, challenge_id: str, caller: AccountRow) -> ChallengeRow:
        """Decline the caller's named seat: the challenge ends (declining again is a
        safe retry)."""
        row = self._found(challenge_id)
        mine = _seat_of(row, caller)
        if mine is None or mine.kind != "named":
            raise NotAddressed(row.id)
        if mine.answer == DECLINED:
            return row
        if mine.answer == ACCEPTED:
            raise AlreadyAnswered(row.id, "accepted")
        self._check_pending(row)
        self._answer(row, mine, DECLINED)
        self.store.end(row.id, DECLINED, self._now_ms())
        return self._found(row.id)

    def cancel(self, challenge_id: str, caller: AccountRow) -> None:
        """The challenger withdraws a pending challenge (again: a safe retry)."""
        row = self._visible(challenge_id, caller)
        if row.challenger_id != caller.id:
            raise NotChallenger(row.id)
        if row.status == CANCELLED:
            return
        self._check_pending(row)
        if not self.store.end(row.id, CANCELLED, self._now_ms()):
            now = self._found(row.id).status_at(self._now_ms())
            if now != CANCELLED:
                raise ChallengeClosed(row.id, "starting" if now == PENDING else now)

    def expire(self) -> tuple[int, int]:
        """The sweep: mark the challenges past their expiry, forget long-ended ones."""
        now = self._now_ms()
        return self.store.expire(now), self.store.purge(now - KEEP_ENDED_MS)

    # -- inside ----------------------------------------------------------------

    def _found(self, challenge_id: str) -> ChallengeRow:
        row = self.store.get(challenge_id) if len(challenge_id) <= 40 else None
        if row is None:
            raise ChallengeNotFound(challenge_id)
        return row

    def _visible(self, challenge_id: str, caller: AccountRow | None) -> ChallengeRow:
        """The challenge, unless the caller is no party to one without open seats: then
        it is not found (a private challenge's existence is nobody else's business)."""
        row = self._found(challenge_id)
        party = caller is not None and (
            caller.id == row.challenger_id or _seat_of(row, caller) is not None
        )
        if not party and not any(s.kind == "open" for s in row.seats):
            raise ChallengeNotFound(challenge_id)
        return row

    def _check_pending(self, row: ChallengeRow) -> None:
        status = row.status_at(self._now_ms())
        if status == EXPIRED:
            raise ChallengeExpired(row.id)
        if status != PENDING:
            raise ChallengeClosed(row.id, status)

    def _answer(self, row: ChallengeRow, seat: ChallengeSeat, answer: str) -> None:
        if self.store.answer(row.id, seat.seat, answer, self._now_ms()):
            return
        before = _seat_named(self._found(row.id), seat.seat).answer  # a concurrent answer
        if before != answer:
            raise AlreadyAnswered(row.id, before)

    def _take(
        self, row: ChallengeRow, caller: AccountRow | None, name: str | None
    ) -> tuple[ChallengeSeat, str | None]:
        """An open seat for the caller (an anonymous one gets a seat token)."""
        open_seats = [s for s in row.seats if s.kind == "open"]
        if not open_seats:
            raise NotAddressed(row.id)
        if caller is None and row.rated:  # ratings are accounts': a rated game is theirs
            raise RatedNeedsAccount("this challenge is rated: take its seat with an account token")
        token = None if caller is not None else auth.new_token()
        token_hash = None if token is None else auth.hash_token(token)
        for seat in open_seats:
            if seat.answer != PENDING:
                continue
            try:
                taken = self.store.take(
                    row.id,
                    seat.seat,
                    account_id=None if caller is None else caller.id,
                    name=name if caller is None else None,
                    token_hash=token_hash,
                    now_ms=self._now_ms(),
                )
            except AlreadySeated:
                raise AlreadySeatedHere(row.id) from None
            if taken:
                return seat, token
        raise ChallengeFull(row.id)

    def _start_if_ready(self, row: ChallengeRow) -> tuple[ChallengeRow, GameInfo | None]:
        """Make the game when every seat is accepted, once (see the module docstring)."""
        if row.status != PENDING or any(s.answer != ACCEPTED for s in row.seats):
            return row, None
        now = self._now_ms()
        if not self.store.claim_start(row.id, now, START_STALE_MS):
            return row, None  # another request is making it
        try:
            info = self._create_game(row)
        except BaseException:
            self.store.release_start(row.id)
            raise
        self.store.started(row.id, info.game_id, now)
        return self._found(row.id), info

    def _create_game(self, row: ChallengeRow) -> GameInfo:
        game_id = challenge_game_id(row.id)
        try:
            return self._games.info(game_id)  # made before a crash that recorded nothing
        except GameNotFound:
            pass
        created = self._games.create(
            seats=self._plans(row), board=row.board, mode=row.mode, rated=row.rated, game_id=game_id
        )
        creator = self._creator(row.challenger_id)
        self._quotas.count([creator], game_id, created.info.created_ms)
        self._storage.count([stored_budget(creator, self._stored_limits)])
        return created.info

    def _creator(self, account_id: str) -> Creator:
        """The challenger's account: a challenge's game counts against it."""
        return Creator("account", account_id, self._games_per_account)

    def _plans(self, row: ChallengeRow) -> list[SeatPlan]:
        """The game's seats: accounts bound, anonymous takers by their token's hash,
        bots as their level's account."""
        accounts = self._accounts.store.many(sorted(accounts_of([row])))
        plans = []
        for seat in row.seats:
            if seat.kind == "bot" and seat.level is not None:
                bot = self._accounts.bot(seat.level)
                plans.append(SeatPlan("bot", name=bot.name, level=seat.level, account=bot.id))
            elif seat.account_id is not None:
                account = accounts[seat.account_id]
                plans.append(SeatPlan("human", name=account.name, account=account.id))
            else:
                plans.append(SeatPlan("human", name=seat.name, token_hash=seat.token_hash))
        return plans

    def _game_of(self, row: ChallengeRow) -> GameInfo | None:
        return None if row.game_id is None else self._games.info(row.game_id)


def _seat_of(row: ChallengeRow, caller: AccountRow | None) -> ChallengeSeat | None:
    """The caller's seat (not the challenger's own), if any."""
    if caller is None:
        return None
    return next(
        (s for s in row.seats if s.account_id == caller.id and s.kind != "challenger"), None
    )


def _seat_named(row: ChallengeRow, seat: str) -> ChallengeSeat:
    return next(s for s in row.seats if s.seat == seat)
