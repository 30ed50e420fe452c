"""Request bodies and queries of the webhooks' endpoints (issue 50)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.application.webhook_events import EVENT_TYPES

__all__ = ["CreateWebhook", "DeliveriesQuery"]


class CreateWebhook(Schema):
    url = fields.String(required=True, validate=validate.Length(min=8, max=2048))
    events = fields.List(
        fields.String(validate=validate.OneOf(EVENT_TYPES)),
        required=True,
        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
    )
    description = fields.String(load_default=None, validate=validate.Length(max=255))


class DeliveriesQuery(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
