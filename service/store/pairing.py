"""The quick-pairing queue in Redis (issue 49): who waits, for what, and what it became.

A seek waits in the queue of its *bucket* (mode, players, rated) until
enough seekers wait there to fill a game, or until its wait is over, when
the oldest others of its bucket join it and bots fill the rest. Both are
one Lua script (``pairing.lua``), so two seekers arriving at once can never
be matched twice nor left out: the script moves the members out of the
queue and writes each one's game and seat before anyone else reads them.

The game itself is made after the script, by whoever matched (``lock``
makes that one process at a time); a match whose game was not made within a
while (its process died) is listed by ``stale_matches`` for the workers'
sweep to finish. Keys: ``KeySpace.pairing``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.scripts import register
from service.store.values import Client

__all__ = ["Match", "PairingQueue", "Seek", "bucket_of"]

WAITING, MATCHED, PAIRED, LEFT, FAILED = "waiting", "matched", "paired", "left", "failed"


def bucket_of(mode: str, players: int, rated: bool) -> str:
    """The queue a seek waits in: seekers are paired only with their own bucket."""
    return f"{mode}:{players}:{'rated' if rated else 'casual'}"


@dataclass(frozen=True, slots=True)
class Seek:
    """One seeker: what it waits for, and (once matched) its game and seat."""

    id: str
    mode: str
    players: int
    rated: bool
    level: str  # the level of the bots that fill its game
    wait_ms: int
    joined_ms: int
    fill_ms: int
    account: str | None = None
    name: str | None = None
    token_hash: str | None = None  # an anonymous seeker's seat token, hashed
    address: str | None = None  # an anonymous seeker's address: its game counts against it
    status: str = WAITING
    game: str | None = None
    seat: str | None = None
    error: str | None = None  # why its game could not be made (status "failed")

    @property
    def bucket(self) -> str:
        return bucket_of(self.mode, self.players, self.rated)


@dataclass(frozen=True, slots=True)
class Match:
    """Seekers matched into one game, in seat order, and the level of its bots."""

    game: str
    members: tuple[str, ...]
    level: str


@door
class PairingQueue:
    """Joining, filling and leaving the queue, and reading seeks and matches."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._base = keys.pairing()
        self._due = f"{self._base}:due"
        self._matching = f"{self._base}:matching"
        self._script = register(client, "pairing.lua")

    def join(self, seek: Seek, game: str, ttl_ms: int) -> tuple[str, str | None]:
        """Add ``seek``: ("waiting", None), ("matched", game) when it completed a game
        (named ``game``), or ("held", the account's waiting seek) and nothing added."""
        pointer = f"{self._base}:account:{seek.account}" if seek.account else self._due
        keys = [self._due, self._matching, self._seek(seek.id), self._queue(seek), pointer]
        args: list[Any] = ["join", self._base, seek.id, seek.players, game, ttl_ms]
        args += [seek.joined_ms, seek.fill_ms, *_fields(seek, self._queue(seek))]
        reply = self._script(keys=keys, args=args)
        return _text(reply[0]), _text(reply[1]) if len(reply) > 1 else None

    def fill_next(self, now_ms: int, game: str, ttl_ms: int) -> str | None:
        """Match the seek whose wait ended first, naming the game ``game``: its id, ""
        for a seek that was gone, None when no wait has ended."""
        reply = self._script(
            keys=[self._due, self._matching], args=["fill", self._base, now_ms, game, ttl_ms]
        )
        if not reply:
            return None
        return _text(reply[1]) if _text(reply[0]) == "matched" else ""

    def leave(self, seek_id: str) -> str | None:
        """Take a waiting seek out: "left", or the status it has (None: no such seek)."""
        reply = self._script(keys=[self._due, self._matching], args=["leave", self._base, seek_id])
        status = _text(reply[0])
        return None if status == "gone" else status

    def seek(self, seek_id: str) -> Seek | None:
        found: dict[bytes, bytes] = self._client.hgetall(self._seek(seek_id))  # type: ignore[assignment]
        if not found:
            return None
        data = {k.decode(): v.decode() for k, v in found.items()}
        return _seek(seek_id, data)

    def match(self, game: str) -> Match | None:
        found: dict[bytes, bytes] = self._client.hgetall(f"{self._base}:match:{game}")  # type: ignore[assignment]
        if not found:
            return None
        members = tuple(json.loads(found[b"members"]))
        return Match(game, members, found.get(b"level", b"").decode())

    def lock(self, game: str, owner: str, ms: int) -> bool:
        """Whether ``owner`` makes the match's game now (for ``ms`` at most)."""
        return bool(self._client.set(self._lock(game), owner, nx=True, px=ms))

    def unlock(self, game: str, owner: str) -> None:
        key = self._lock(game)
        if self._client.get(key) == owner.encode():
            self._client.delete(key)

    def paired(self, game: str, members: tuple[str, ...]) -> None:
        """The match's game exists: its seeks are paired, and it is no longer pending."""
        pipe = self._client.pipeline(transaction=False)
        for member in members:
            pipe.hset(self._seek(member), "status", PAIRED)
        pipe.zrem(self._matching, game)
        pipe.execute()

    def failed(self, game: str, members: tuple[str, ...], reason: str) -> None:
        """The match's game could not be made (a setup the engine refused): said on
        each seek, and no longer retried."""
        pipe = self._client.pipeline(transaction=False)
        for member in members:
            pipe.hset(self._seek(member), mapping={"status": FAILED, "error": reason[:200]})
        pipe.zrem(self._matching, game)
        pipe.execute()

    def stale_matches(self, before_ms: int, limit: int = 100) -> list[str]:
        """Matches made before ``before_ms`` whose game is not known to exist yet."""
        found = self._client.zrangebyscore(self._matching, "-inf", before_ms, start=0, num=limit)
        return [_text(g) for g in found]

    def next_due_ms(self) -> int | None:
        """When the first wait ends (None: nobody waits): what the relay looks at to
        wake the pairing sweep."""
        first = self._client.zrange(self._due, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    def oldest_match_ms(self) -> int | None:
        """When the oldest match whose game is not known to exist was made."""
        first = self._client.zrange(self._matching, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    def waiting(self, mode: str, players: int, rated: bool) -> int:
        """How many wait in a bucket now."""
        return int(self._client.zcard(f"{self._base}:queue:{bucket_of(mode, players, rated)}"))

    def _seek(self, seek_id: str) -> str:
        return f"{self._base}:seek:{seek_id}"

    def _queue(self, seek: Seek) -> str:
        return f"{self._base}:queue:{seek.bucket}"

    def _lock(self, game: str) -> str:
        return f"{self._base}:lock:{game}"


def _fields(seek: Seek, queue: str) -> list[str]:
    """The seek's hash, as the script's name, value pairs ("" for nothing); ``queue``
    is the key of the queue it waits in (the script finds it there when it is due)."""
    values = asdict(seek)
    values.pop("id")
    values.pop("status")
    values["rated"] = int(seek.rated)
    values["queue"] = queue
    pairs: list[str] = []
    for name, value in values.items():
        pairs += [name, "" if value is None else str(value)]
    return pairs


def _seek(seek_id: str, data: dict[str, str]) -> Seek:
    return Seek(
        id=seek_id,
        mode=data["mode"],
        players=int(data["players"]),
        rated=data["rated"] == "1",
        level=data["level"],
        wait_ms=int(data["wait_ms"]),
        joined_ms=int(data["joined_ms"]),
        fill_ms=int(data["fill_ms"]),
        account=data.get("account") or None,
        name=data.get("name") or None,
        token_hash=data.get("token_hash") or None,
        address=data.get("address") or None,
        status=data["status"],
        game=data.get("game") or None,
        seat=data.get("seat") or None,
        error=data.get("error") or None,
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
