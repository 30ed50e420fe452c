"""The event store's idempotency records and private keys, as append.lua writes them.

An append made with an idempotency key leaves a record beside the game (its
request's fingerprint, the game's epoch, the versions it wrote and the head
after it), so a retry replays the original result. An append without a
caller's key on a Redis Cluster gets a private key from ``private_key``
(see ``EventStore._idempotency`` for when).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Sequence
from typing import Any

import redis

from service.store.errors import StoreError, door
from service.store.keys import KeySpace
from service.store.values import Client, NewEvent

__all__ = ["PRIVATE_KEY", "CreationRecords", "batch_fingerprint", "private_key", "read_record"]

# An idempotency record, as append.lua writes it: the head hash after the append
# (32 bytes), then b"<epoch> <first> <last> <request fingerprint>". Records
# written before that format are hashes with these fields (the same, in order:
# fingerprint, epoch, first and last version, head hash); they stay readable.
_RECORD = re.compile(rb"(.{32})(\S+) (\d+) (\d+) (.*)\Z", re.DOTALL)
_HASH_RECORD = ["r", "e", "f", "l", "h"]
# The store's private idempotency keys (_PrivateKeys), told to a caller only by
# AppendOutcomeUnknown.
PRIVATE_KEY = re.compile(r"auto-[0-9a-f]{24}")


class _PrivateKeys:
    """Idempotency keys for appends that came without one: unique, unguessable, cheap.

    A keyed hash of this process's id and a counter, under a secret drawn
    once: as unpredictable as fresh random bytes (a caller cannot claim an
    upcoming private key with an ``Idempotency-Key`` of its own), without a
    system call per append. The process id keeps forked children apart.
    """

    def __init__(self) -> None:
        self._secret = os.urandom(32)
        self._counter = itertools.count(1)

    def __call__(self) -> str:
        step = b"%d:%d" % (os.getpid(), next(self._counter))
        return "auto-" + hashlib.blake2b(step, key=self._secret, digest_size=12).hexdigest()


private_key = _PrivateKeys()


def read_record(client: Client, key: str, record: Any) -> tuple[bytes, ...] | None:
    """An idempotency record's fingerprint, epoch, first, last and head; None if absent.

    ``record`` is what ``GET`` answered: the record, None, or the WRONGTYPE
    error of a record kept as a hash, which is then read as one.
    """
    if isinstance(record, redis.ResponseError) and "WRONGTYPE" in str(record):
        fields = client.hmget(key, _HASH_RECORD)
        return None if fields[0] is None else tuple(fields)
    if isinstance(record, Exception):
        raise record
    if record is None:
        return None
    found = _RECORD.match(record)
    if found is None:
        raise StoreError(f"unreadable idempotency record at {key!r}")
    head, epoch, first, last, fingerprint = found.groups()
    return fingerprint, epoch, first, last, head


def batch_fingerprint(expected_version: int, events: Sequence[NewEvent]) -> bytes:
    """Digest of a batch: the last hash already commits to prev and every payload."""
    return hashlib.sha256(b"%d/%d/" % (expected_version, len(events)) + events[-1][1]).digest()


@door
class CreationRecords:
    """Idempotency for creating a game or a fork (issue 54, item 6), as for commands.

    A retried ``POST /v1/games`` (or ``.../fork``) after a lost answer made a
    second game with new tokens. With an ``Idempotency-Key``, the first request
    claims the key (``pending`` and its body's fingerprint) and then keeps its
    response (status and document, tokens included: the key is scoped to the
    caller, and lives ``KEEP_SECONDS``); the same key and body again gets that
    response; another body with the key is refused, as on commands. ``caller``
    is who sent the key (a token's digest or an address): one caller's key
    never stands for another's.
    """

    KEEP_SECONDS = 24 * 3600
    PENDING_SECONDS = 60  # a request that died mid-creation frees its key then

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def claim(self, caller: str, key: str, fingerprint: str) -> tuple[str, bytes | None]:
        """("new", None): this request creates; ("replay", response); ("busy", None):
        the same request is being answered; ("mismatch", None): another body."""
        stored = self._keys.creation_idempotency(caller, key)
        pending = f"pending {fingerprint}".encode()
        while not self._client.set(stored, pending, nx=True, ex=self.PENDING_SECONDS):
            found = self._client.get(stored)
            if found is None:  # expired between the two calls: claim it again
                continue
            state, _, rest = found.partition(b" ")
            kept_fingerprint, _, response = rest.partition(b" ")
            if kept_fingerprint.decode() != fingerprint:
                return "mismatch", None
            return ("busy", None) if state == b"pending" else ("replay", response)
        return "new", None

    def keep(self, caller: str, key: str, fingerprint: str, response: bytes) -> None:
        """The creation succeeded: its response is what the key answers from now on."""
        stored = self._keys.creation_idempotency(caller, key)
        kept = b"done %s %s" % (fingerprint.encode(), response)
        self._client.set(stored, kept, ex=self.KEEP_SECONDS)

    def release(self, caller: str, key: str) -> None:
        """The creation failed: the key may be used again (a retry creates)."""
        self._client.delete(self._keys.creation_idempotency(caller, key))
