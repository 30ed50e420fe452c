"""Operations: health, readiness, metrics, the spec and its human-readable docs."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml  # type: ignore[import-untyped]
from flask import Blueprint, Response

from service.application.storage import render_metrics
from service.http.api.common import reply, services
from service.http.api.docs import render
from service.http.metrics import CONTENT_TYPE_LATEST
from service.http.problems import ApiProblem
from service.store import archive_health, queue_metrics
from service.store.errors import StoreUnavailable

bp = Blueprint("ops", __name__)


@cache
def spec_text() -> str:
    """``openapi.yaml`` as shipped in the package (``service/http/static``)."""
    return resources.files("service.http").joinpath("static/openapi.yaml").read_text("utf-8")


@cache
def docs_html() -> str:
    return render(yaml.safe_load(spec_text()))


@bp.get("/healthz")
def healthz() -> Response:
    """The process answers; says nothing about Redis (that is readiness)."""
    return reply({"status": "ok"})


@bp.get("/readyz")
def readyz() -> Response:
    """Ready when Redis answers. The workers' health is shown, not required: the API
    serves without them, and a relay down must not take every API process out of service
    (alert on ``risk_relays_alive`` and ``risk_clocks_overdue`` instead)."""
    risk = services()
    if not risk.games.lobby.ping():
        unavailable = {"Retry-After": "1"}
        raise ApiProblem(503, "redis_unavailable", "Redis does not answer", headers=unavailable)
    archive = _archive_json()
    try:
        workers = queue_metrics.worker_health(risk.queue_redis, risk.redis, risk.games.keys)
    except StoreUnavailable:  # RQ's Redis, when it is another one, may be down on its own
        return reply({"status": "ready", "workers": None, "archive": archive})
    return reply({"status": "ready", "workers": workers.as_json(), "archive": archive})


def _archive_json() -> dict[str, Any] | None:
    """The archive's health (issue 48), shown, never required: live games are in Redis."""
    risk = services()
    try:
        return archive_health.archive_health(risk.redis, risk.games.keys, risk.archive).as_json()
    except StoreUnavailable:
        return None


@bp.get("/metrics")
def metrics() -> Response:
    risk = services()
    workers = queue_metrics.render(risk.queue_redis, risk.redis, risk.games.keys)
    try:
        stored = render_metrics(risk.redis, risk.games.keys)
        stored += archive_health.render(risk.redis, risk.games.keys, risk.archive)
    except StoreUnavailable:
        stored = b""  # the rest still answers while Redis is away
    text = risk.metrics.render() + workers + stored
    return Response(text, content_type=CONTENT_TYPE_LATEST)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    return Response(spec_text(), mimetype="application/yaml")


@bp.get("/docs")
def docs() -> Response:
    return Response(docs_html(), mimetype="text/html")
