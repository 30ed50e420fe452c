"""Players: accounts, their scoped tokens, and ratings per mode (issue 49).

Revision ID: 0002_accounts
Revises: 0001_archive
Create Date: 2026-12-07

``accounts`` are people and bots (``kind``; a bot account has a ``level``),
named uniquely regardless of case (``name_key`` is the lower-cased name).
A deleted account keeps its row (its games' records still point at it) with
its name replaced. ``tokens`` keep only the SHA-256 of each token, its
scopes (space-separated) and when it was last used or revoked. ``ratings``
hold one openskill rating per account and mode; ``rated_games`` is the log of
rated results the ratings are a projection of (a game is rated once).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_accounts"
down_revision = "0001_archive"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("subject", sa.String(255), nullable=True, unique=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("deleted_ms", sa.BigInteger(), nullable=True),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("scopes", sa.String(255), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_used_ms", sa.BigInteger(), nullable=True),
        sa.Column("revoked_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_tokens_account", "tokens", ["account_id", "created_ms"])
    op.create_table(
        "ratings",
        sa.Column(
            "account_id",
            sa.String(64),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("mode", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("provisional", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["mode", "ordinal"])
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
    )
    op.create_index("ix_rated_games_finished", "rated_games", ["finished_ms", "game_id"])


def downgrade() -> None:
    op.drop_table("rated_games")
    op.drop_table("ratings")
    op.drop_table("tokens")
    op.drop_table("accounts")
