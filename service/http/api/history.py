"""Game history and export from the archive (issue 48).

``GET /v1/games`` lists from the archive when asked (``source=archive``) or
when any history filter is given (``lobby.list_games`` hands over here);
``GET /v1/games/export`` streams the selected finished games' records as
NDJSON, one game a line: ``{"game_id": ..., "record": [<the record's lines>]}``.

The archive keeps each record in that line's form, compressed
(``service.application.archived``), so a client that accepts gzip gets the
stored members as they are between a small member before and after each
(``Content-Encoding: gzip``; concatenated members are one gzip stream):
nothing is compressed per record, which is what makes an export fast. Any
other client gets the lines decompressed. An export costs the address one
from its budget of costly requests (``RISK_COSTLY_IP``), like a large record.
``player=acct:<name>`` selects the games of an account's seats (issue 49); a
plain ``player`` any seat shown so.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, request, stream_with_context

from service.application.accounts import AccountNotFound
from service.application.archived import info_from_json
from service.http.api.common import client_address, iso_time, query, reply, services, summary
from service.http.problems import ApiProblem
from service.http.ratelimit import Check
from service.http.schemas import HISTORY_FILTERS, ExportQuery
from service.store.archive import Filters, GameRow

bp = Blueprint("history", __name__)
_EXPORT = ExportQuery()
NDJSON = "application/x-ndjson"
ACCOUNT_PLAYER = "acct:"  # player=acct:<name>: the account's games (issue 49)
CHUNK = 256 * 1024  # bytes gathered before each write of a streamed export
_CLOSE = b"]}\n"
_CLOSE_MEMBER = gzip.compress(_CLOSE, mtime=0)


def wants_archive(args: dict[str, Any]) -> bool:
    """Whether a listing's query asks for the archive (``source`` or a history filter)."""
    source = args.get("source")
    return source == "archive" or (source is None and any(f in args for f in HISTORY_FILTERS))


def archive_page(args: dict[str, Any]) -> Response:
    """One page of the archive's games, newest first (``GET /v1/games``)."""
    rows, cursor = services().archive.page(_filters(args), args["limit"], args.get("cursor"))
    return reply({"games": [listed(row) for row in rows], "next_cursor": cursor})


def listed(row: GameRow) -> dict[str, Any]:
    """A listed archived game: the lobby's summary, with its winner and end."""
    info = info_from_json(row.game_id, row.info, row.version).with_status(row.status, row.version)
    finished = iso_time(row.finished_ms) if row.finished_ms is not None else None
    return summary(info) | {"winner": row.winner, "finished": finished}


@bp.route("/v1/games/export", methods=["GET", "OPTIONS"], provide_automatic_options=False)
def export_games() -> Response:
    """The selected finished games' records, one game a line (see the module docstring)."""
    if request.method == "OPTIONS":
        # Flask's own answer would list DELETE too: /v1/games/<game> also matches the path.
        return Response(status=200, headers={"Allow": "GET, HEAD, OPTIONS"})
    args = query(_EXPORT)
    _charge()
    records = services().archive.records(_filters(args), args.get("max"))
    first = next(records, None)  # the database's failure is a 503 before anything is sent
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    lines = _members(first, records) if gzipped else _plain(first, records)
    response = Response(stream_with_context(_chunked(lines)), mimetype=NDJSON)
    response.headers["Vary"] = "Accept-Encoding"
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    return response


def _filters(args: dict[str, Any]) -> Filters:
    player, account = _player(args.get("player"))
    return Filters(
        player=player,
        account=account,
        mode=args.get("mode"),
        board=args.get("board"),
        status=args.get("status"),
        result=args.get("result"),
        since=args.get("since"),
        until=args.get("until"),
    )


def _player(player: str | None) -> tuple[str | None, str | None]:
    """(seat name, account id) of the ``player`` filter (issue 49). ``acct:<name>`` is
    strictly the account of that name (404 ``player_not_found`` without one); a plain
    name is an account's when an account has that name (the seats bound to it, whatever
    each is called, and no stranger's seat that took the name), else any seat shown so
    (anonymous play: anyone may call a seat "Ada")."""
    if player is None:
        return None, None
    strict = player.startswith(ACCOUNT_PLAYER)
    name = player.removeprefix(ACCOUNT_PLAYER)
    try:
        return None, services().accounts.named(name).id
    except AccountNotFound:
        if strict:
            raise ApiProblem(404, "player_not_found", f"no player named {name[:40]!r}") from None
        return player, None


def _charge() -> None:
    risk = services()
    over = risk.limiter.hit([Check("costly", client_address(), risk.settings.costly_ip)])
    if over is not None:
        retry_after = str(over[1])
        detail = (
            f"too many exports and large records from this address; retry after {retry_after} s"
        )
        raise ApiProblem(429, "costly_rate_limited", detail, headers={"Retry-After": retry_after})


def _opening(game_id: str) -> bytes:
    return b'{"game_id":' + json.dumps(game_id).encode() + b',"record":['


def _members(first: tuple[str, bytes] | None, rest: Iterator[tuple[str, bytes]]) -> Iterator[bytes]:
    """Each line as three gzip members: its opening, the stored record, its close."""
    if first is None:
        yield gzip.compress(b"", mtime=0)  # an empty export is still a gzip stream
        return
    for game_id, record in _chain(first, rest):
        yield gzip.compress(_opening(game_id), compresslevel=1, mtime=0)
        yield record
        yield _CLOSE_MEMBER


def _plain(first: tuple[str, bytes] | None, rest: Iterator[tuple[str, bytes]]) -> Iterator[bytes]:
    if first is None:
        return
    for game_id, record in _chain(first, rest):
        yield _opening(game_id)
        yield zlib.decompress(record, wbits=31)
        yield _CLOSE


def _chain(
    first: tuple[str, bytes], rest: Iterator[tuple[str, bytes]]
) -> Iterator[tuple[str, bytes]]:
    yield first
    yield from rest


def _chunked(parts: Iterator[bytes]) -> Iterator[bytes]:
    """Fewer, larger writes: a record's three parts would be three small sends."""
    gathered: list[bytes] = []
    size = 0
    for part in parts:
        gathered.append(part)
        size += len(part)
        if size >= CHUNK:
            yield b"".join(gathered)
            gathered, size = [], 0
    if gathered:
        yield b"".join(gathered)
