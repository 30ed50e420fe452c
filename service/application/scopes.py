"""What an account token may do (issue 49): its scopes.

A token carries a set of scopes; every endpoint declares the one it needs
(``service.http.api.guard``) and an account token without it gets a 403
``missing_scope`` naming it. Seat tokens and the admin token are not scoped:
a seat token acts for its one seat, as before accounts existed.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ALL_SCOPES", "PUBLIC", "SCOPES", "check_scopes"]

# The scopes a token may have, and what each allows.
SCOPES: dict[str, str] = {
    "read": "read the account, its games' views, legal actions and event feeds",
    "game:create": "create games, join them, and start challenges",
    "game:play": "send commands for the account's seats",
    "webhook:manage": "create and delete webhooks",
    "account:manage": "create, list and revoke tokens; delete the account",
}
ALL_SCOPES: tuple[str, ...] = tuple(SCOPES)
PUBLIC = "public"  # an endpoint anyone may call: no scope is checked


class UnknownScope(ValueError):
    """A scope this server does not know."""


def check_scopes(scopes: Iterable[str]) -> tuple[str, ...]:
    """The scopes in their canonical order; UnknownScope names the first stranger."""
    wanted = set(scopes)
    for scope in sorted(wanted):
        if scope not in SCOPES:
            raise UnknownScope(scope)
    return tuple(s for s in ALL_SCOPES if s in wanted)
