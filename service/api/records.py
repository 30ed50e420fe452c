"""Game records: download one, have one verified, or read a game's statistics (issue 7).

A record is JSON Lines (``riskcore.audit.gamerecord``). While the game runs it is
redacted for the caller; once it is over it is complete and the same for
everyone. Verifying runs the same checks as ``risk verify`` offline, for
clients that cannot run Python: the server checks the record given, not
its own copy, so the verdict is only as trustworthy as running it yourself.
``expect_head`` names a head hash the client saw in command
responses and event feeds: the record must contain it (docs/records.md).
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from riskcore.audit.summary import summarize
from riskcore.audit.verify import verify_text
from service.api.common import game_id, games, query, reply, services, viewer
from service.problems import ApiProblem
from service.records import record_text
from service.schemas import VerifyQuery

bp = Blueprint("records", __name__)
RECORD_TYPE = "application/x-ndjson"
_VERIFY = VerifyQuery()
RECORDS_VERIFY = "/v1/records/verify"  # takes bodies up to max_record_bytes (service.bodies)


@bp.get("/v1/games/<game>/record")
def download_record(game: str) -> Response:
    gid = game_id(game)
    text = record_text(games(), gid, viewer(gid))
    disposition = f'attachment; filename="{gid}.jsonl"'
    return Response(text, mimetype=RECORD_TYPE, headers={"Content-Disposition": disposition})


@bp.get("/v1/games/<game>/summary")
def game_summary(game: str) -> Response:
    """Statistics from public facts only (territories, armies, battles), so open to all."""
    gid = game_id(game)
    loaded = games().load(gid)
    events = games().log.events(gid, 1, loaded.version)
    return reply(summarize(events), version=loaded.version)


@bp.post(RECORDS_VERIFY)
def verify_record() -> Response:
    request.max_content_length = services().settings.max_record_bytes
    if request.mimetype not in (RECORD_TYPE, "application/jsonl", "text/plain"):
        raise ApiProblem(
            415, "unsupported_media_type", f"send the record as {RECORD_TYPE} (JSON Lines)"
        )
    head = query(_VERIFY).get("expect_head")
    text = request.get_data(cache=False).decode("utf-8", errors="replace")
    return reply(verify_text(text, expect_heads=[head] if head else []).to_dict())
