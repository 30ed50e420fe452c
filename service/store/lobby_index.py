"""The lobby index: game records kept beside the event stream (setup, seats, directory).

A game exists before its first event: while seats are open it is a lobby,
and nothing about it belongs in the immutable record yet (who joins, and
in which order, is not a game fact until the game starts). So its setup
lives in an ``info`` hash, its filled seats in a ``seats`` hash (with each
human seat's token *hash*: seat secrets are kept out of the
stream), and the game is listed in one directory per status. All of them
share the game's hash tag (``service.store.keys``), so the status move is one
MULTI/EXEC on one slot even on Redis Cluster.

Claiming a seat is ``HSETNX`` on its field: two joiners cannot both get a
seat, with no lock and no script.

The directory is a sorted set per partition and status whose members are
``"<creation ms, 15 digits>:<game id>"`` with equal scores, so members sort
by time and ``ZRANGE ... BYLEX REV`` pages newest first with the last
member as an exact cursor, even for games created in the same millisecond.
The status there is a denormalised index for listing; a game's own status
is derived from its events (``service.application.games``) and wins if they disagree.

This module is the one door to those records, and so to the seat table: the
seats with their token hashes (``service.application.seating`` decides who may
take one, this module stores the claim).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import redis

from service.store.errors import GameNotFound, InvalidArgument, door
from service.store.keys import DIRECTORY_STATUSES, KeySpace
from service.store.values import Client

__all__ = ["GameInfo", "Lobby", "SeatInfo"]

OPEN, RUNNING, FINISHED = DIRECTORY_STATUSES
FINISHED_SECONDS = 7 * 86400  # RISK_FINISHED_GAME_DAYS: how long a finished game is kept
_CURSOR = re.compile(r"\d{15}:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat: ``kind`` is "human", "bot", or "open" until someone joins.

    A bot seat may play at a ``level`` (``riskcore.bots.levels``); ``bot`` is
    then the level's bot. ``entrant`` is the tournament entrant a seat is, if any.
    ``account`` is the account the seat is bound to (issue 49): that account's
    tokens act for the seat, and its rating changes with the result.
    """

    seat: str
    kind: str
    name: str | None = None
    bot: str | None = None
    seed: str | None = field(default=None, repr=False)
    token_hash: str | None = field(default=None, repr=False)
    level: str | None = None
    entrant: str | None = None
    account: str | None = None

    def record(self) -> str:
        data = {"kind": self.kind, "name": self.name, "bot": self.bot}
        data |= {"seed": self.seed, "token": self.token_hash}
        if self.level is not None:
            data["level"] = self.level
        if self.entrant is not None:
            data["entrant"] = self.entrant
        if self.account is not None:
            data["account"] = self.account
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_record(cls, seat: str, raw: bytes) -> SeatInfo:
        """A stored seat; records from before levels have neither level nor entrant."""
        data = json.loads(raw)
        return cls(
            seat,
            data["kind"],
            data["name"],
            data["bot"],
            data["seed"],
            data["token"],
            data.get("level"),
            data.get("entrant"),
            data.get("account"),
        )

    @property
    def shown_name(self) -> str | None:
        """The name players see: the one given, else one made from the seat (the game's
        events carry the same); an open seat has none until someone joins it."""
        if self.name or self.kind == "open":
            return self.name
        if self.kind == "bot":
            # In words, as a person says it: "Medium bot 2" (its level, else its bot).
            return f"{(self.level or self.bot or '').capitalize()} bot {self.seat[1:]}".lstrip()
        return f"Player {self.seat[1:]}"

    def public(self) -> dict[str, Any]:
        """What anyone may know about the seat (never the token hash or seed)."""
        shown = {"seat": self.seat, "kind": self.kind, "name": self.shown_name, "bot": self.bot}
        return shown | {"level": self.level}


@dataclass(frozen=True, slots=True)
class GameInfo:
    game_id: str
    status: str
    board: str
    rules: dict[str, Any]
    clock: dict[str, Any] | None
    created_ms: int
    seats: tuple[SeatInfo, ...]
    version: int = 0
    seed_commitment: str = ""
    mode: str = "classic"
    tournament: str | None = (
        None  # the tournament it is a game of (service.application.tournaments)
    )
    rated: bool = False  # its result changes its accounts' ratings (issue 49)
    # The account whose token created it (issue 50): its webhooks hear of the game
    # even when it took no seat (a game of bots, or of open seats, it set up).
    creator: str | None = None

    @property
    def open_seats(self) -> list[str]:
        return [s.seat for s in self.seats if s.kind == "open"]

    @property
    def member(self) -> str:
        """This game's member in the directory sorted sets."""
        return f"{self.created_ms:015d}:{self.game_id}"

    def seat(self, seat: str) -> SeatInfo | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def with_status(self, status: str, version: int) -> GameInfo:
        return replace(self, status=status, version=version)


