"""Following a game: long-poll and Server-Sent Events, redacted per viewer.

Both read the same stream from ``since`` (or ``Last-Event-ID``) and give
each viewer only what it may see; once the game is over every event is
shown whole, the seed included, so anyone can audit it.

Waiting is cheap on ``risk serve``'s gevent workers (a greenlet each), but
bounded all the same: one client address holds at most
``streams_per_address`` open streams and waiting long-polls
(``service.http.stream_slots``; 429 ``too_many_streams`` past it). Both wait in
slices of one keep-alive and look at the client's socket between slices, so
a client that went away is noticed within one keep-alive and its slot
given back, instead of holding it until the stream's next write or the
poll's end. A stream ends after ``sse_max_seconds`` and the client's
EventSource reconnects with ``Last-Event-ID``, which spreads long-lived
connections over the workers again.
"""

from __future__ import annotations

import json
import logging
import random
import select
import socket
import time
from collections.abc import Iterator

from flask import Blueprint, Response, g, request, stream_with_context

from service.application.game_types import EventPage
from service.http.api.common import (
    client_address,
    event_json,
    game_id,
    games,
    is_version,
    query,
    reply,
    services,
    viewer,
)
from service.http.problems import ApiProblem
from service.http.schemas import EventsQuery, StreamQuery
from service.http.stream_slots import StreamSlot, TooManyStreams
from service.store.errors import StoreError

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
    if wait > 0:
        slot = _slot(wait + 5)
        try:
            page = _long_poll(gid, args["since"], args["limit"], wait, slot)
        finally:
            slot.release()
    else:
        page = games().events(gid, args["since"], args["limit"])
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
    slot = _slot(2 * services().settings.sse_keepalive_seconds + 5)
    stream = stream_with_context(_frames(gid, who, since, slot))
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(stream, mimetype="text/event-stream", headers=headers)
    response.call_on_close(slot.release)  # also when the stream never started
    return response


def _slot(lease_seconds: float) -> StreamSlot:
    try:
        return services().streams.take(client_address(), lease_seconds)
    except TooManyStreams as error:
        headers = {"Retry-After": str(int(services().settings.sse_keepalive_seconds) or 1)}
        raise ApiProblem(429, "too_many_streams", str(error), headers=headers) from None


def _long_poll(gid: str, since: int, limit: int, wait: float, slot: StreamSlot) -> EventPage:
    """Wait in slices of at most a keep-alive, so a client that left stops waiting
    within one; an idle slice is one blocking read and nothing else."""
    deadline = time.monotonic() + wait
    page = games().events(gid, since, limit)
    while not page.envelopes and not page.finished:
        left = deadline - time.monotonic()
        if left <= 0 or _client_gone():
            g.waited = True  # it waited for nothing: free for the rate limit
            return page
        if _nothing_new(gid, since, _slice(left)):
            slot.renew(services().streams.now_ms())
        else:
            page = games().events(gid, since, limit)
    return page


def _slice(left: float) -> float:
    """One wait between looks at the client: at most a keep-alive, and spread at random
    over its second half, so that streams opened together do not all wake together."""
    keepalive = services().settings.sse_keepalive_seconds
    return max(0.001, min(left, keepalive * random.uniform(0.5, 1.0)))


def _nothing_new(gid: str, since: int, seconds: float) -> bool:
    """Wait up to ``seconds`` for an event after ``since``; True if none came."""
    return not games().log.wait(gid, since, seconds, count=1)


def _client_gone() -> bool:
    """Whether the client closed its end (its socket reads as at end of file).

    Only the HTTP server's socket can tell (gunicorn puts it in the environ);
    without one (a test client), the client is taken to be there.
    """
    sock = request.environ.get("gunicorn.socket")
    if sock is None:
        return False
    try:
        poller = select.poll()  # not select.select: it refuses descriptors past 1023
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0)) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _resume_point(since: int | None) -> int:
    """``Last-Event-ID`` (set by a reconnecting EventSource) wins over ``since``."""
    last = request.headers.get("Last-Event-ID")
    if last is None:
        return since or 0
    if not is_version(last.strip()):
        raise ApiProblem(400, "invalid_last_event_id", "Last-Event-ID must be an event version")
    return int(last.strip())


def _frames(gid: str, who: str | None, since: int, slot: StreamSlot) -> Iterator[str]:
    try:
        yield from _frames_held(gid, who, since, slot)
    finally:
        slot.release()


def _frames_held(gid: str, who: str | None, since: int, slot: StreamSlot) -> Iterator[str]:
    deadline = time.monotonic() + services().settings.sse_max_seconds
    yield "retry: 2000\n\n"
    try:
        while deadline > time.monotonic():
            page = games().events(gid, since, PAGE)
            for envelope in page.envelopes:
                data = json.dumps(event_json(envelope, who, page.finished), separators=(",", ":"))
                yield f"id: {envelope.version}\nevent: game_event\ndata: {data}\n\n"
                since = envelope.version
            if page.envelopes and page.head:  # the anchor: the hash at the game's version
                anchor = f'{{"version":{page.version},"hash":"{page.head.hex()}"}}'
                yield f"event: head\ndata: {anchor}\n\n"
            if page.finished and page.version <= since:
                yield "event: end\ndata: {}\n\n"
                return
            while not page.envelopes and _nothing_new(
                gid, since, _slice(deadline - time.monotonic())
            ):
                if _client_gone() or deadline <= time.monotonic():
                    return
                slot.renew(services().streams.now_ms())
                yield ": keep-alive\n\n"
    except StoreError as error:
        log.warning("event stream of %s ended: %s", gid, error)
        yield 'event: error\ndata: {"code": "store_unavailable"}\n\n'
