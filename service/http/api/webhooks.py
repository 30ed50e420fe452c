"""Webhooks (issue 50): an account's endpoints, their secrets and deliveries.

Every endpoint here needs an account token with the scope ``webhook:manage``
(``service.http.api.guard``). A secret is shown once: when the endpoint is
registered, and when it is rotated (the previous one then signs too for 24 h).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response

from service.application.webhook_urls import UnsafeWebhookUrl
from service.application.webhooks import (
    EndpointChanges,
    TooManyEndpoints,
    WebhookNotFound,
    Webhooks,
)
from service.http.api.common import body, iso_time, query, reply, services
from service.http.api.guard import require_principal
from service.http.problems import ApiProblem
from service.http.webhook_schemas import CreateWebhook, DeliveriesQuery, UpdateWebhook
from service.store.webhooks import DeliveryRow, EndpointRow

bp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks")
_CREATE, _UPDATE, _DELIVERIES = CreateWebhook(), UpdateWebhook(), DeliveriesQuery()


def webhooks() -> Webhooks:
    return services().webhooks


@bp.post("")
def create_webhook() -> Response:
    """Register an endpoint; its secret is in this answer only."""
    caller = require_principal()
    data = body(_CREATE)
    try:
        row, secret = webhooks().register(
            caller.account_id, data["url"], data["events"], data["description"]
        )
    except UnsafeWebhookUrl as error:
        raise ApiProblem(422, "unsafe_webhook_url", str(error)) from None
    except TooManyEndpoints as error:
        raise ApiProblem(409, "too_many_webhooks", str(error)) from None
    document = endpoint_json(row) | {"secret": secret}
    return reply(document, 201, headers={"Location": f"/v1/webhooks/{row.id}"})


@bp.get("")
def list_webhooks() -> Response:
    rows = webhooks().endpoints(require_principal().account_id)
    return reply({"webhooks": [endpoint_json(r) for r in rows]})


@bp.patch("/<webhook_id>")
def update_webhook(webhook_id: str) -> Response:
    """Change an endpoint's URL, events or description, or disable or enable it
    (``{"enabled": true}`` brings back one disabled after a 410 or days of failures)."""
    caller = require_principal()
    data = body(_UPDATE)
    changes = EndpointChanges(
        url=data.get("url"),
        events=data.get("events"),
        description=data.get("description"),
        clear_description="description" in data and data["description"] is None,
        enabled=data.get("enabled"),
    )
    with _found(webhook_id):
        try:
            row = webhooks().update(caller.account_id, webhook_id[:40], changes)
        except UnsafeWebhookUrl as error:
            raise ApiProblem(422, "unsafe_webhook_url", str(error)) from None
    return reply(endpoint_json(row))


@bp.delete("/<webhook_id>")
def delete_webhook(webhook_id: str) -> Response:
    with _found(webhook_id):
        webhooks().delete(require_principal().account_id, webhook_id[:40])
    return Response(status=204)


@bp.post("/<webhook_id>/rotate")
def rotate_secret(webhook_id: str) -> Response:
    """A new secret; the previous one keeps signing (a second signature) for 24 h."""
    with _found(webhook_id):
        row, secret, expires_ms = webhooks().rotate(require_principal().account_id, webhook_id[:40])
    document = endpoint_json(row) | {"secret": secret, "previous_expires": iso_time(expires_ms)}
    return reply(document)


@bp.get("/<webhook_id>/deliveries")
def list_deliveries(webhook_id: str) -> Response:
    """The endpoint's latest deliveries, newest first, with their last attempt."""
    limit = query(_DELIVERIES)["limit"]
    with _found(webhook_id):
        rows = webhooks().deliveries(require_principal().account_id, webhook_id[:40], limit)
    return reply({"deliveries": [delivery_json(r) for r in rows]})


@bp.post("/<webhook_id>/deliveries/<delivery_id>/redeliver")
def redeliver(webhook_id: str, delivery_id: str) -> Response:
    """Send a delivery again, with the same ``webhook-id``, within about a second."""
    caller = require_principal()
    with _found(f"{webhook_id}/{delivery_id}"):
        row = webhooks().redeliver(caller.account_id, webhook_id[:40], delivery_id[:80])
    return reply(delivery_json(row), 202)


@contextmanager
def _found(webhook: str) -> Iterator[None]:
    """Turns ``WebhookNotFound`` into a 404 ``webhook_not_found``."""
    try:
        yield
    except WebhookNotFound:
        detail = f"no webhook (or delivery) of this account has the id {webhook[:80]!r}"
        raise ApiProblem(404, "webhook_not_found", detail) from None


def endpoint_json(row: EndpointRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "url": row.url,
        "events": list(row.events),
        "description": row.description,
        "created": iso_time(row.created_ms),
        "failing_since": iso_time(row.failing_since_ms) if row.failing_since_ms else None,
        "disabled": iso_time(row.disabled_ms) if row.disabled_ms else None,
        "enabled": row.disabled_ms is None,
        "disabled_reason": row.disabled_reason,
    }


def delivery_json(row: DeliveryRow) -> dict[str, Any]:
    last = row.last_attempt_ms
    return {
        "id": row.id,
        "type": row.event_type,
        "status": row.status,
        "attempts": row.attempts,
        "created": iso_time(row.created_ms),
        "last_attempt": iso_time(last) if last else None,
        "response_code": row.last_status_code,
        "error": row.last_error,
        "response": row.last_response,
        "next_attempt": iso_time(row.next_attempt_ms) if row.next_attempt_ms else None,
    }
