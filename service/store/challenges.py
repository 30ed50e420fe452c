"""Challenges in the SQL database (issue 49): who is asked, who answered, what it became.

Every change is one conditional ``UPDATE`` whose row count says whether it
happened, so two requests at once cannot both answer one seat, both take
the last open seat, or both start the game: an answer is written only
``WHERE answer = 'pending'``; the game is started by whoever moves
``starting_ms`` (``claim_start``), and only a claim older than
``stale_ms`` (its holder died) may be taken over. An account sits once in a
challenge (a unique index), so a link taken twice by one account is refused
by the database itself (``AlreadySeated``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from service.store.challenge_tables import challenge_seats, challenges
from service.store.database import sql_door

__all__ = [
    "ACCEPTED",
    "DECLINED",
    "PENDING",
    "AlreadySeated",
    "ChallengeRow",
    "ChallengeSeat",
    "ChallengeStore",
]

PENDING, ACCEPTED, DECLINED = "pending", "accepted", "declined"
CANCELLED, EXPIRED = "cancelled", "expired"


class AlreadySeated(Exception):
    """The account already has a seat in this challenge."""


@dataclass(frozen=True, slots=True)
class ChallengeSeat:
    seat: str
    kind: str  # challenger | named | open | bot
    account_id: str | None = None
    level: str | None = None
    answer: str = PENDING  # pending | accepted | declined (a bot's and the challenger's: accepted)
    name: str | None = None  # an anonymous taker's
    token_hash: str | None = None  # an anonymous taker's seat token, hashed
    answered_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    id: str
    challenger_id: str
    mode: str
    board: str | None
    rated: bool
    status: str
    created_ms: int
    expires_ms: int
    seats: tuple[ChallengeSeat, ...] = ()
    ended_ms: int | None = None
    starting_ms: int | None = None
    game_id: str | None = None

    def status_at(self, now_ms: int) -> str:
        """The status as of ``now_ms``: a pending challenge past its expiry is expired
        (the sweep writes so later; readers need not wait for it)."""
        if self.status == PENDING and now_ms >= self.expires_ms:
            return EXPIRED
        return self.status


@sql_door
class ChallengeStore:
    """Reads and writes ``challenges`` and ``challenge_seats``."""

    def __init__(self, engine: Engine, *, migrate_first: Callable[[], bool] | None = None) -> None:
        """``migrate_first``: see ``sql_door`` (the embedded SQLite file's first use)."""
        self._engine = engine
        self.migrate_first = migrate_first

    def create(self, row: ChallengeRow) -> None:
        with self._engine.begin() as connection:
            connection.execute(challenges.insert().values(**_values(row)))
            connection.execute(
                challenge_seats.insert(), [_seat_values(row.id, s) for s in row.seats]
            )

    def get(self, challenge_id: str) -> ChallengeRow | None:
        with self._engine.connect() as connection:
            found = connection.execute(
                challenges.select().where(challenges.c.id == challenge_id)
            ).first()
            if found is None:
                return None
            return _with_seats(connection, [_row(found)])[0]

    def answer(self, challenge_id: str, seat: str, answer: str, now_ms: int) -> bool:
        """A named seat's answer; False if it was answered before."""
        query = (
            challenge_seats.update()
            .where(challenge_seats.c.challenge_id == challenge_id)
            .where(challenge_seats.c.seat == seat, challenge_seats.c.answer == PENDING)
            .values(answer=answer, answered_ms=now_ms)
        )
        with self._engine.begin() as connection:
            return bool(connection.execute(query).rowcount)

    def take(
        self,
        challenge_id: str,
        seat: str,
        *,
        account_id: str | None,
        name: str | None,
        token_hash: str | None,
        now_ms: int,
    ) -> bool:
        """An open seat taken (by an account, or by someone with a seat token); False if
        someone took it first; ``AlreadySeated`` if the account sits here already."""
        query = (
            challenge_seats.update()
            .where(challenge_seats.c.challenge_id == challenge_id)
            .where(challenge_seats.c.seat == seat, challenge_seats.c.answer == PENDING)
            .where(challenge_seats.c.kind == "open")
            .values(
                answer=ACCEPTED,
                account_id=account_id,
                name=name,
                token_hash=token_hash,
                answered_ms=now_ms,
            )
        )
        try:
            with self._engine.begin() as connection:
                return bool(connection.execute(query).rowcount)
        except sa.exc.IntegrityError:
            raise AlreadySeated(challenge_id) from None

    def end(self, challenge_id: str, status: str, now_ms: int) -> bool:
        """A pending challenge ends with ``status`` (declined, cancelled); False if it
        was no longer pending, or its game is being made."""
        c = challenges.c
        query = (
            challenges.update()
            .where(c.id == challenge_id, c.status == PENDING, c.starting_ms.is_(None))
            .values(status=status, ended_ms=now_ms)
        )
        with self._engine.begin() as connection:
            return bool(connection.execute(query).rowcount)

    def claim_start(self, challenge_id: str, now_ms: int, stale_ms: int) -> bool:
        """Whether this caller starts the game: no one else is, or whoever was has
        held it longer than ``stale_ms`` (and died)."""
        c = challenges.c
        query = (
            challenges.update()
            .where(c.id == challenge_id, c.status == PENDING)
            .where(sa.or_(c.starting_ms.is_(None), c.starting_ms < now_ms - stale_ms))
            .values(starting_ms=now_ms)
        )
        with self._engine.begin() as connection:
            return bool(connection.execute(query).rowcount)

    def release_start(self, challenge_id: str) -> None:
        """The start failed (a quota, a database error): another may try again."""
        query = challenges.update().where(challenges.c.id == challenge_id)
        with self._engine.begin() as connection:
            connection.execute(query.values(starting_ms=None))

    def started(self, challenge_id: str, game_id: str, now_ms: int) -> None:
        query = challenges.update().where(challenges.c.id == challenge_id)
        with self._engine.begin() as connection:
            connection.execute(query.values(status=ACCEPTED, game_id=game_id, ended_ms=now_ms))

    def outgoing(
        self, account_id: str, limit: int, *, pending_at: int | None
    ) -> list[ChallengeRow]:
        """The account's challenges, newest first; ``pending_at``: only those still
        pending then."""
        c = challenges.c
        query = challenges.select().where(c.challenger_id == account_id)
        if pending_at is not None:
            query = query.where(c.status == PENDING, c.expires_ms > pending_at)
        return self._listed(query.order_by(c.created_ms.desc(), c.id).limit(limit))

    def incoming(
        self, account_id: str, limit: int, *, pending_at: int | None
    ) -> list[ChallengeRow]:
        """Challenges with a seat of the account's that another account made."""
        c, s = challenges.c, challenge_seats.c
        query = (
            challenges.select()
            .join(challenge_seats, s.challenge_id == c.id)
            .where(s.account_id == account_id, c.challenger_id != account_id)
        )
        if pending_at is not None:
            query = query.where(c.status == PENDING, c.expires_ms > pending_at)
        return self._listed(query.order_by(c.created_ms.desc(), c.id).limit(limit))

    def pending_count(self, account_id: str, now_ms: int) -> int:
        """How many of the account's challenges are pending."""
        c = challenges.c
        query = (
            sa.select(sa.func.count())
            .select_from(challenges)
            .where(c.challenger_id == account_id, c.status == PENDING, c.expires_ms > now_ms)
        )
        with self._engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def expire(self, now_ms: int) -> int:
        """Mark the pending challenges past their expiry expired: how many."""
        c = challenges.c
        query = (
            challenges.update()
            .where(c.status == PENDING, c.expires_ms <= now_ms, c.starting_ms.is_(None))
            .values(status=EXPIRED, ended_ms=c.expires_ms)
        )
        with self._engine.begin() as connection:
            return int(connection.execute(query).rowcount)

    def purge(self, ended_before_ms: int) -> int:
        """Forget challenges that ended before then: how many (their games stay)."""
        c = challenges.c
        query = challenges.delete().where(c.status != PENDING, c.ended_ms < ended_before_ms)
        with self._engine.begin() as connection:
            return int(connection.execute(query).rowcount)

    def _listed(self, query: Any) -> list[ChallengeRow]:
        with self._engine.connect() as connection:
            rows = [_row(r) for r in connection.execute(query)]
            return _with_seats(connection, rows)


def _with_seats(connection: Connection, rows: list[ChallengeRow]) -> list[ChallengeRow]:
    if not rows:
        return rows
    s = challenge_seats.c
    query = (
        challenge_seats.select()
        .where(s.challenge_id.in_([r.id for r in rows]))
        .order_by(s.challenge_id, s.seat)
    )
    seats: dict[str, list[ChallengeSeat]] = {}
    for found in connection.execute(query):
        seats.setdefault(found.challenge_id, []).append(_seat(found))
    return [replace(r, seats=tuple(sorted(seats.get(r.id, ()), key=_seat_order))) for r in rows]


def _seat_order(seat: ChallengeSeat) -> int:
    return int(seat.seat[1:])  # p10 after p9


def _values(row: ChallengeRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "challenger_id": row.challenger_id,
        "mode": row.mode,
        "board": row.board,
        "rated": row.rated,
        "status": row.status,
        "created_ms": row.created_ms,
        "expires_ms": row.expires_ms,
        "ended_ms": row.ended_ms,
        "starting_ms": row.starting_ms,
        "game_id": row.game_id,
    }


def _seat_values(challenge_id: str, seat: ChallengeSeat) -> dict[str, Any]:
    return {
        "challenge_id": challenge_id,
        "seat": seat.seat,
        "kind": seat.kind,
        "account_id": seat.account_id,
        "level": seat.level,
        "answer": seat.answer,
        "name": seat.name,
        "token_hash": seat.token_hash,
        "answered_ms": seat.answered_ms,
    }


def _row(found: Any) -> ChallengeRow:
    return ChallengeRow(
        id=found.id,
        challenger_id=found.challenger_id,
        mode=found.mode,
        board=found.board,
        rated=bool(found.rated),
        status=found.status,
        created_ms=found.created_ms,
        expires_ms=found.expires_ms,
        ended_ms=found.ended_ms,
        starting_ms=found.starting_ms,
        game_id=found.game_id,
    )


def _seat(found: Any) -> ChallengeSeat:
    return ChallengeSeat(
        seat=found.seat,
        kind=found.kind,
        account_id=found.account_id,
        level=found.level,
        answer=found.answer,
        name=found.name,
        token_hash=found.token_hash,
        answered_ms=found.answered_ms,
    )


def accounts_of(rows: Iterable[ChallengeRow]) -> set[str]:
    """Every account the rows name (challengers and seats), to look their names up."""
    found: set[str] = set()
    for row in rows:
        found.add(row.challenger_id)
        found.update(s.account_id for s in row.seats if s.account_id)
    return found
