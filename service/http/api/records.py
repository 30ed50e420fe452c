"""Game records: download one, have one verified, or read a game's statistics (issue 7).

A record is JSON Lines (``riskcore.audit.gamerecord``). While the game runs it is
redacted for the caller; once it is over it is complete and the same for
everyone. Verifying runs the same checks as ``risk verify`` offline, for
clients that cannot run Python: the server checks the record given, not
its own copy, so the verdict is only as trustworthy as running it yourself.
``expect_head`` names a head hash the client saw in command
responses and event feeds: the record must contain it (docs/records.md);
given several times, every one is checked (issue 54).

A fork's record names its parent (game, version, head, the position there):
the verdict's ``parent`` says whether that link was checked (issue 54). The
parent's record is taken from a ``multipart/form-data`` body (parts ``record``
and ``parent``), or from this server when it holds the parent game finished;
without either, ``parent`` is ``unchecked`` and says so.

What is large is never built in the request's own process (issue 36):
summaries and records past ``INLINE_EVENTS`` events, and records to verify
past ``INLINE_RECORD_BYTES``, are built by the helper process
(``service.application.offload``) and kept at the game's version (``service.application.computed``);
each such build costs the client's address one from its budget of costly
requests (``RISK_COSTLY_IP``), a kept result costs nothing. A record is sent
a chunk at a time from Redis, with a send timeout (``send_timeout_seconds``)
for a client that stops reading.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, request, stream_with_context

from riskcore.model.state import FINISHED
from service.application.archived import record_text as archived_text
from service.application.costly import (
    INLINE_EVENTS,
    INLINE_RECORD_BYTES,
    is_fork,
    record_kind,
    summary_task,
    verify_task,
)
from service.application.offload import Busy, Payload, TaskFailed
from service.application.records import record_text
from service.http.api.common import client_address, game_id, games, services, viewer
from service.http.problems import ApiProblem
from service.http.ratelimit import Check
from service.http.schemas import HEAD_HASH
from service.store.errors import GameNotFound, StoreUnavailable

bp = Blueprint("records", __name__)
RECORD_TYPE = "application/x-ndjson"
MAX_EXPECTED_HEADS = 64
RECORDS_VERIFY = "/v1/records/verify"  # takes bodies up to max_record_bytes (service.http.bodies)


@bp.get("/v1/games/<game>/record")
def download_record(game: str) -> Response:
    gid = game_id(game)
    who = viewer(gid)
    risk = services()
    loaded = games().load(gid)
    small = loaded.version <= INLINE_EVENTS
    if loaded.state.phase == FINISHED:
        archived = games().archived_record(gid)  # Redis lost the game: the archive's (issue 48)
        if archived is not None:
            return _record(archived_text(archived), gid)
        if not risk.computed.has_export(gid):
            if small:
                return _record(record_text(games(), gid, who), gid)
            _offloaded({"kind": "record", "game": gid, "viewer": None}, gid)
        return _record(_sent(risk.computed.export_chunks(gid)), gid)
    key = risk.computed.key(gid, record_kind(who))
    if risk.computed.version_of(key) != loaded.version:
        if small:
            return _record(record_text(games(), gid, who), gid)
        _offloaded({"kind": "record", "game": gid, "viewer": who}, gid)
    return _record(_sent(risk.computed.chunks(key)), gid)


@bp.get("/v1/games/<game>/summary")
def game_summary(game: str) -> Response:
    """Statistics from public facts only (territories, armies, battles), so open to all."""
    gid = game_id(game)
    risk = services()
    loaded = games().load(gid)
    key = risk.computed.key(gid, "summary")
    kept = risk.computed.version_of(key)
    if kept is not None and kept >= loaded.version:
        data = risk.computed.read(key)
    elif loaded.version <= INLINE_EVENTS:
        data = summary_task(games(), risk.computed, gid)
        kept = loaded.version
    else:
        data = _offloaded({"kind": "summary", "game": gid}, gid)
        kept = risk.computed.version_of(key)
    if data is None:  # expired between the two reads: build it here, once
        data, kept = summary_task(games(), risk.computed, gid), loaded.version
    return _json(data, kept if kept is not None else loaded.version)


@bp.post(RECORDS_VERIFY)
def verify_record() -> Response:
    request.max_content_length = services().settings.max_record_bytes
    heads = _expected_heads()
    if request.mimetype == "multipart/form-data":
        return _verify_with_parent(heads)
    if request.mimetype not in (RECORD_TYPE, "application/jsonl", "text/plain"):
        raise ApiProblem(
            415,
            "unsupported_media_type",
            f"send the record as {RECORD_TYPE} (JSON Lines), or as multipart/form-data"
            " with the parts 'record' and 'parent'",
        )
    size = request.content_length or 0
    if size <= INLINE_RECORD_BYTES:
        data = request.get_data(cache=False)
        text = data.decode("utf-8", errors="replace")
        if not is_fork(text):
            return _json(verify_task(data, heads))
        task = {"kind": "verify", "expect_heads": heads, "fetch_parent": True}
        return _json(_offloaded(task, None, data))  # the parent's record is read there
    # The helper reads the body from its spooled file in chunks (service.http.bodies):
    # never the whole record in this process's memory.
    task = {"kind": "verify", "expect_heads": heads, "fetch_parent": True}
    return _json(_offloaded(task, None, Payload(request.stream, size)))


def _verify_with_parent(heads: list[str]) -> Response:
    """The record and its parent's as the parts ``record`` and ``parent`` (files, as
    ``curl -F record=@fork.jsonl`` sends them, or plain fields)."""
    data, parent = _part("record"), _part("parent")
    if data is None:
        raise ApiProblem(400, "record_missing", "the multipart body needs a part 'record'")
    task: dict[str, Any] = {"kind": "verify", "expect_heads": heads, "record_size": len(data)}
    if parent is None:
        task["fetch_parent"] = True
    return _json(_offloaded(task, None, data + (parent or b"")))


def _part(name: str) -> bytes | None:
    upload = request.files.get(name)
    if upload is None:
        field = request.form.get(name)
        return None if field is None else field.encode()
    try:
        return upload.read()
    finally:  # its spooled file, closed now rather than by the collector
        upload.close()


def _expected_heads() -> list[str]:
    """Every ``expect_head`` of the query (each is checked: issue 54, item 5)."""
    heads = request.args.getlist("expect_head")
    if len(heads) > MAX_EXPECTED_HEADS:
        detail = f"at most {MAX_EXPECTED_HEADS} expect_head values"
        raise ApiProblem(400, "invalid_query", detail)
    for head in heads:
        if not HEAD_HASH.fullmatch(head):
            detail = "expect_head must be a head hash: 64 hex digits"
            raise ApiProblem(400, "invalid_query", detail)
    return [head.lower() for head in heads]


# -- helpers --------------------------------------------------------------------------


def _offloaded(task: dict[str, Any], gid: str | None, payload: bytes | Payload = b"") -> bytes:
    """The helper's answer, charged to the address's budget of costly requests."""
    risk = services()
    budget = Check("costly", client_address(), risk.settings.costly_ip)
    over = risk.limiter.hit([budget])
    if over is not None:
        retry_after = str(over[1])
        detail = (
            "too many large summaries, records or verifications from this address; "
            f"retry after {retry_after} s (a kept result costs nothing)"
        )
        raise ApiProblem(429, "costly_rate_limited", detail, headers={"Retry-After": retry_after})
    try:
        return risk.offload.run(task, payload)
    except Busy as error:
        raise ApiProblem(503, "server_busy", str(error), headers={"Retry-After": "2"}) from None
    except TaskFailed as error:
        if error.code == "game_not_found" and gid is not None:
            raise GameNotFound(gid) from None
        if error.code == "store_unavailable":
            raise StoreUnavailable(error.detail) from None
        raise RuntimeError(f"offloaded {task['kind']} failed: {error.code}") from None


def _json(data: bytes, version: int | None = None) -> Response:
    response = Response(data, mimetype="application/json")
    if version is not None:
        response.headers["ETag"] = f'"{version}"'
    return response


def _record(body: str | Iterator[bytes], gid: str) -> Response:
    disposition = f'attachment; filename="{gid}.jsonl"'
    return Response(body, mimetype=RECORD_TYPE, headers={"Content-Disposition": disposition})


def _sent(parts: Iterator[bytes]) -> Iterator[bytes]:
    """``parts`` with a send timeout: a client that stops reading for
    ``send_timeout_seconds`` is dropped instead of holding its connection (and the
    chunk it has not taken) for as long as it likes."""
    sock: socket.socket | None = request.environ.get("gunicorn.socket")
    seconds = services().settings.send_timeout_seconds

    def guarded() -> Iterator[bytes]:
        before = sock.gettimeout() if sock is not None else None
        if sock is not None:
            sock.settimeout(seconds)
        try:
            yield from parts
        finally:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.settimeout(before)

    return stream_with_context(guarded())
