"""Playing: legal actions, commands, and the view at a past version."""

from __future__ import annotations

from flask import Blueprint, Response

from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.views.view import view
from service.http.api.common import (
    event_json,
    game_document,
    game_id,
    games,
    idempotency_key,
    if_match,
    invalid,
    json_body,
    query,
    reply,
    seat,
    viewer,
)
from service.http.schemas import StateQuery, ValidationError, load_command

bp = Blueprint("play", __name__, url_prefix="/v1/games/<game>")
_STATE = StateQuery()


@bp.get("/legal-actions")
def list_legal_actions(game: str) -> Response:
    gid = game_id(game)
    who = seat(gid)
    loaded = games().load(gid)
    actions = list(legal_actions(loaded.state, who))
    document = {"game_id": gid, "version": loaded.version, "seat": who, "actions": actions}
    return reply(document, version=loaded.version)


@bp.post("/commands")
def send_command(game: str) -> Response:
    """One command for the caller's seat; If-Match and Idempotency-Key make it safe."""
    gid = game_id(game)
    who = seat(gid)
    try:
        command = load_command(json_body(None))
    except ValidationError as error:
        raise invalid(error, "malformed_command") from None
    result = games().execute(
        gid, who, command, expected_version=if_match(), idempotency_key=idempotency_key()
    )
    document = {
        "game_id": gid,
        "version": result.version,
        "head": result.head.hex() if result.head else None,
        "events": [event_json(e, who, result.finished) for e in result.envelopes],
    }
    headers = {"Idempotent-Replayed": "true"} if result.replayed else None
    return reply(document, version=result.version, headers=headers)


@bp.get("/state")
def get_state_at(game: str) -> Response:
    """The caller's view as it was after ``version`` events."""
    gid = game_id(game)
    who = viewer(gid)
    version = query(_STATE)["version"]
    state = games().state_at(gid, version)
    document = view(state, who)
    document["status"] = "finished" if state.phase == FINISHED else "running"
    game_document(document, games().seat_info(gid))
    return reply(document, version=version)
