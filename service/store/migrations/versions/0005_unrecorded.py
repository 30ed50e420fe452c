"""The finished games whose record is still to archive, found through an index (issue 48).

Revision ID: 0005_unrecorded
Revises: 0004_challenges
Create Date: 2026-12-07

``archived_games.recorded`` says whether the game's record is archived (set in
the transaction that inserts it); the partial index
``ix_archived_games_unrecorded`` holds only the finished games without one,
so the projector's records process finds its work in a look-up however large
the archive: looking for finished games without a record by joining the
records table read every finished game (a quarter of a second at 100,000 of
them, several times a second).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_unrecorded"
down_revision = "0004_challenges"
branch_labels = None
depends_on = None

UNRECORDED = sa.text("status = 'finished' AND NOT recorded")


def upgrade() -> None:
    op.add_column(
        "archived_games",
        sa.Column("recorded", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.execute(
        "UPDATE archived_games SET recorded = TRUE WHERE EXISTS "
        "(SELECT 1 FROM archived_records r WHERE r.game_id = archived_games.game_id)"
    )
    op.create_index(
        "ix_archived_games_unrecorded",
        "archived_games",
        ["finished_ms"],
        sqlite_where=UNRECORDED,
        postgresql_where=UNRECORDED,
    )


def downgrade() -> None:
    op.drop_index("ix_archived_games_unrecorded", "archived_games")
    with op.batch_alter_table("archived_games") as batch:
        batch.drop_column("recorded")
