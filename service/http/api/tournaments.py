"""Tournaments: create, list, read, and follow the standings as Server-Sent Events.

A view here is a few lines over ``service.application.tournaments``: the engine's
``TournamentError`` (bad entrants or format) is a 400 with its own code, and
an unknown tournament a 404, before anything is stored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, request, stream_with_context

from service.application.game_types import Lru
from service.application.quotas import GameQuotaExceeded
from service.application.tournaments import TournamentError, TournamentNotFound, Tournaments
from service.http.api.common import body, client_address, query, reply, services, token
from service.http.api.guard import principal
from service.http.api.lobby import game_creators, reserve_storage
from service.http.problems import ApiProblem
from service.http.schemas import CreateTournament, ListTournamentsQuery
from service.http.stream_slots import TooManyStreams
from service.store.errors import InvalidName
from service.store.keys import check_tournament_id

bp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments")
_CREATE, _LIST = CreateTournament(), ListTournamentsQuery()


def tournaments() -> Tournaments:
    return services().tournaments


@bp.post("")
def create_tournament() -> Response:
    """A new tournament; the response holds each HTTP entrant's token, shown only here."""
    creators = game_creators()  # 401/403 first when creation needs a token
    caller = principal()  # an account's token: its tournament's games are its games
    data = body(_CREATE)
    quotas = services().quotas
    try:  # its games at once count against its creator's quota (service.application.quotas)
        ticket = quotas.reserve(creators, places=data["parallel"])
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    stored = None
    try:  # and every game of its schedule against its creator's storage budget
        stored = reserve_storage(creators, tournaments().games_in(data))
        created = tournaments().create(data, None if caller is None else caller.account_id)
    except BaseException as error:
        quotas.cancel(ticket)
        if stored is not None:
            services().storage.cancel(stored)
        if isinstance(error, TournamentError):
            raise ApiProblem(400, error.code, str(error)) from None
        raise
    document = created.document
    quotas.confirm_tournament(ticket, document["tournament_id"], int(time.time() * 1000))
    document = document | {"viewer": None}
    location = {"Location": f"/v1/tournaments/{document['tournament_id']}"}
    return reply({"tournament": document, "tokens": created.tokens}, 201, headers=location)


@bp.get("")
def list_tournaments() -> Response:
    """The newest tournaments' documents, each built once per change per process (``_at``):
    a listing asked again and again costs two small reads a tournament, not its document
    (960 games' worth of them, issue 36)."""
    limit = query(_LIST)["limit"]
    found = []
    for tid in tournaments().list_ids(limit):
        try:
            found.append(_at(tid, tournaments().feed_head(tid)))
        except ApiProblem as problem:
            if problem.code != "tournament_not_found":
                raise
            tournaments().forget(tid)  # expired after the retention
    return reply({"tournaments": found})


@bp.get("/<tournament>")
def get_tournament(tournament: str) -> Response:
    """Entrants, games and standings; with an HTTP entrant's token, ``viewer`` is it."""
    tid = _tournament_id(tournament)
    document = _document(tid)
    presented = token()
    document["viewer"] = None if presented is None else _entrant(tid, presented)
    return reply(document)


@bp.get("/<tournament>/stream")
def stream_tournament(tournament: str) -> Response:
    """The document again each time the standings change; ``end`` once it is over."""
    tid = _tournament_id(tournament)
    _document(tid)  # 404 now, before the stream starts
    try:
        lease = 2 * services().settings.sse_keepalive_seconds + 5
        slot = services().streams.take(client_address(), lease)
    except TooManyStreams as error:
        raise ApiProblem(429, "too_many_streams", str(error)) from None
    last = request.headers.get("Last-Event-ID") or "0"
    frames = stream_with_context(_frames(tid, last if _is_entry_id(last) else "0"))
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(frames, mimetype="text/event-stream", headers=headers)
    response.call_on_close(slot.release)
    return response


def _frames(tid: str, last: str) -> Iterator[str]:
    """The document now (unless a resuming client has seen it), then what changed
    after each change; keep-alive comments between; ``end`` once the tournament is over.

    A change sends a ``progress`` frame: the games whose state changed, the counts,
    status and standings (a few KB), not the whole document again (210 KB for 960
    games, to every stream: 30 streams from one address took 79 MB in 15 s, issue 36).
    Documents are read once per change per process (``_at``), whatever the streams.
    """
    settings = services().settings
    deadline = time.monotonic() + settings.sse_max_seconds
    keepalive_ms = max(1, int(settings.sse_keepalive_seconds * 1000))
    yield "retry: 2000\n\n"
    head = tournaments().feed_head(tid)
    sent = _at(tid, head)
    resumed = last != "0" and last == head
    if not resumed:
        yield _frame("tournament", head, sent)
    last = head
    while time.monotonic() < deadline:
        if tournaments().status(tid) == "finished":
            head = tournaments().feed_head(tid)
            now = _at(tid, head)
            # The final standings, if this stream has not sent them. A resumed client
            # has the last entry's frame, which may have gone out before the status
            # was set (the status follows the entry): it is told once more.
            if now != sent or resumed:
                yield _frame("progress", head, _progress(sent, now))
            yield "event: end\ndata: {}\n\n"
            return
        newest = tournaments().feed_after(tid, last, keepalive_ms)
        if newest is None:
            yield ": keep-alive\n\n"
            continue
        now = _at(tid, newest)
        yield _frame("progress", newest, _progress(sent, now))
        sent, last = now, newest


def _progress(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """What a stream that sent ``before`` needs to hold ``now``."""
    old = {game["index"]: game for game in before["games"]}
    return {
        "status": now["status"],
        "games_total": now["games_total"],
        "games_finished": now["games_finished"],
        "games": [game for game in now["games"] if old.get(game["index"]) != game],
        "standings": now["standings"],
        "seed": now["seed"],
    }


_DOCUMENTS: Lru[dict[str, Any]] = Lru(128)  # a whole listing (limit 100) and the streams'


def _at(tid: str, head: str) -> dict[str, Any]:
    """The document as of feed entry ``head`` (or later), read once per process (and
    once more when the tournament finishes: its status is set after its last entry)."""
    key = f"{tid} {head} {tournaments().status(tid)}"
    found = _DOCUMENTS.get(key)
    if found is None:
        found = _document(tid) | {"viewer": None}
        _DOCUMENTS.put(key, found)
    return found


def _frame(event: str, entry: str, data: dict[str, Any]) -> str:
    text = json.dumps(data, separators=(",", ":"))
    ident = f"id: {entry}\n" if entry != "0" else ""
    return f"{ident}event: {event}\ndata: {text}\n\n"


def _document(tid: str) -> dict[str, Any]:
    try:
        return tournaments().document(tid)
    except TournamentNotFound as error:
        raise ApiProblem(404, "tournament_not_found", str(error)) from None


def _entrant(tid: str, presented: str) -> str:
    found = tournaments().entrant_for_token(tid, presented)
    if found is None:
        raise ApiProblem(401, "invalid_token", "the token is no entrant's of this tournament")
    return found


def _tournament_id(value: str) -> str:
    try:
        return check_tournament_id(value)
    except InvalidName:
        raise ApiProblem(404, "tournament_not_found", f"no tournament {value[:80]!r}") from None


def _is_entry_id(value: str) -> bool:
    first, _, second = value.partition("-")
    return value.isascii() and first.isdigit() and second.isdigit() and len(value) < 40
