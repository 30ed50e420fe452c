"""The webhooks' tables as SQLAlchemy Core objects (issue 50).

``migrations/versions/0003_webhooks.py`` creates them; they share the
archive's ``metadata`` like the accounts' tables, so the schema test compares
every table at once.
"""

from __future__ import annotations

import sqlalchemy as sa

from service.store.archive_tables import metadata

__all__ = ["deliveries", "endpoints", "metadata"]

endpoints = sa.Table(
    "webhook_endpoints",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column(
        "account_id",
        sa.String(64),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("url", sa.String(2048), nullable=False),
    sa.Column("events", sa.String(255), nullable=False),  # space-separated event types
    sa.Column("description", sa.String(255), nullable=True),
    sa.Column("secret", sa.String(128), nullable=False),  # whsec_...: needed to sign
    sa.Column("previous_secret", sa.String(128), nullable=True),  # signs too until it expires
    sa.Column("previous_expires_ms", sa.BigInteger(), nullable=True),
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("failing_since_ms", sa.BigInteger(), nullable=True),
    sa.Column("disabled_ms", sa.BigInteger(), nullable=True),
    sa.Column("disabled_reason", sa.String(255), nullable=True),
    sa.Index("ix_webhook_endpoints_account", "account_id", "created_ms"),
)

deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),  # the webhook-id, the same every attempt
    sa.Column(
        "endpoint_id",
        sa.String(32),
        sa.ForeignKey("webhook_endpoints.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("event_type", sa.String(32), nullable=False),
    sa.Column("payload", sa.Text(), nullable=False),  # the JSON body, signed as it is
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending | delivered | failed
    sa.Column("attempts", sa.Integer(), nullable=False),
    sa.Column("next_attempt_ms", sa.BigInteger(), nullable=True),
    sa.Column("lease_ms", sa.BigInteger(), nullable=True),  # a sender holds it until then
    sa.Column("last_attempt_ms", sa.BigInteger(), nullable=True),
    sa.Column("last_status_code", sa.Integer(), nullable=True),
    sa.Column("last_error", sa.String(255), nullable=True),
    sa.Column("last_response", sa.String(1024), nullable=True),  # at most 1 KB of the body
    sa.Index("ix_webhook_deliveries_endpoint", "endpoint_id", "created_ms"),
    sa.Index("ix_webhook_deliveries_due", "status", "next_attempt_ms"),
)
