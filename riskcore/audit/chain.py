"""The hash chain that makes a game record checkable offline.

Every stored event carries its own hash and the hash of the event before
it. The rule, which the auditor tool recomputes byte for byte, is::

    hash(0) = GENESIS                      (32 zero bytes)
    hash(n) = SHA-256(hash(n-1) || payload(n))

where ``||`` is byte concatenation, ``hash(n-1)`` is the raw 32-byte digest
(not hex) and ``payload(n)`` is the event's canonical encoding exactly as it
is stored (UTF-8 JSON with sorted keys and compact separators, produced by
the codec; this module never re-encodes it). Because each hash covers the
previous one, editing, dropping, inserting or reordering any event changes
every later hash, so a record that verifies has no gap and no edit.

Pure standard library, so the engine, the store and an offline verifier can
share it without pulling in the server stack.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import sha256
from typing import Final

__all__ = ["GENESIS", "HASH_SIZE", "chain", "event_hash", "verify_chain"]

HASH_SIZE: Final = 32
GENESIS: Final = bytes(HASH_SIZE)


def event_hash(prev: bytes, payload: bytes) -> bytes:
    """Hash of an event whose predecessor hashes to ``prev``.

    A wrong-sized ``prev`` is refused rather than hashed: it can only come
    from a bug (hex where raw bytes belong), and hashing it would silently
    start a chain nobody else can reproduce.
    """
    if len(prev) != HASH_SIZE:
        raise ValueError(f"prev hash must be {HASH_SIZE} raw bytes, got {len(prev)}: {prev!r}")
    return sha256(prev + payload).digest()


def chain(prev: bytes, payloads: Iterable[bytes]) -> list[bytes]:
    """Hashes of ``payloads`` appended, in order, after an event hashing to ``prev``."""
    hashes: list[bytes] = []
    for payload in payloads:
        prev = event_hash(prev, payload)
        hashes.append(prev)
    return hashes


def verify_chain(prev: bytes, entries: Iterable[tuple[bytes, bytes]]) -> int | None:
    """Index of the first ``(payload, hash)`` pair that breaks the chain, or None.

    ``prev`` is the hash the first entry must follow (``GENESIS`` for a
    whole record). The index points at the first entry whose stored hash is
    not the hash of its payload after its predecessor: the earliest place an
    auditor should look.
    """
    for index, (payload, stored) in enumerate(entries):
        prev = event_hash(prev, payload)
        if stored != prev:
            return index
    return None
