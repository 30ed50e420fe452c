"""Errors as ``application/problem+json`` (RFC 9457): the one place they are shaped.

Every error response has ``type``, ``title``, ``status``, ``detail`` and our
stable ``code``; some add members (``current_version`` on a conflict,
``errors`` on a validation failure). ``type`` is a relative URI to the
problem's entry on ``/docs``, so a developer who meets an unknown code can
follow it. Nothing below the API knows HTTP: the application service
raises plain errors (``service.application.errors``) and this module alone gives them a
status. The mapping, in one table, from what goes wrong to a status::

    ApiProblem (raised by views only)                          its own status
    riskcore MalformedCommand, RuleOptionError, BoardError     400
    riskcore RuleViolation                                     422, the engine's code
    service UnknownBoard, UnknownBot, UnknownLevel,
            LevelNotForBot, InvalidTeams                       400
    service InvalidSeatToken                                   401 + WWW-Authenticate
    service UnknownSeat, VersionNotFound                       404
    service SeatTaken, GameFull, GameNotStarted, TeamNotInGame,
            TeamFull                                           409
    challenges and pairing (service.application.challenge_errors) 400 to 429, each
            its own (the table below)
    store GameNotFound                                         404
    store VersionConflict                                      409 + current_version
    store IdempotencyMismatch                                  409
    store StoreUnavailable (Redis down or full, outcome unknown) 503 + Retry-After
    redis ConnectionError, TimeoutError, OutOfMemoryError,
          cluster CLUSTERDOWN, TRYAGAIN, READONLY (REDIS_OUTAGES) 503 + Retry-After
    werkzeug HTTPException (404 route, 405, 413, bad JSON)     its status
    anything else                                              500, logged, no detail

A 500 never echoes the exception: its text could hold a secret.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from riskcore.errors import BoardError, MalformedCommand, RuleOptionError, RuleViolation
from service.application.challenge_errors import (
    AlreadyAnswered,
    AlreadyPaired,
    AlreadySeatedHere,
    AlreadySeeking,
    ChallengeClosed,
    ChallengeExpired,
    ChallengeFull,
    ChallengeNotFound,
    NotAddressed,
    NotChallenger,
    OpponentIsBot,
    RatedNeedsAccount,
    SeekNotFound,
    SelfChallenge,
    TooManyChallenges,
    UnknownPlayer,
)
from service.application.errors import (
    GameFull,
    GameNotStarted,
    InvalidSeatToken,
    InvalidTeams,
    LevelNotForBot,
    SeatTaken,
    ServiceError,
    TeamFull,
    TeamNotInGame,
    UnknownBoard,
    UnknownBot,
    UnknownLevel,
    UnknownSeat,
    VersionNotFound,
)
from service.store.errors import (
    REDIS_FULL,
    REDIS_OUTAGES,
    DatabaseUnavailable,
    GameNotFound,
    IdempotencyMismatch,
    StoreFull,
    StoreUnavailable,
    VersionConflict,
)

__all__ = [
    "BEARER_CHALLENGE",
    "PROBLEM_JSON",
    "SERVICE_ERROR_STATUS",
    "ApiProblem",
    "http_code",
    "problem_response",
    "register_error_handlers",
]

PROBLEM_JSON = "application/problem+json"
# Sent with every 401, so a client knows which credentials to present.
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="risk"'}
log = logging.getLogger(__name__)

# Codes for plain HTTP errors that werkzeug raises before a view runs.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "body_timeout",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    429: "rate_limited",
    431: "header_fields_too_large",
}


def http_code(status: int) -> str:
    """Our code for a plain HTTP error (werkzeug's or the HTTP server's own)."""
    return _HTTP_CODES.get(status, "http_error")


# The application service's own errors: the status of each (code and detail are the error's).
SERVICE_ERROR_STATUS: dict[type[ServiceError], int] = {
    UnknownBoard: 400,
    UnknownBot: 400,
    UnknownLevel: 400,
    LevelNotForBot: 400,
    InvalidTeams: 400,
    InvalidSeatToken: 401,
    UnknownSeat: 404,
    VersionNotFound: 404,
    SeatTaken: 409,
    GameFull: 409,
    GameNotStarted: 409,
    TeamNotInGame: 409,
    TeamFull: 409,
    # challenges and the pairing queue (issue 49): service.application.challenge_errors
    UnknownPlayer: 400,
    SelfChallenge: 400,
    OpponentIsBot: 400,
    RatedNeedsAccount: 400,
    NotAddressed: 403,
    NotChallenger: 403,
    ChallengeNotFound: 404,
    SeekNotFound: 404,
    AlreadyAnswered: 409,
    AlreadySeatedHere: 409,
    ChallengeClosed: 409,
    ChallengeFull: 409,
    AlreadySeeking: 409,
    AlreadyPaired: 409,
    ChallengeExpired: 410,
    TooManyChallenges: 429,
}


class ApiProblem(Exception):
    """An error the API reports as it is: a status, a stable code and a detail."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **members: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.members = members


