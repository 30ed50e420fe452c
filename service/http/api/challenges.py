"""Challenges against bots (issue 49): ``POST /v1/challenges`` starts a game at once."""

from __future__ import annotations

from flask import Blueprint, Response

from service.application.challenges import challenge_mode, challenge_seats
from service.application.quotas import GameQuotaExceeded
from service.application.webhook_events import challenge_events
from service.http.account_schemas import CreateChallenge
from service.http.api.common import body, games, reply, services, summary
from service.http.api.guard import require_principal
from service.http.api.lobby import game_creators, reserve_storage
from service.http.problems import ApiProblem

bp = Blueprint("challenges", __name__, url_prefix="/v1/challenges")
_CHALLENGE = CreateChallenge()


@bp.post("")
def create_challenge() -> Response:
    """A game against bots of the levels asked for, started at once, the caller in p1;
    within the caller's game quota like any created game."""
    caller = require_principal()
    creators = game_creators()
    data = body(_CHALLENGE)
    seats = challenge_seats(services().accounts, caller.account, data["bots"])
    quotas = services().quotas
    try:
        ticket = quotas.reserve(creators)
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    try:
        stored = reserve_storage(creators, 1)
    except ApiProblem:
        quotas.cancel(ticket)
        raise
    try:
        created = games().create(
            seats=seats, board=data["board"], mode=challenge_mode(data), rated=data["rated"]
        )
    except BaseException:
        quotas.cancel(ticket)
        services().storage.cancel(stored)
        raise
    info = created.info
    quotas.confirm(ticket, info.game_id, info.created_ms)
    webhooks = services().webhooks  # issue 50: challenge.received, challenge.accepted
    webhooks.emit(challenge_events(info, webhooks.settings.public_url))
    document = {"game": summary(info) | {"rated": info.rated}, "seat": "p1"}
    return reply(
        document, 201, version=info.version, headers={"Location": f"/v1/games/{info.game_id}"}
    )
