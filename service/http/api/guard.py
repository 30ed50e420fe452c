"""Which scope each endpoint needs, and who a bearer token is (issue 49).

Every endpoint is in ``ENDPOINT_SCOPES`` (tests/service/http/test_api_scopes.py
fails for one that is not, and checks openapi.yaml says the same): before a
view runs, an account token (``rac_…``) or an OIDC JWT becomes a
``Principal`` and must hold the endpoint's scope, else 403 ``missing_scope``
naming it. Seat tokens and the admin token are not scoped and pass through
unchanged: they are checked by the views as before accounts existed.

An account token that matches nothing is a 401 and counts against the
caller's address (``RISK_RATE_GUESS``): guessing tokens is slow.
"""

from __future__ import annotations

from flask import g, request

from service.application.accounts import Principal, is_account_token
from service.application.oidc import InvalidJwt, looks_like_jwt
from service.application.scopes import PUBLIC
from service.http.problems import BEARER_CHALLENGE, ApiProblem
from service.http.ratelimit import Check

__all__ = ["ENDPOINT_SCOPES", "check_scope", "count_guess", "principal", "require_principal"]

READ, CREATE, PLAY = "read", "game:create", "game:play"
MANAGE, WEBHOOKS = "account:manage", "webhook:manage"

# endpoint (blueprint.view) -> the scope an account token needs for it
ENDPOINT_SCOPES: dict[str, str] = {
    # games
    "lobby.create_game": CREATE,
    "lobby.list_games": PUBLIC,
    "lobby.join_game": CREATE,
    "lobby.get_game": READ,
    "lobby.delete_game": PUBLIC,  # the admin token's
    "play.list_legal_actions": READ,
    "play.send_command": PLAY,
    "play.get_state_at": READ,
    "events.list_events": READ,
    "events.stream_events": READ,
    "records.download_record": READ,
    "records.game_summary": READ,
    "records.verify_record": PUBLIC,
    "history.export_games": READ,  # records, as records.download_record (issue 48)
    "analysis.start_analysis": READ,
    "analysis.get_analysis": READ,
    "analysis.list_analyses": READ,
    "analysis.fork_game": CREATE,
    "tournaments.create_tournament": CREATE,
    "tournaments.list_tournaments": PUBLIC,
    "tournaments.get_tournament": PUBLIC,
    "tournaments.stream_tournament": PUBLIC,
    # reference, pages and operations
    "reference.get_odds": PUBLIC,
    "reference.list_maps": PUBLIC,
    "reference.get_map": PUBLIC,
    "reference.list_modes": PUBLIC,
    "board.lobby_page": PUBLIC,
    "board.game_page": PUBLIC,
    "board.account_page": PUBLIC,
    "board.play_page": PUBLIC,
    "board.player_page": PUBLIC,
    "board.leaderboards_page": PUBLIC,
    "board.board_file": PUBLIC,
    "board.board_meta": PUBLIC,
    "ops.healthz": PUBLIC,
    "ops.readyz": PUBLIC,
    "ops.metrics": PUBLIC,
    "ops.openapi": PUBLIC,
    "ops.docs": PUBLIC,
    "swagger_ui.show": PUBLIC,
    "static": PUBLIC,
    # players (issue 49)
    "accounts.create_account": PUBLIC,
    "accounts.get_account": READ,
    "accounts.delete_account": MANAGE,
    "accounts.get_player": PUBLIC,
    "accounts.create_token": MANAGE,
    "accounts.list_tokens": MANAGE,
    "accounts.revoke_token": MANAGE,
    "accounts.get_leaderboard": PUBLIC,
    "challenges.create_challenge": CREATE,
    "challenges.list_challenges": READ,
    "challenges.get_challenge": READ,
    "challenges.accept_challenge": CREATE,
    "challenges.decline_challenge": CREATE,
    "challenges.cancel_challenge": CREATE,
    "pairing.join_pairing": CREATE,
    "pairing.get_seek": READ,
    "pairing.leave_pairing": CREATE,
    # webhooks (issue 50)
    "webhooks.create_webhook": WEBHOOKS,
    "webhooks.list_webhooks": WEBHOOKS,
    "webhooks.update_webhook": WEBHOOKS,
    "webhooks.delete_webhook": WEBHOOKS,
    "webhooks.rotate_secret": WEBHOOKS,
    "webhooks.list_deliveries": WEBHOOKS,
    "webhooks.redeliver": WEBHOOKS,
}


def check_scope() -> None:
    """Before each request: an account's token must hold the endpoint's scope."""
    scope = ENDPOINT_SCOPES.get(request.endpoint or "", PUBLIC)
    if scope == PUBLIC or request.method == "OPTIONS":
        return
    found = principal()
    if found is not None and scope not in found.scopes:
        raise ApiProblem(
            403,
            "missing_scope",
            f"this token lacks the scope {scope!r}",
            scope=scope,
        )


def principal() -> Principal | None:
    """The account the bearer token acts for; None for no token, a seat or admin token."""
    if "principal" not in g:
        g.principal = _resolve()
    found: Principal | None = g.principal
    return found


def require_principal() -> Principal:
    """The caller's account; 401 without an account token."""
    found = principal()
    if found is None:
        raise ApiProblem(
            401,
            "account_token_required",
            "this needs an account token (Authorization: Bearer rac_...)",
            headers=BEARER_CHALLENGE,
        )
    return found


def _resolve() -> Principal | None:
    from service.http.api.common import client_address, services, token

    presented = token()
    if presented is None:
        return None
    risk = services()
    if is_account_token(presented):
        found = risk.accounts.authenticate(presented)
        if found is None:
            count_guess(client_address())
        return found or _refuse("the account token is unknown or revoked")
    if risk.oidc is not None and looks_like_jwt(presented):
        try:
            return risk.oidc.principal(presented)
        except InvalidJwt as error:
            count_guess(client_address())
            return _refuse(str(error))
    return None


def count_guess(address: str) -> None:
    """A wrong token (or an unknown challenge or seek id, which act as one: issue 49):
    counted against the address; 429 once it guessed too often."""
    from service.http.api.common import services

    risk = services()
    over = risk.limiter.hit([Check("guess", address, risk.settings.rate_guess)])
    if over is not None:
        raise ApiProblem(
            429,
            "rate_limited",
            f"too many unknown tokens from this address; retry after {over[1]} s",
            headers={"Retry-After": str(over[1])},
        )


def _refuse(detail: str) -> Principal:
    raise ApiProblem(401, "invalid_token", detail, headers=BEARER_CHALLENGE)
