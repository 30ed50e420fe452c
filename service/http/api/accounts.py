"""Accounts, their tokens, public profiles and leaderboards (issue 49).

Tokens are shown once, when made (``POST /v1/accounts``, ``POST /v1/tokens``);
only their hashes are stored. A token may only make tokens with scopes it
holds itself.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from riskcore.modes import BUILT_IN_MODES
from service.application import account_deletion
from service.application.accounts import (
    AccountNotFound,
    InvalidAccountName,
    NameTaken,
    TokenNotFound,
)
from service.http.account_schemas import CreateAccount, CreateToken, LeaderboardQuery
from service.http.api.common import body, iso_time, query, reply, services
from service.http.api.guard import require_principal
from service.http.api.lobby import creation_allowed
from service.http.problems import ApiProblem
from service.store.accounts import AccountRow
from service.store.ratings import RatingRow
from service.store.tokens import TokenRow

bp = Blueprint("accounts", __name__, url_prefix="/v1")
_ACCOUNT, _TOKEN, _BOARD = CreateAccount(), CreateToken(), LeaderboardQuery()


@bp.post("/accounts")
def create_account() -> Response:
    """A new account and its first token (every scope; shown once)."""
    creation_allowed(accounts=False)
    name = body(_ACCOUNT)["name"]
    try:
        account, token = services().accounts.register(name)
    except NameTaken:
        raise ApiProblem(409, "name_taken", f"the name {name!r} is taken") from None
    except InvalidAccountName:
        detail = f"{name!r}: names starting 'bot-' are the bot levels' accounts"
        raise ApiProblem(400, "invalid_name", detail) from None
    document = {"account": account_json(account), "token": token}
    return reply(document, 201, headers={"Location": f"/v1/players/{account.name}"})


@bp.get("/account")
def get_account() -> Response:
    """The caller's account and what its token may do."""
    caller = require_principal()
    document = {
        "account": account_json(caller.account),
        "scopes": sorted(caller.scopes),
        "token_id": caller.token_id,
    }
    return reply(document)


@bp.delete("/account")
def delete_account() -> Response:
    """Delete the caller's account: its tokens stop at once, its games keep their
    records under a replaced name."""
    risk = services()
    account = require_principal().account_id
    account_deletion.delete_account(risk.accounts, risk.archive, risk.games.lobby, account)
    return Response(status=204)


@bp.get("/players/<name>")
def get_player(name: str) -> Response:
    """A public profile: the ratings per mode, and where its games are listed."""
    risk = services()
    try:
        account = risk.accounts.named(name)
    except AccountNotFound:
        raise ApiProblem(404, "player_not_found", f"no player named {name[:40]!r}") from None
    ratings = {r.mode: rating_json(r) for r in risk.ratings.of_account(account.id)}
    document = account_json(account) | {
        "ratings": ratings,
        "history": f"/v1/games?player=acct:{account.name}",
    }
    return reply(document)


@bp.post("/tokens")
def create_token() -> Response:
    caller = require_principal()
    data = body(_TOKEN)
    beyond = sorted(set(data["scopes"]) - caller.scopes)
    if beyond:
        detail = f"a token cannot grant the scope {beyond[0]!r}, which it lacks"
        raise ApiProblem(403, "missing_scope", detail, scope=beyond[0])
    row, token = services().accounts.issue(caller.account_id, data["scopes"], data["name"])
    document = token_json(row) | {"token": token}
    return reply(document, 201)


@bp.get("/tokens")
def list_tokens() -> Response:
    rows = services().accounts.tokens(require_principal().account_id)
    return reply({"tokens": [token_json(r) for r in rows]})


@bp.delete("/tokens/<token_id>")
def revoke_token(token_id: str) -> Response:
    """Revoke a token of the caller's account: refused (401) at once, in every process."""
    caller = require_principal()
    try:
        services().accounts.revoke(caller.account_id, token_id[:40])
    except TokenNotFound:
        raise ApiProblem(
            404, "token_not_found", "no live token of this account has that id"
        ) from None
    return Response(status=204)


@bp.get("/leaderboards/<mode>")
def get_leaderboard(mode: str) -> Response:
    """The best ratings of a mode, by ordinal (``mu - 3 sigma``); bots are marked."""
    if mode not in BUILT_IN_MODES:
        raise ApiProblem(404, "unknown_mode", f"no mode named {mode[:40]!r}")
    limit = query(_BOARD)["limit"]
    rows = services().ratings.leaderboard(mode, limit)
    players = [
        {"rank": rank, "name": name, "kind": kind, "bot": kind == "bot"} | rating_json(row)
        for rank, (row, name, kind) in enumerate(rows, 1)
    ]
    return reply({"mode": mode, "players": players})


def account_json(account: AccountRow) -> dict[str, Any]:
    return {
        "id": account.id,
        "name": account.name,
        "kind": account.kind,
        "level": account.level,
        "created": iso_time(account.created_ms),
    }


def token_json(row: TokenRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "scopes": list(row.scopes),
        "created": iso_time(row.created_ms),
        "last_used": iso_time(row.last_used_ms) if row.last_used_ms else None,
    }


def rating_json(row: RatingRow) -> dict[str, Any]:
    return {
        "mu": round(row.mu, 3),
        "sigma": round(row.sigma, 3),
        "ordinal": round(row.ordinal, 3),
        "games": row.games,
        "provisional": row.provisional,
    }