@door
class Lobby:
    """Reads and writes the records of the module docstring."""

    def __init__(
        self, client: Client, keys: KeySpace, finished_seconds: int = FINISHED_SECONDS
    ) -> None:
        self._client = client
        self.keys = keys
        self.finished_seconds = finished_seconds  # 0: finished games are kept for ever

    def create(self, info: GameInfo, seed: bytes) -> None:
        """Write a new game's setup, its filled seats and its directory entry at once.

        ``seed`` is the server seed the game will start with, drawn now so
        that its commitment is public before any player chooses a seed.
        """
        game_id = info.game_id
        plan = [[s.seat, s.kind] for s in info.seats]
        fields: dict[Any, Any] = {
            "created": info.created_ms,
            "status": info.status,
            "board": info.board,
            "mode": info.mode,
            "rules": json.dumps(info.rules, sort_keys=True),
            "clock": json.dumps(info.clock) if info.clock else "",
            "plan": json.dumps(plan),
            "seed": seed,
            "commitment": info.seed_commitment,
        }
        if info.tournament:
            fields["tournament"] = info.tournament
        if info.rated:
            fields["rated"] = 1
        if info.creator:
            fields["creator"] = info.creator
        filled: dict[Any, Any] = {s.seat: s.record() for s in info.seats if s.kind != "open"}
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(self.keys.game_info(game_id), mapping=fields)
        if filled:
            pipe.hset(self.keys.game_seats(game_id), mapping=filled)
        pipe.zadd(self._directory(game_id, info.status), {info.member: 0})
        pipe.execute()

    def get(self, game_id: str) -> GameInfo:
        """The game's setup and seats; GameNotFound if it was never created here."""
        pipe = self._client.pipeline(transaction=False)
        pipe.hgetall(self.keys.game_info(game_id))
        pipe.hgetall(self.keys.game_seats(game_id))
        pipe.hget(self.keys.game(game_id).meta, "v")
        fields, seats, version = pipe.execute()
        if not fields:
            raise GameNotFound(game_id)
        return _info(game_id, fields, seats, int(version or 0))

    def seed(self, game_id: str) -> bytes | None:
        """The server seed drawn at creation, until the game has started."""
        seed = self._client.hget(self.keys.game_info(game_id), "seed")
        return cast(bytes | None, seed)

    def rename_account(self, game_id: str, account_id: str, name: str) -> None:
        """The game's seats of a deleted account (issue 49) are shown as ``name`` in its
        listing from now on (its events keep the name it was played under)."""
        key = self.keys.game_seats(game_id)
        seats: dict[bytes, bytes] = self._client.hgetall(key)  # type: ignore[assignment]
        renamed = {}
        for seat, raw in seats.items():
            record = json.loads(raw)
            if record.get("account") == account_id:
                renamed[seat] = json.dumps(record | {"name": name}, sort_keys=True)
        if renamed:
            self._client.hset(key, mapping=renamed)  # type: ignore[arg-type]

    def forget_seed(self, game_id: str) -> None:
        """Once started, the seed lives in the event store's own key only."""
        self._client.hdel(self.keys.game_info(game_id), "seed")

    def claim(self, game_id: str, seat: SeatInfo) -> bool:
        """Fill an open seat; False if someone else filled it first."""
        return bool(self._client.hsetnx(self.keys.game_seats(game_id), seat.seat, seat.record()))

    def move(self, info: GameInfo, status: str) -> None:
        """Set the status and move the directory entry (idempotent); a finished game's
        keys then live ``finished_seconds`` more (retention, ``service.application.storage``)."""
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(self.keys.game_info(info.game_id), "status", status)
        for other in DIRECTORY_STATUSES:
            if other != status:
                pipe.zrem(self._directory(info.game_id, other), info.member)
        pipe.zadd(self._directory(info.game_id, status), {info.member: 0})
        if status == FINISHED and self.finished_seconds > 0:
            for key in self.keys.retained(info.game_id):
                pipe.expire(key, self.finished_seconds)
        if status == FINISHED and info.rated and info.status != FINISHED:
            # Rated by ``service.application.player_ratings`` (idempotent: a game is
            # rated once, however often it is listed here).
            pipe.rpush(self.keys.rated_finished(), info.game_id)
        pipe.execute()

    def abandon(self, info: GameInfo) -> None:
        """End a lobby nobody finished joining: listed as finished, ``ended`` says why,
        and joins are refused (``Seating.join``); the record stays."""
        self.move(info, FINISHED)
        self._client.hset(self.keys.game_info(info.game_id), "ended", "abandoned")

    def page(
        self, statuses: Sequence[str], limit: int, cursor: str | None
    ) -> tuple[list[GameInfo], str | None]:
        """Up to ``limit`` games in ``statuses``, newest first, after ``cursor``."""
        if cursor is not None and not _CURSOR.fullmatch(cursor):
            raise InvalidArgument(f"not a cursor from a previous page: {cursor!r}")
        start = f"({cursor}" if cursor else "+"
        pipe = self._client.pipeline(transaction=False)
        for status in statuses:
            for key in self.keys.directories(status):
                pipe.zrange(key, start, "-", desc=True, bylex=True, offset=0, num=limit)
        found = sorted({m.decode() for rows in pipe.execute() for m in rows}, reverse=True)
        members = found[:limit]
        games = self._many([m.split(":", 1)[1] for m in members])
        if len(games) < len(members):  # expired (retention) or deleted meanwhile
            kept = {game.game_id for game in games}
            self.forget_expired(m for m in members if m.split(":", 1)[1] not in kept)
        after = members[-1] if len(found) > limit else None
        return games, after

    def forget_expired(self, members: Iterable[str]) -> None:
        """Directory entries (``<ms>:<id>``) of games whose keys expired: out of every list."""
        pipe = self._client.pipeline(transaction=False)
        for member in members:
            for status in DIRECTORY_STATUSES:
                pipe.zrem(self._directory(member.split(":", 1)[1], status), member)
        pipe.execute()

    def many(self, game_ids: Iterable[str]) -> list[GameInfo]:
        """The games of ``game_ids`` that exist, in one round trip (the archive's
        projector reads the setups of a batch's new games so)."""
        return self._many(game_ids)

    def _many(self, game_ids: Iterable[str]) -> list[GameInfo]:
        ids = list(game_ids)
        pipe = self._client.pipeline(transaction=False)
        for game_id in ids:
            pipe.hgetall(self.keys.game_info(game_id))
            pipe.hgetall(self.keys.game_seats(game_id))
            pipe.hget(self.keys.game(game_id).meta, "v")
        rows = pipe.execute()
        games = []
        for index, game_id in enumerate(ids):
            fields, seats, version = rows[3 * index : 3 * index + 3]
            if fields:  # deleted between the two reads
                games.append(_info(game_id, fields, seats, int(version or 0)))
        return games

    def delete(self, info: GameInfo) -> None:
        """Operator action: the game's lobby records, its listing, and what the workers
        and replays keep beside it (its clock, checkpoints, record, worker claim)."""
        game_id, keys = info.game_id, self.keys
        pipe = self._client.pipeline(transaction=True)
        pipe.delete(keys.game_info(game_id), keys.game_seats(game_id))
        pipe.delete(
            keys.clock(game_id),
            keys.replay_checkpoints(game_id),
            keys.record_export(game_id),
            keys.worker_claim(game_id),
        )
        for status in DIRECTORY_STATUSES:
            pipe.zrem(self._directory(info.game_id, status), info.member)
        pipe.execute()

    def ping(self) -> bool:
        try:
            return bool(self._client.ping())
        except (redis.ConnectionError, redis.TimeoutError):
            return False

    def _directory(self, game_id: str, status: str) -> str:
        return self.keys.directory(self.keys.partition(game_id), status)


def _info(
    game_id: str, fields: dict[bytes, bytes], seats: dict[bytes, bytes], version: int
) -> GameInfo:
    filled = {seat.decode(): raw for seat, raw in seats.items()}
    plan = json.loads(fields[b"plan"])
    clock = fields.get(b"clock", b"")
    rules = json.loads(fields[b"rules"])
    # Lobbies written before game modes named the mode as rule option "variant".
    mode = fields[b"mode"].decode() if b"mode" in fields else rules.pop("variant", "classic")
    return GameInfo(
        game_id=game_id,
        status=fields[b"status"].decode(),
        board=fields[b"board"].decode(),
        mode=mode,
        rules=rules,
        clock=json.loads(clock) if clock else None,
        created_ms=int(fields[b"created"]),
        seats=tuple(
            SeatInfo.from_record(seat, filled[seat]) if seat in filled else SeatInfo(seat, kind)
            for seat, kind in plan
        ),
        version=version,
        seed_commitment=fields.get(b"commitment", b"").decode(),
        tournament=fields[b"tournament"].decode() if b"tournament" in fields else None,
        rated=b"rated" in fields,
        creator=fields[b"creator"].decode() if b"creator" in fields else None,
    )
