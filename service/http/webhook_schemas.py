"""Request bodies and queries of the webhooks' endpoints (issue 50)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.application.webhook_events import EVENT_TYPES
from service.http.schemas import StrictBool

__all__ = ["CreateWebhook", "DeliveriesQuery", "UpdateWebhook"]


class CreateWebhook(Schema):
    url = fields.String(required=True, validate=validate.Length(min=8, max=2048))
    events = fields.List(
        fields.String(validate=validate.OneOf(EVENT_TYPES)),
        required=True,
        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
    )
    description = fields.String(load_default=None, validate=validate.Length(max=255))


class UpdateWebhook(Schema):
    """``PATCH /v1/webhooks/{id}``: any of these; what is left out stays as it is."""

    url = fields.String(validate=validate.Length(min=8, max=2048))
    events = fields.List(
        fields.String(validate=validate.OneOf(EVENT_TYPES)),
        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
    )
    description = fields.String(allow_none=True, validate=validate.Length(max=255))
    enabled = StrictBool()

    @validates_schema
    def _something(self, data: dict[str, Any], **_: Any) -> None:
        if not data:
            raise ValidationError("give at least one of url, events, description, enabled")


class DeliveriesQuery(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
