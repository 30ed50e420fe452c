"""Analysis and forks of finished games (issue 37).

``POST /v1/games/{id}/analysis`` asks a worker for the game's analysis at a
depth (202 while it is queued or running, 200 once done; asking again makes
no second job) and ``GET`` reads it: its progress while it runs, then its
report (``service.application.analysis``); ``GET /v1/games/{id}/analyses``
lists the depths it has one at. ``POST /v1/games/{id}/fork`` creates a game
that continues the finished one after a chosen version (``service.application.forks``).
Both refuse a running game (409 ``game_running``): an analysis during play
would be an engine at a player's elbow, and a fork would give its hidden
cards away.

Issue 54: an analysis goes to the analyses queue, which only costly workers
take; one whose worker died reads as failed once its lease runs out, and
asking again starts it again (a new attempt, a new job id). The analyses an
address has queued or running are bounded by their summed depth
(``RISK_ANALYSES_PENDING``): past it, 429 ``analyses_pending`` with Retry-After.
"""

from __future__ import annotations

from flask import Blueprint, Response
from marshmallow import Schema, fields, validate

from riskcore.analysis import DEFAULT_DEPTH, MAX_DEPTH
from riskcore.model.state import FINISHED
from service.application.analysis import Analyses, cost_of, pending_weight
from service.application.forks import ForkRefused, fork
from service.application.game_types import SeatPlan
from service.application.quotas import Creator, GameQuotaExceeded
from service.http.api.common import body, client_address, game_id, games, query, reply, services
from service.http.api.idempotent import once
from service.http.api.lobby import game_creators, summary
from service.http.problems import ApiProblem
from service.http.ratelimit import Check
from service.http.schemas import SeatRequest, WholeNumber
from service.store.queues import analysis_job_id

bp = Blueprint("analysis", __name__, url_prefix="/v1/games")


class AnalysisRequest(Schema):
    depth = WholeNumber(validate=validate.Range(1, MAX_DEPTH), load_default=DEFAULT_DEPTH)


class AnalysisQuery(Schema):
    depth = fields.Integer(validate=validate.Range(1, MAX_DEPTH), load_default=DEFAULT_DEPTH)


class ForkRequest(Schema):
    version = WholeNumber(required=True, validate=validate.Range(min=1))
    seats = fields.List(
        fields.Nested(SeatRequest), required=True, validate=validate.Length(min=2, max=6)
    )


_ANALYSIS, _QUERY, _FORK = AnalysisRequest(), AnalysisQuery(), ForkRequest()


@bp.post("/<game>/analysis")
def start_analysis(game: str) -> Response:
    gid = game_id(game)
    depth = body(_ANALYSIS)["depth"]
    head = _finished_head(gid, "analysed")
    kept = _analyses()
    found = kept.read(gid, depth, head)
    if found is None or found["status"] == "failed":
        _bound(depth)
        _charge(depth)
        job = analysis_job_id(gid, depth, head)  # a new attempt: a new job
        kept.queued(gid, depth, head, job)
        pending = games().pending_analyses
        pending.add(client_address(), gid, depth, head, pending_weight(depth))
        services().jobs.analyse(gid, depth, head, job)
        found = kept.read(gid, depth, head)
    assert found is not None
    return reply(found, 200 if found["status"] == "done" else 202)


@bp.get("/<game>/analysis")
def get_analysis(game: str) -> Response:
    gid = game_id(game)
    depth = query(_QUERY)["depth"]
    head = _finished_head(gid, "analysed")
    found = _analyses().read(gid, depth, head)
    if found is None:
        detail = f"no analysis of game {gid!r} at depth {depth}: POST to start one"
        raise ApiProblem(404, "analysis_not_found", detail)
    return reply(found)


@bp.get("/<game>/analyses")
def list_analyses(game: str) -> Response:
    """The depths this finished game has an analysis at (queued, running, done or failed),
    without their reports: a page reads one only where it is (issue 51: the replay page
    asked for depth 8 on every load and logged the 404)."""
    gid = game_id(game)
    head = _finished_head(gid, "analysed")
    found = _analyses().listed(gid, range(1, MAX_DEPTH + 1), head)
    return reply({"game_id": gid, "head": head, "analyses": found})


@bp.post("/<game>/fork")
def fork_game(game: str) -> Response:
    """Once per ``Idempotency-Key`` (``service.http.api.idempotent``)."""
    gid = game_id(game)
    creators = game_creators()
    return once(lambda: _fork(gid, creators))


def _fork(gid: str, creators: list[Creator]) -> Response:
    data = body(_FORK)
    quotas = services().quotas
    try:
        ticket = quotas.reserve(creators)
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    try:
        plans = [SeatPlan(**s) for s in data["seats"]]
        created, head, version = fork(games(), gid, data["version"], plans)
    except ForkRefused as error:
        quotas.cancel(ticket)
        raise _refused(error) from None
    except BaseException:
        quotas.cancel(ticket)
        raise
    info = created.info
    quotas.confirm(ticket, info.game_id, info.created_ms)
    parent = {"game_id": gid, "version": version, "head": head}
    document = {"game": summary(info), "tokens": created.tokens, "parent": parent}
    location = {"Location": f"/v1/games/{info.game_id}"}
    return reply(document, 201, version=info.version, headers=location)


def _refused(error: ForkRefused) -> ApiProblem:
    message = str(error)
    if error.code == "game_running":
        return ApiProblem(409, "game_running", message)
    if error.code == "version_out_of_range":
        return ApiProblem(400, "version_out_of_range", message)
    if error.code == "seats_mismatch":
        return ApiProblem(400, "seats_mismatch", message)
    if error.code == "fork_at_end":
        return ApiProblem(400, "fork_at_end", message)
    return ApiProblem(400, "fork_not_supported", message)


def _finished_head(gid: str, what: str) -> str:
    loaded = games().load(gid)
    if loaded.state.phase != FINISHED:
        detail = f"game {gid!r} is running: only a finished game is {what}"
        raise ApiProblem(409, "game_running", detail)
    return loaded.hash.hex()


def _analyses() -> Analyses:
    return games().analyses


def _charge(depth: int) -> None:
    """A new analysis costs ``cost_of(depth)`` from the address's costly budget."""
    risk = services()
    budget = Check("costly", client_address(), risk.settings.costly_ip)
    over = risk.limiter.hit([budget], cost_of(depth))
    if over is not None:
        retry_after = str(over[1])
        detail = f"too many analyses or other costly requests; retry after {retry_after} s"
        raise ApiProblem(429, "costly_rate_limited", detail, headers={"Retry-After": retry_after})


def _bound(depth: int) -> None:
    """429 ``analyses_pending`` when the address's queued and running analyses would
    weigh more than ``RISK_ANALYSES_PENDING`` with this one (issue 54)."""
    bound = services().settings.analyses_pending
    if not bound:
        return
    weight = games().pending_analyses.weight(client_address())
    if weight and weight + pending_weight(depth) > bound:
        detail = (
            f"this address's analyses still queued or running weigh {weight} (their depths);"
            f" at most {bound} at once: retry once one is done"
        )
        raise ApiProblem(429, "analyses_pending", detail, headers={"Retry-After": "30"})
