"""``Idempotency-Key`` on game creation and forks (issue 54, item 6).

Commands took the header from the start (``service.application.commands``);
creating a game or a fork ignored it, so a client retrying after a lost
answer made a second game with new tokens. Now the first request with a key
claims it and keeps its response (``service.store.idempotency.CreationRecords``,
the door ``Services.creations``);
the same key with the same body (and path) gets the same game and the same
response again, marked ``Idempotent-Replayed: true``; another body with the key
is refused (409 ``idempotency_mismatch``), and the same one still being
answered too (409 ``idempotency_in_progress``, with Retry-After). A key
belongs to its caller: the bearer token when there is one, else the address.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from flask import Response, request

from service.application.auth import hash_token
from service.http.api.common import client_address, idempotency_key, services, token
from service.http.problems import ApiProblem

__all__ = ["once"]

_KEPT_HEADERS = ("Location", "ETag")


def once(create: Callable[[], Response]) -> Response:
    """``create()``'s response, or the one kept for this request's Idempotency-Key."""
    key = idempotency_key()
    if key is None:
        return create()
    presented = token()
    caller = hash_token(presented)[:32] if presented is not None else client_address()
    records = services().creations
    fingerprint = _fingerprint()
    state, kept = records.claim(caller, key, fingerprint)
    if state == "mismatch":
        detail = "this Idempotency-Key was already used for a different request"
        raise ApiProblem(409, "idempotency_mismatch", detail)
    if state == "busy":
        detail = "a request with this Idempotency-Key is being answered; retry shortly"
        raise ApiProblem(409, "idempotency_in_progress", detail, headers={"Retry-After": "1"})
    if state == "replay" and kept is not None:
        return _replayed(kept)
    try:
        response = create()
    except BaseException:
        records.release(caller, key)
        raise
    if response.status_code < 300:
        records.keep(caller, key, fingerprint, _kept(response))
    else:
        records.release(caller, key)
    return response


def _fingerprint() -> str:
    """The path and the body, so one key never stands for two different requests."""
    body = request.get_json(silent=True)
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{request.path}\n{canonical}".encode()).hexdigest()


def _kept(response: Response) -> bytes:
    headers = {name: response.headers[name] for name in _KEPT_HEADERS if name in response.headers}
    document = {"status": response.status_code, "headers": headers, "body": response.get_json()}
    return json.dumps(document, separators=(",", ":")).encode()


def _replayed(kept: bytes) -> Response:
    document = json.loads(kept)
    response = Response(
        json.dumps(document["body"]), status=document["status"], mimetype="application/json"
    )
    response.headers.update(document["headers"])
    response.headers["Idempotent-Replayed"] = "true"
    return response
