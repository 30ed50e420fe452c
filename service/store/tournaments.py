"""Where tournaments are kept: their spec, games, results, feed and listing.

Each tournament's keys share its own hash tag (``KeySpace.tournament``): an
``info`` hash (the spec as JSON, the status, the secret seed, the HTTP
entrants' token hashes), the ``games`` it started and the ``results`` it
recorded (fixture index -> game id, -> outcome JSON), a ``feed`` stream that
gets an entry on every change (``GET /v1/tournaments/{id}/stream`` follows it)
and a ``lock`` its advance holds. Every tournament is listed by creation time,
and the running ones in a set the relay's sweep walks
(``workers.relay.Relay.sweep_tournaments``). What a tournament is and how it
moves on is ``service.application.tournaments``'s; this module only keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, NamedTuple, cast

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["FEED_LENGTH", "StoredTournament", "TournamentRecords"]

FEED_LENGTH = 10_000


class StoredTournament(NamedTuple):
    """A tournament as kept: its ``info`` fields, started games and recorded results."""

    spec: bytes
    status: str
    seed: bytes
    token_hashes: bytes
    games: dict[str, str]
    results: dict[str, str]


@door
class TournamentRecords:
    """Reads and writes the records of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace, blocking: Client | None = None) -> None:
        """``blocking`` serves the feed's long waits: a client with a long timeout."""
        self._client = client
        self._blocking = blocking or client
        self._keys = keys

    def create(
        self, tournament_id: str, spec: str, seed: bytes, token_hashes: str, created_ms: int
    ) -> None:
        """Store a new running tournament and list it, at once."""
        keys = self._keys.tournament(tournament_id)
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(
            keys.info,
            mapping={"spec": spec, "status": "running", "seed": seed, "tokens": token_hashes},
        )
        pipe.zadd(self._keys.tournaments(), {tournament_id: created_ms})
        pipe.sadd(self._keys.running_tournaments(), tournament_id)
        pipe.execute()

    def lock(self, tournament_id: str, seconds: int) -> AbstractContextManager[Any]:
        """The tournament's lock (held at most ``seconds``, waited for as long)."""
        key = self._keys.tournament(tournament_id).lock
        return cast(
            AbstractContextManager[Any],
            self._client.lock(key, timeout=seconds, blocking_timeout=seconds),
        )

    def read(self, tournament_id: str, *, games: bool = True) -> StoredTournament | None:
        """The tournament (with its games and results unless ``games`` is False), or None."""
        keys = self._keys.tournament(tournament_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.hgetall(keys.info)
        if games:
            pipe.hgetall(keys.games)
            pipe.hgetall(keys.results)
        found = pipe.execute()
        info = found[0]
        if not info:
            return None
        started, results = (found[1], found[2]) if games else ({}, {})
        return StoredTournament(
            info[b"spec"],
            info[b"status"].decode(),
            info[b"seed"],
            info[b"tokens"],
            _decoded(started),
            _decoded(results),
        )

    def status(self, tournament_id: str) -> str | None:
        """``running`` or ``finished`` (None: no such tournament), in one read."""
        found = self._client.hget(self._keys.tournament(tournament_id).info, "status")
        return found.decode() if isinstance(found, bytes) else found

    def mark_running(self, tournament_id: str, running: bool = True) -> None:
        """In (or out of) the set of running tournaments the relay sweeps."""
        if running:
            self._client.sadd(self._keys.running_tournaments(), tournament_id)
        else:
            self._client.srem(self._keys.running_tournaments(), tournament_id)

    def record_result(self, tournament_id: str, index: str, outcome: str) -> None:
        self._client.hset(self._keys.tournament(tournament_id).results, index, outcome)

    def record_game(self, tournament_id: str, index: str, game_id: str) -> None:
        self._client.hset(self._keys.tournament(tournament_id).games, index, game_id)

    def note(self, tournament_id: str, entry: Mapping[str, int]) -> None:
        """An entry on the tournament's feed: what changed is read from the tournament."""
        feed = self._keys.tournament(tournament_id).feed
        self._client.xadd(feed, dict(entry), maxlen=FEED_LENGTH, approximate=True)  # type: ignore[arg-type]

    def finish(self, tournament_id: str, keep_seconds: int) -> None:
        """Finished: out of the running set, its records kept ``keep_seconds`` (0: for ever)."""
        keys = self._keys.tournament(tournament_id)
        self._client.hset(keys.info, "status", "finished")
        self._client.srem(self._keys.running_tournaments(), tournament_id)
        if keep_seconds > 0:
            pipe = self._client.pipeline(transaction=False)
            for key in (keys.info, keys.games, keys.results, keys.feed):
                pipe.expire(key, keep_seconds)
            pipe.execute()

    def forget(self, tournament_id: str) -> None:
        """Out of the listing: its keys expired."""
        self._client.zrem(self._keys.tournaments(), tournament_id)

    def newest_ids(self, limit: int) -> list[str]:
        found = self._client.zrevrange(self._keys.tournaments(), 0, limit - 1)
        return [raw.decode() for raw in found]

    def feed_after(self, tournament_id: str, last: str, wait_ms: int) -> str | None:
        """The newest feed entry id after ``last`` ("0" for any), waiting up to
        ``wait_ms``; None if nothing changed."""
        feed = self._keys.tournament(tournament_id).feed
        found: Any = self._blocking.xread({feed: last}, block=max(1, wait_ms))
        if not found:
            return None
        newest: bytes = found[0][1][-1][0]
        return newest.decode()

    def feed_head(self, tournament_id: str) -> str:
        """The id of the feed's newest entry, "0" if it has none."""
        found: Any = self._client.xrevrange(self._keys.tournament(tournament_id).feed, count=1)
        return found[0][0].decode() if found else "0"


def _decoded(raw: Mapping[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}
