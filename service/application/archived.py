"""Finished games read from the archive once Redis no longer has them (issue 48).

Redis keeps live games and, for ``RISK_FINISHED_GAME_DAYS``, finished ones;
the archive (``service.store.archive``, fed by ``workers.projector``) keeps
finished games for ever. This module is the door between the two, put where
the application reads its stores so that every read path gets it at once
(a game's view, events, state at a version, record, summary, analysis, the
replay page, forks):

* ``ArchivingEventStore`` is the event store with one change: a game Redis
  does not have is looked up in the archive, and its stored events are
  rebuilt from its verified record (each line's envelope, secrets included,
  encodes to exactly the bytes that were stored and hashed);
* ``ArchivingLobby`` likewise answers ``get`` with the archived game's info.

A record is archived in its *export form* (``export_form``): its lines joined
by commas instead of newlines, one gzip member. An export line of the
history's NDJSON export is then ``{"game_id": ..., "record": [`` + that form +
``]}``: three gzip members sent as they are (concatenated members are one
valid gzip stream), nothing decompressed or compressed again per record.
``record_form`` turns it back into the record's own bytes, exactly: each
line is one compact JSON value, so the commas between values are found by
decoding them in order (a raw newline never occurs inside a line).

Only a finished game with its record archived is served; Redis wins
whenever it has the game. ``ArchivedGames`` keeps the last games it rebuilt
(an LRU), so a replay page's many reads parse the record once.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from typing import Any

from riskcore.audit.chain import GENESIS
from riskcore.audit.gamerecord import parse_record
from riskcore.protocol.codec import canonical
from service.application.game_types import Lru
from service.application.lobby import FINISHED, GameInfo, Lobby, SeatInfo
from service.settings import Settings
from service.store.archive import Archive
from service.store.database import create_engine
from service.store.errors import GameNotFound
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import Client, Head, StoredEvent, Tail

__all__ = [
    "ArchivedGames",
    "ArchivingEventStore",
    "ArchivingLobby",
    "Rebuilt",
    "archive_for",
    "export_form",
    "info_from_json",
    "info_json",
    "record_form",
    "record_text",
]


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """An archived game as the event store and the lobby would hold it."""

    info: GameInfo
    events: tuple[StoredEvent, ...]
    seed: bytes
    record: bytes  # the gzip member the archive holds (export form)

    @property
    def head(self) -> Head:
        last = self.events[-1]
        return Head(last.version, last.hash)


def archive_for(settings: Settings, pool_size: int = 5) -> Archive:
    """The archive at ``RISK_DATABASE_URL``; the embedded SQLite file migrates itself."""
    engine = create_engine(settings.database_url, pool_size=pool_size)
    return Archive(engine, migrate_on_first_use=engine.dialect.name == "sqlite")


class ArchivedGames:
    """Finished games rebuilt from the archive, the last ``size`` kept."""

    def __init__(self, archive: Archive, size: int = 64) -> None:
        self.archive = archive
        self._cache: Lru[Rebuilt] = Lru(size)

    def find(self, game_id: str) -> Rebuilt | None:
        """The archived finished game, or None; ArchiveUnavailable if the database is."""
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached
        found = self.archive.get(game_id)
        if found is None or found.record is None:
            return None
        rebuilt = rebuild(found.row.info, found.record, game_id)
        self._cache.put(game_id, rebuilt)
        return rebuilt


_DECODER = json.JSONDecoder()


def export_form(text: str) -> str:
    """A record's lines joined by commas: what the archive keeps, compressed."""
    return ",".join(text.splitlines())


def record_form(form: str) -> str:
    """The record's own text from its export form (the inverse of ``export_form``)."""
    lines, position, end = [], 0, len(form)
    while position < end:
        _, stop = _DECODER.raw_decode(form, position)
        lines.append(form[position:stop])
        position = stop + 1  # the comma
    return "".join(line + "\n" for line in lines)


def record_text(record: bytes) -> str:
    """An archived record (gzip, export form) as the record's own text."""
    return record_form(gzip.decompress(record).decode())


