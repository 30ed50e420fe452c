"""The quick-pairing queue (issue 49): ``POST /v1/pairing`` waits for a game with
whoever else seeks one, bots filling in after the wait; the seek's URL says what it
became (``service.application.pairing``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response

from service.application.challenge_errors import SeekNotFound
from service.application.pairing import Pairing, SeekRequest
from service.application.quotas import GameQuotaExceeded
from service.http.api.common import body, client_address, iso_time, reply, services
from service.http.api.guard import count_guess, principal
from service.http.api.lobby import creation_allowed, storage_refusals
from service.http.challenge_schemas import CreateSeek
from service.http.problems import ApiProblem
from service.store.pairing import PAIRED, WAITING, Seek

bp = Blueprint("pairing", __name__, url_prefix="/v1/pairing")
_SEEK = CreateSeek()


@bp.post("")
def join_pairing() -> Response:
    """A seek: paired at once if it completes a game, else waiting (see its URL)."""
    caller = principal()
    creation_allowed()
    data = body(_SEEK)
    if caller is not None and data["name"] is not None:
        detail = "an account's seat has the account's name"
        raise ApiProblem(400, "invalid_body", detail, errors={"name": [detail]})
    request = SeekRequest(
        mode=data["mode"],
        players=data["players"],
        wait_s=data["wait"],
        level=data["level"],
        rated=data["rated"],
        name=data["name"],
    )
    account = None if caller is None else caller.account
    try:
        with storage_refusals():
            seek, token = _pairing().join(request, account, client_address())
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    document = {"seek": _document(seek), "token": token}
    return reply(document, 201, headers={"Location": f"/v1/pairing/{seek.id}"})


@bp.get("/<seek_id>")
def get_seek(seek_id: str) -> Response:
    """What the seek became: still waiting, or its game and seat."""
    with _guessed():
        found = _pairing().seek(seek_id)
    return reply({"seek": _document(found)})


@bp.delete("/<seek_id>")
def leave_pairing(seek_id: str) -> Response:
    """Leave the queue before being paired."""
    with _guessed():
        _pairing().leave(seek_id)
    return Response(status=204)


def _pairing() -> Pairing:
    return services().pairing


@contextmanager
def _guessed() -> Iterator[None]:
    """An unknown seek id counts as a guessed token against the caller's address
    (``RISK_RATE_GUESS``): a seek's id gives its seat's game."""
    try:
        yield
    except SeekNotFound:
        count_guess(client_address())
        raise


def _document(seek: Seek) -> dict[str, Any]:
    """A seek as served (never its seat token's hash, nor the seeker's address); its
    game and seat once the game exists (``paired``)."""
    waiting = None
    if seek.status == WAITING:
        waiting = _pairing().queue.waiting(seek.mode, seek.players, seek.rated)
    return {
        "id": seek.id,
        "status": seek.status,
        "mode": seek.mode,
        "players": seek.players,
        "rated": seek.rated,
        "level": seek.level,
        "wait": seek.wait_ms // 1000,
        "joined": iso_time(seek.joined_ms),
        "fill_at": iso_time(seek.fill_ms),
        "waiting": waiting,
        "game_id": seek.game if seek.status == PAIRED else None,
        "seat": seek.seat if seek.status == PAIRED else None,
        "error": seek.error,
        "url": f"/v1/pairing/{seek.id}",
    }
