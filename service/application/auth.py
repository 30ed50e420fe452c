"""Seat tokens and the admin token.

A seat token is 32 random bytes (URL-safe base64, prefixed ``rsk_`` so
secret scanners can spot a leaked one). Only its SHA-256 is stored: a dump
of Redis cannot act for anyone. A plain hash, not a slow KDF, is right
here because the token has 256 bits of entropy; slowness only protects
guessable secrets. Every comparison is constant-time and a request is
checked against every seat of the game without stopping at the first
match, so timing tells nothing about which seat (if any) nearly matched.
Reading a token from the ``Authorization`` header, and the 401 that follows
a bad one, belong to the API (``service.http.api.common``, ``service.http.problems``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

__all__ = [
    "hash_token",
    "is_admin",
    "match_seat",
    "new_token",
]

TOKEN_PREFIX = "rsk_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """SHA-256 hex of the token: what the seats record stores."""
    return hashlib.sha256(token.encode()).hexdigest()


def match_seat(token: str, seat_hashes: Iterable[tuple[str, str | None]]) -> str | None:
    """The seat whose stored hash matches ``token``; None if none does."""
    digest = hash_token(token)
    found: str | None = None
    for seat, stored in seat_hashes:
        # No early exit: every seat is compared, whichever matches.
        if stored is not None and hmac.compare_digest(digest, stored):
            found = seat
    return found


def is_admin(token: str | None, admin_token: str | None) -> bool:
    """Whether ``token`` is the configured admin token (never true when none is set)."""
    if token is None or not admin_token:
        return False
    return hmac.compare_digest(hash_token(token), hash_token(admin_token))
