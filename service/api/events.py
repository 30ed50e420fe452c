"""Following a game: long-poll and Server-Sent Events, redacted per viewer.

Both read the same stream from ``since`` (or ``Last-Event-ID``) and give
each viewer only what it may see; once the game is over every event is
shown whole, the seed included, so anyone can audit it. A long-poll or a
stream holds one server thread while it waits (the ``gthread`` workers of
``risk serve`` are sized for that); a stream ends after ``sse_max_seconds``
and the client's EventSource reconnects with ``Last-Event-ID``, which
spreads long-lived connections over the workers again.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator

from flask import Blueprint, Response, request, stream_with_context

from service.api.common import event_json, game_id, games, query, reply, services, viewer
from service.problems import ApiProblem
from service.schemas import EventsQuery, StreamQuery
from service.store_errors import StoreError

bp = Blueprint("events", __name__, url_prefix="/v1/games/<game>/events")
_EVENTS, _STREAM = EventsQuery(), StreamQuery()
PAGE = 100
log = logging.getLogger(__name__)


@bp.get("")
def list_events(game: str) -> Response:
    """Events after ``since``; with ``wait`` > 0, block until one exists or time is up."""
    gid = game_id(game)
    who = viewer(gid)
    args = query(_EVENTS)
    wait = min(args["wait"], services().settings.max_wait_seconds)
    page = games().events(gid, args["since"], args["limit"], wait)
    document = {
        "game_id": gid,
        "version": page.version,
        "head": page.head.hex() if page.head else None,
        "events": [event_json(e, who, page.finished) for e in page.envelopes],
        "finished": page.finished,
    }
    return reply(document, version=page.version)


@bp.get("/stream")
def stream_events(game: str) -> Response:
    gid = game_id(game)
    who = viewer(gid)
    since = _resume_point(query(_STREAM).get("since"))
    games().seat_info(gid)  # 404 now, before the stream starts, for a game that does not exist
    stream = stream_with_context(_frames(gid, who, since))
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream, mimetype="text/event-stream", headers=headers)


def _resume_point(since: int | None) -> int:
    """``Last-Event-ID`` (set by a reconnecting EventSource) wins over ``since``."""
    last = request.headers.get("Last-Event-ID")
    if last is None:
        return since or 0
    if not last.strip().isdigit() or len(last) > 18:
        raise ApiProblem(400, "invalid_last_event_id", "Last-Event-ID must be an event version")
    return int(last)


def _frames(gid: str, who: str | None, since: int) -> Iterator[str]:
    settings = services().settings
    deadline = time.monotonic() + settings.sse_max_seconds
    yield "retry: 2000\n\n"
    finished = False
    while not finished and (left := deadline - time.monotonic()) > 0:
        try:
            page = games().events(gid, since, PAGE, min(settings.sse_keepalive_seconds, left))
        except StoreError as error:
            log.warning("event stream of %s ended: %s", gid, error)
            yield 'event: error\ndata: {"code": "store_unavailable"}\n\n'
            return
        if not page.envelopes:
            yield ": keep-alive\n\n"
        for envelope in page.envelopes:
            data = json.dumps(event_json(envelope, who, page.finished), separators=(",", ":"))
            yield f"id: {envelope.version}\nevent: game_event\ndata: {data}\n\n"
            since = envelope.version
        if page.envelopes and page.head:  # the anchor: the hash at the game's version
            yield f'event: head\ndata: {{"version":{page.version},"hash":"{page.head.hex()}"}}\n\n'
        finished = page.finished and page.version <= since
    if finished:
        yield "event: end\ndata: {}\n\n"
