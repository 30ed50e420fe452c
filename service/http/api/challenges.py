"""Challenges (issue 49): ``POST /v1/challenges`` starts a game against bots at once, or
challenges accounts and offers open seats; each seat is accepted (or declined), and
the last acceptance makes the game (``service.application.challenges``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response

from service.application.challenge_errors import ChallengeNotFound
from service.application.challenge_events import bot_challenge_events
from service.application.challenges import (
    ChallengeRequest,
    Challenges,
    challenge_seats,
    default_mode,
)
from service.application.quotas import GameQuotaExceeded
from service.http.api.common import (
    body,
    client_address,
    games,
    iso_time,
    query,
    reply,
    services,
    summary,
)
from service.http.api.guard import count_guess, principal, require_principal
from service.http.api.lobby import game_creators, reserve_storage, storage_refusals
from service.http.challenge_schemas import AcceptChallenge, ChallengesQuery, CreateChallenge
from service.http.problems import ApiProblem
from service.store.accounts import AccountRow
from service.store.challenges import PENDING, ChallengeRow, ChallengeSeat

bp = Blueprint("challenges", __name__, url_prefix="/v1/challenges")
_CHALLENGE, _ACCEPT, _LIST = CreateChallenge(), AcceptChallenge(), ChallengesQuery()


@bp.post("")
def create_challenge() -> Response:
    """Bots only: the game, started at once, the caller in p1. With opponents or open
    seats: the challenge, waiting for its answers."""
    caller = require_principal()
    creators = game_creators()
    data = body(_CHALLENGE)
    if not (data["opponents"] or data["open"]):
        return _bot_game(caller.account, creators, data)
    request = ChallengeRequest(
        opponents=tuple(data["opponents"]),
        open_seats=(data["open_seats"] or 1) if data["open"] else 0,
        bots=tuple(data["bots"]),
        mode=data["mode"],
        board=data["board"],
        rated=data["rated"],
        expires_in_s=data["expires_in"],
    )
    try:
        with storage_refusals():
            row = _challenges().make(caller.account, request)
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    document = {"challenge": _document(row)}
    return reply(document, 201, headers={"Location": f"/v1/challenges/{row.id}"})


def _bot_game(account: AccountRow, creators: list[Any], data: dict[str, Any]) -> Response:
    """A game against bots of the levels asked for, started at once, the caller in p1;
    within the caller's game quota like any created game."""
    seats = challenge_seats(services().accounts, account, data["bots"])
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
            seats=seats,
            board=data["board"],
            mode=default_mode(data["mode"], len(seats)),
            rated=data["rated"],
        )
    except BaseException:
        quotas.cancel(ticket)
        services().storage.cancel(stored)
        raise
    info = created.info
    quotas.confirm(ticket, info.game_id, info.created_ms)
    webhooks = services().webhooks  # issue 50: challenge.received, challenge.accepted
    webhooks.emit(bot_challenge_events(info, webhooks.settings.public_url))
    document = {"game": summary(info) | {"rated": info.rated}, "seat": "p1"}
    return reply(
        document, 201, version=info.version, headers={"Location": f"/v1/games/{info.game_id}"}
    )


@bp.get("")
def list_challenges() -> Response:
    """The caller's challenges: those naming it (``incoming``) and its own (``outgoing``)."""
    caller = require_principal()
    args = query(_LIST)
    incoming, outgoing = _challenges().of_account(
        caller.account, pending_only=args["status"] == PENDING, limit=args["limit"]
    )
    names = _challenges().names([*incoming, *outgoing])
    document = {
        "incoming": [_document(row, names) for row in incoming],
        "outgoing": [_document(row, names) for row in outgoing],
    }
    return reply(document)


@bp.get("/<challenge_id>")
def get_challenge(challenge_id: str) -> Response:
    """A challenge, to its parties; one with open seats to anyone holding its link."""
    with _guessed():
        row = _challenges().get(challenge_id, _account())
    return reply({"challenge": _document(row)})


@bp.post("/<challenge_id>/accept")
def accept_challenge(challenge_id: str) -> Response:
    """Accept the caller's seat, or take an open one (without an account: with a new
    seat token, shown once); the last seat accepted makes the game."""
    account = _account()
    name = body(_ACCEPT)["name"]
    if account is not None and name is not None:
        raise ApiProblem(
            400,
            "invalid_body",
            "an account's seat has the account's name",
            errors={"name": ["an account's seat has the account's name"]},
        )
    with _guessed():
        answered = _challenges().accept(challenge_id, account, name)
    game = (
        None if answered.game is None else summary(answered.game) | {"rated": answered.game.rated}
    )
    document = {
        "challenge": _document(answered.challenge),
        "seat": answered.seat,
        "token": answered.token,
        "game": game,
    }
    return reply(document)


@bp.post("/<challenge_id>/decline")
def decline_challenge(challenge_id: str) -> Response:
    """Decline the caller's seat: the challenge ends."""
    with _guessed():
        row = _challenges().decline(challenge_id, require_principal().account)
    return reply({"challenge": _document(row)})


@bp.delete("/<challenge_id>")
def cancel_challenge(challenge_id: str) -> Response:
    """The challenger withdraws a pending challenge."""
    with _guessed():
        _challenges().cancel(challenge_id, require_principal().account)
    return Response(status=204)


def _challenges() -> Challenges:
    return services().challenges


@contextmanager
def _guessed() -> Iterator[None]:
    """An unknown challenge id counts as a guessed token against the caller's address
    (``RISK_RATE_GUESS``): an open challenge's id is a link that gives a seat."""
    try:
        yield
    except ChallengeNotFound:
        count_guess(client_address())
        raise


def _account() -> AccountRow | None:
    found = principal()
    return None if found is None else found.account


def _document(row: ChallengeRow, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A challenge as served: never a taker's seat token, nor its hash."""
    names = _challenges().names([row]) if names is None else names
    free = sum(1 for s in row.seats if s.kind == "open" and s.answer == PENDING)
    return {
        "id": row.id,
        "status": row.status_at(_challenges().now_ms()),
        "challenger": {"id": row.challenger_id, "name": names.get(row.challenger_id)},
        "mode": row.mode,
        "board": row.board,
        "rated": row.rated,
        "created": iso_time(row.created_ms),
        "expires": iso_time(row.expires_ms),
        "ended": iso_time(row.ended_ms) if row.ended_ms is not None else None,
        "seats": [_seat(seat, names) for seat in row.seats],
        "open_seats": free,
        "game_id": row.game_id,
        "url": f"/v1/challenges/{row.id}",
    }


def _seat(seat: ChallengeSeat, names: dict[str, str]) -> dict[str, Any]:
    if seat.account_id is not None:
        name = names.get(seat.account_id)
    elif seat.level is not None:
        name = f"bot-{seat.level}"
    else:
        name = seat.name
    return {
        "seat": seat.seat,
        "kind": seat.kind,
        "account": seat.account_id,
        "name": name,
        "level": seat.level,
        "answer": seat.answer,
    }
