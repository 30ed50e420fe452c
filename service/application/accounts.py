"""Accounts and their tokens (issue 49): who a bearer token is, and what it may do.

An account token is ``rac_`` and 32 random bytes (seat tokens are ``rsk_``:
the prefix says which lookup to make, so a seat token never costs a SQL
query). Only its SHA-256 is stored (``service.application.auth``).

Lookups are cached per process, and a revocation must still refuse the
token at once in every process: each revocation raises a counter in Redis
and says so on a channel each process listens to
(``service.store.tokens.RevocationCounter``: no round trip a request while
the subscription stands), and a process whose cache is older than the
counter empties it.
Only tokens found are cached, so a guess always reaches the database and is
counted against the caller's address (``service.http.api.guard``).

A bearer JWT from the configured OIDC issuer (``service.application.oidc``)
is an account too: the first time a subject is seen an account is made for
it, named after its ``preferred_username`` when free.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.application import auth
from service.application.scopes import ALL_SCOPES, check_scopes
from service.store.accounts import AccountRow, AccountStore, NameTaken
from service.store.tokens import RevocationCounter, TokenRow, TokenStore

__all__ = [
    "ACCOUNT_PREFIX",
    "AccountNotFound",
    "Accounts",
    "InvalidAccountName",
    "NameTaken",
    "Principal",
    "TokenNotFound",
]

ACCOUNT_PREFIX = "rac_"
BOT_PREFIX = "bot-"  # bot-easy, bot-medium, bot-hard: the level's bot account
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")
CACHED_TOKENS = 10_000
USED_EVERY_MS = 60_000  # last_used is written at most this often per token and process


class InvalidAccountName(ValueError):
    """Not a name an account may take (2..32 of letters, digits, ``_.-``; not ``bot-…``)."""


class AccountNotFound(LookupError):
    """No account of that name."""


class TokenNotFound(LookupError):
    """No live token of that id on the caller's account."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts for: an account, with the scopes of the token it showed."""

    account: AccountRow
    scopes: frozenset[str]
    token_id: str | None  # None for a JWT

    @property
    def account_id(self) -> str:
        return self.account.id


class Accounts:
    """Register accounts, issue, look up and revoke their tokens."""

    def __init__(
        self,
        accounts: AccountStore,
        tokens: TokenStore,
        revocations: RevocationCounter,
        *,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.store = accounts
        self._tokens = tokens
        self._revocations = revocations
        self._now_ms = now_ms
        self._cache: dict[str, Principal] = {}
        self._cache_version = -1
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    # -- accounts --------------------------------------------------------------

    def register(
        self, name: str, *, kind: str = "human", level: str | None = None
    ) -> tuple[AccountRow, str]:
        """A new account and its first token (every scope), shown once."""
        if kind == "human" and (not NAME.fullmatch(name) or name.lower().startswith(BOT_PREFIX)):
            raise InvalidAccountName(name)
        row = self.store.create(self._new_row(name, kind, level))
        token = self.issue(row.id, ALL_SCOPES, "first token")[1]
        return row, token

    def named(self, name: str) -> AccountRow:
        found = self.store.by_name(name) if NAME.fullmatch(name) else None
        if found is None or found.deleted_ms is not None:
            raise AccountNotFound(name)
        return found

    def bot(self, level: str) -> AccountRow:
        """The bot account of a level (``bot-medium``), made on first use."""
        name = f"{BOT_PREFIX}{level}"
        found = self.store.by_name(name)
        if found is not None:
            return found
        try:
            return self.store.create(self._new_row(name, "bot", level))
        except NameTaken:  # made by another request meanwhile
            return self.named(name)

    def of_subject(self, subject: str, wanted_name: str | None) -> AccountRow:
        """The account of an OIDC subject (``issuer|sub``), made the first time."""
        found = self.store.by_subject(subject)
        if found is not None:
            return found
        for name in _candidate_names(wanted_name):
            try:
                return self.store.create(self._new_row(name, "human", None), subject)
            except NameTaken:
                continue
        raise AssertionError("unreachable: random names do not collide")

    def delete(self, account_id: str) -> str:
        """Keep the account's records, drop its name and every token: the name it has
        now (``deleted-…``, which ``service.application.account_deletion`` gives its
        games' listings too)."""
        replaced = f"deleted-{secrets.token_hex(6)}"
        self.store.delete(account_id, replaced, self._now_ms())
        self._tokens.revoke(account_id, None, self._now_ms())
        self._revocations.bump()
        return replaced

    def _new_row(self, name: str, kind: str, level: str | None) -> AccountRow:
        return AccountRow("a" + secrets.token_hex(8), name, kind, level, self._now_ms())

    # -- tokens ----------------------------------------------------------------

    def issue(
        self, account_id: str, scopes: Iterable[str], name: str | None
    ) -> tuple[TokenRow, str]:
        """A new token of the account with ``scopes`` (UnknownScope for a stranger)."""
        token = ACCOUNT_PREFIX + secrets.token_urlsafe(32)
        row = TokenRow(
            "t" + secrets.token_hex(8), account_id, name, check_scopes(scopes), self._now_ms()
        )
        self._tokens.add(row, auth.hash_token(token))
        return row, token

    def tokens(self, account_id: str) -> list[TokenRow]:
        return self._tokens.of_account(account_id)

    def revoke(self, account_id: str, token_id: str) -> None:
        """Revoke the token now, in every process (TokenNotFound if it is not live)."""
        if not self._tokens.revoke(account_id, token_id, self._now_ms()):
            raise TokenNotFound(token_id)
        self._revocations.bump()

    def authenticate(self, token: str) -> Principal | None:
        """The principal of an account token; None if no live token matches."""
        digest = auth.hash_token(token)
        version = self._revocations.read()
        with self._lock:
            if version != self._cache_version:
                self._cache.clear()
                self._cache_version = version
            found = self._cache.get(digest)
        if found is None:
            found = self._look_up(digest, version)
        if found is not None and found.token_id is not None:
            self._note_use(found.token_id)
        return found

    def principal(self, account: AccountRow, scopes: Iterable[str]) -> Principal:
        """A principal without a token of ours (an OIDC subject)."""
        return Principal(account, frozenset(scopes), None)

    def _look_up(self, digest: str, version: int) -> Principal | None:
        row = self._tokens.live_by_hash(digest)
        if row is None:
            return None
        account = self.store.by_id(row.account_id)
        if account is None or account.deleted_ms is not None:
            return None
        found = Principal(account, frozenset(row.scopes), row.id)
        with self._lock:
            if version == self._cache_version:  # else a revocation came meanwhile
                if len(self._cache) >= CACHED_TOKENS:
                    self._cache.clear()
                self._cache[digest] = found
        return found

    def _note_use(self, token_id: str) -> None:
        now = self._now_ms()
        with self._lock:
            if now - self._used.get(token_id, 0) < USED_EVERY_MS:
                return
            if len(self._used) >= CACHED_TOKENS:
                self._used.clear()
            self._used[token_id] = now
        self._tokens.used(token_id, now)


def is_account_token(token: str) -> bool:
    return token.startswith(ACCOUNT_PREFIX)


def _candidate_names(wanted: str | None) -> Iterable[str]:
    if wanted and NAME.fullmatch(wanted) and not wanted.lower().startswith(BOT_PREFIX):
        yield wanted
    while True:
        yield f"player-{secrets.token_hex(4)}"
