"""Webhooks (issue 50): endpoints accounts register, and deliveries to them.

Revision ID: 0003_webhooks
Revises: 0002_accounts
Create Date: 2026-12-07

``webhook_endpoints`` keep each endpoint's URL, event types (space-separated)
and signing secret; during a rotation the previous secret signs too until
``previous_expires_ms``. ``failing_since_ms`` marks an endpoint whose last
deliveries failed; one failing for days is disabled with a reason.
``webhook_deliveries`` keep each message (its id is the ``webhook-id`` every
attempt sends), its schedule, and the last attempt's outcome with at most
1 KB of the receiver's answer.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_webhooks"
down_revision = "0002_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("events", sa.String(255), nullable=False),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("secret", sa.String(128), nullable=False),
        sa.Column("previous_secret", sa.String(128), nullable=True),
        sa.Column("previous_expires_ms", sa.BigInteger(), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("failing_since_ms", sa.BigInteger(), nullable=True),
        sa.Column("disabled_ms", sa.BigInteger(), nullable=True),
        sa.Column("disabled_reason", sa.String(255), nullable=True),
    )
    op.create_index(
        "ix_webhook_endpoints_account", "webhook_endpoints", ["account_id", "created_ms"]
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "endpoint_id",
            sa.String(32),
            sa.ForeignKey("webhook_endpoints.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("event_type", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_ms", sa.BigInteger(), nullable=True),
        sa.Column("lease_ms", sa.BigInteger(), nullable=True),
        sa.Column("last_attempt_ms", sa.BigInteger(), nullable=True),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(255), nullable=True),
        sa.Column("last_response", sa.String(1024), nullable=True),
    )
    op.create_index(
        "ix_webhook_deliveries_endpoint", "webhook_deliveries", ["endpoint_id", "created_ms"]
    )
    op.create_index(
        "ix_webhook_deliveries_due", "webhook_deliveries", ["status", "next_attempt_ms"]
    )


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
