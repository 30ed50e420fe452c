"""The archive: finished games' summaries, seats and records (issue 48).

Revision ID: 0001_archive
Revises:
Create Date: 2026-12-07

``archived_games`` holds one summary row per game (kept current by the
projector while it runs, final once it has finished); ``archived_seats`` its
seats, with the name (and, later, the account) history is searched by; and
``archived_records`` a finished game's complete record as one gzip member,
served as is. Every listing orders by (created_ms, game_id), so each filter
has an index ending with those two columns.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_archive"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("winner", sa.String(16), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=True),
        sa.Column("tournament", sa.String(64), nullable=True),
        sa.Column("parent", sa.String(64), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=True),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("head", sa.String(64), nullable=False),
        sa.Column("seat_count", sa.Integer(), nullable=False),
        sa.Column("info", sa.Text(), nullable=False),
    )
    op.create_index("ix_archived_games_created", "archived_games", ["created_ms", "game_id"])
    for column in ("mode", "board", "status"):
        op.create_index(
            f"ix_archived_games_{column}", "archived_games", [column, "created_ms", "game_id"]
        )
    op.create_index("ix_archived_games_finished", "archived_games", ["finished_ms"])
    op.create_table(
        "archived_seats",
        sa.Column(
            "game_id",
            sa.String(64),
            sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(128), nullable=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("account_id", sa.String(64), nullable=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_archived_seats_name", "archived_seats", ["name", "created_ms", "game_id"])
    op.create_index(
        "ix_archived_seats_account", "archived_seats", ["account_id", "created_ms", "game_id"]
    )
    op.create_table(
        "archived_records",
        sa.Column(
            "game_id",
            sa.String(64),
            sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("archived_ms", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("archived_records")
    op.drop_table("archived_seats")
    op.drop_table("archived_games")