def rebuild(info: str, record: bytes, game_id: str) -> Rebuilt:
    """The stored events of a complete record, and the game's info."""
    parsed = parse_record(record_text(record))
    events = tuple(
        StoredEvent(
            entry.version,
            canonical(entry.envelope()),
            bytes.fromhex(entry.hash or ""),
            bytes.fromhex(entry.prev or ""),
        )
        for entry in parsed.entries
    )
    seed = bytes.fromhex(parsed.seed or "")
    return Rebuilt(info_from_json(game_id, info, len(events)), events, seed, record)


def info_json(info: GameInfo) -> str:
    """A game's info for the archive's ``info`` column (the lobby's fields, as JSON)."""
    data: dict[str, Any] = {
        "board": info.board,
        "mode": info.mode,
        "rules": info.rules,
        "clock": info.clock,
        "created_ms": info.created_ms,
        "seed_commitment": info.seed_commitment,
        "tournament": info.tournament,
        "rated": info.rated,
        "seats": [[s.seat, json.loads(s.record())] for s in info.seats],
    }
    return json.dumps(data, sort_keys=True)


def info_from_json(game_id: str, text: str, version: int) -> GameInfo:
    data = json.loads(text)
    seats = tuple(
        SeatInfo(
            seat,
            record["kind"],
            record["name"],
            record["bot"],
            record["seed"],
            record["token"],
            record.get("level"),
            record.get("entrant"),
            record.get("account"),
        )
        for seat, record in data["seats"]
    )
    return GameInfo(
        game_id=game_id,
        status=FINISHED,
        board=data["board"],
        rules=data["rules"],
        clock=data["clock"],
        created_ms=data["created_ms"],
        seats=seats,
        version=version,
        seed_commitment=data["seed_commitment"],
        mode=data["mode"],
        tournament=data["tournament"],
        rated=data.get("rated", False),  # archived before issue 49: not rated
    )


class ArchivingEventStore(EventStore):
    """The event store, with finished games Redis lost read from the archive."""

    def __init__(
        self, client: Client, keys: KeySpace, archived: ArchivedGames, **options: Any
    ) -> None:
        super().__init__(client, keys, **options)
        self.archived = archived

    def _archived(self, game_id: str, error: GameNotFound) -> Rebuilt:
        found = self.archived.find(game_id)
        if found is None:
            raise error
        return found

    def head(self, game_id: str) -> Head:
        try:
            return super().head(game_id)
        except GameNotFound as error:
            return self._archived(game_id, error).head

    def read(
        self, game_id: str, start: int = 1, stop: int | None = None, count: int | None = None
    ) -> list[StoredEvent]:
        try:
            return super().read(game_id, start, stop, count)
        except GameNotFound as error:
            events = self._archived(game_id, error).events
        last = len(events) if stop is None else min(stop, len(events))
        if count is not None:
            last = min(last, start - 1 + count)
        return list(events[max(start, 1) - 1 : max(last, 0)])

    def exists(self, game_id: str) -> bool:
        return super().exists(game_id) or self.archived.find(game_id) is not None

    def seed(self, game_id: str) -> bytes | None:
        try:
            return super().seed(game_id)
        except GameNotFound as error:
            return self._archived(game_id, error).seed

    def events_after_snapshot(self, game_id: str, stamp: str, page: int = 1000) -> Tail:
        try:
            return super().events_after_snapshot(game_id, stamp, page)
        except GameNotFound as error:
            found = self._archived(game_id, error)
        return Tail(None, list(found.events), found.head.hash if found.events else GENESIS)

    def archived_record(self, game_id: str) -> bytes | None:
        """The archived record (gzip) of a finished game Redis no longer has, else None."""
        if super().exists(game_id):
            return None
        found = self.archived.find(game_id)
        return found.record if found is not None else None


class ArchivingLobby(Lobby):
    """The lobby, with finished games Redis lost read from the archive."""

    def __init__(
        self, client: Client, keys: KeySpace, finished_seconds: int, archived: ArchivedGames
    ) -> None:
        super().__init__(client, keys, finished_seconds)
        self.archived = archived

    def get(self, game_id: str) -> GameInfo:
        try:
            return super().get(game_id)
        except GameNotFound:
            found = self.archived.find(game_id)
            if found is None:
                raise
            return found.info
