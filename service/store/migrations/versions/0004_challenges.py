"""Challenges of accounts and open links (issue 49).

Revision ID: 0004_challenges
Revises: 0003_webhooks
Create Date: 2026-12-08

``challenges`` keep what a challenge asks for (mode, board, rated), its
status and expiry, and the game it became; ``challenge_seats`` one row per
seat: the challenger's (p1), each named account's with its answer, each
open seat (taken by an account, or by someone anonymous whose seat token's
hash is kept), and each bot's level.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_challenges"
down_revision = "0003_webhooks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "challenger_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("board", sa.String(64), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_ms", sa.BigInteger(), nullable=True),
        sa.Column("starting_ms", sa.BigInteger(), nullable=True),
        sa.Column("game_id", sa.String(64), nullable=True),
    )
    op.create_index("ix_challenges_challenger", "challenges", ["challenger_id", "created_ms"])
    op.create_index("ix_challenges_due", "challenges", ["status", "expires_ms"])
    op.create_table(
        "challenge_seats",
        sa.Column(
            "challenge_id",
            sa.String(40),
            sa.ForeignKey("challenges.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.String(8), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=True),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("answer", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("answered_ms", sa.BigInteger(), nullable=True),
        sa.UniqueConstraint("challenge_id", "account_id", name="uq_challenge_seats_account"),
    )
    op.create_index("ix_challenge_seats_account", "challenge_seats", ["account_id", "challenge_id"])


def downgrade() -> None:
    op.drop_table("challenge_seats")
    op.drop_table("challenges")