def problem_response(
    status: int,
    code: str,
    detail: str,
    headers: Mapping[str, str] | None = None,
    **members: Any,
) -> Response:
    body = {
        "type": f"/docs#problem-{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **members,
    }
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    response.headers.update(headers or {})
    return response


def _from_api(error: ApiProblem) -> Response:
    return problem_response(error.status, error.code, error.detail, error.headers, **error.members)


def _from_http(error: HTTPException) -> Response:
    status = error.code or 500
    detail = error.description or HTTPStatus(status).phrase
    headers = {}
    if status == 405 and error.valid_methods:  # type: ignore[attr-defined]
        headers["Allow"] = ", ".join(sorted(error.valid_methods))  # type: ignore[attr-defined]
    return problem_response(status, http_code(status), detail, headers)


def _from_rule(error: RuleViolation) -> Response:
    return problem_response(422, error.code, error.message)


def _from_service(error: ServiceError) -> Response:
    status = SERVICE_ERROR_STATUS[type(error)]
    headers = BEARER_CHALLENGE if status == 401 else None
    return problem_response(status, error.code, error.message, headers)


def _from_bad_input(error: MalformedCommand | RuleOptionError | BoardError) -> Response:
    return problem_response(400, error.code, error.message)


def _from_not_found(error: GameNotFound) -> Response:
    return problem_response(404, "game_not_found", f"no game {error.game_id!r}")


def _from_conflict(error: VersionConflict) -> Response:
    detail = f"the game is at version {error.current_version}, not {error.expected}"
    return problem_response(
        409,
        "version_conflict",
        detail,
        {"ETag": f'"{error.current_version}"'},
        current_version=error.current_version,
    )


def _from_idempotency(error: IdempotencyMismatch) -> Response:
    detail = f"Idempotency-Key {error.key!r} was already used for a different request"
    return problem_response(409, "idempotency_mismatch", detail)


def _from_unavailable(error: StoreUnavailable) -> Response:
    log.warning("store unavailable: %s", error)
    detail = "the game store is unavailable; retry (with the same Idempotency-Key for commands)"
    return problem_response(503, error.code, detail, {"Retry-After": "1"})


def _from_redis(error: Exception) -> Response:
    """A Redis failure that no door translated (it should not happen) reads the same way."""
    full = isinstance(error, REDIS_FULL)
    wrapped = StoreFull(str(error)) if full else StoreUnavailable(str(error))
    return _from_unavailable(wrapped)


def _from_database(error: DatabaseUnavailable) -> Response:
    """The SQL database (accounts, ratings) unreachable, or not migrated yet: retry.
    Its door (``service.store.database.sql_door``) translated the driver's error."""
    log.warning("database unavailable: %s", error)
    detail = "the database is unavailable; retry later"
    return problem_response(503, "database_unavailable", detail, {"Retry-After": "5"})


def _from_bug(error: Exception) -> Response:
    log.exception("unhandled error", exc_info=error)
    return problem_response(500, "internal_error", "an unexpected error occurred; it was logged")


def register_error_handlers(app: Flask) -> None:
    """Route every error to a problem response (see the module docstring)."""
    app.register_error_handler(ApiProblem, _from_api)
    app.register_error_handler(HTTPException, _from_http)
    app.register_error_handler(RuleViolation, _from_rule)
    for bad_input in (MalformedCommand, RuleOptionError, BoardError):
        app.register_error_handler(bad_input, _from_bad_input)
    for service_error in SERVICE_ERROR_STATUS:
        app.register_error_handler(service_error, _from_service)
    app.register_error_handler(GameNotFound, _from_not_found)
    app.register_error_handler(VersionConflict, _from_conflict)
    app.register_error_handler(IdempotencyMismatch, _from_idempotency)
    app.register_error_handler(StoreUnavailable, _from_unavailable)
    for failure in (*REDIS_OUTAGES, REDIS_FULL):
        app.register_error_handler(failure, _from_redis)
    app.register_error_handler(DatabaseUnavailable, _from_database)
    app.register_error_handler(Exception, _from_bug)
