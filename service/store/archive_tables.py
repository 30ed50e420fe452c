"""The archive's tables as SQLAlchemy Core objects (the schema the migrations make).

``migrations/versions/0001_archive.py`` creates them; this module is what
the code queries with, and tests/service/store/test_archive_schema.py checks
that the two agree (Alembic's ``compare_metadata`` finds no difference).
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["archived_games", "archived_records", "archived_seats", "metadata"]

metadata = sa.MetaData()
UNRECORDED = sa.text("status = 'finished' AND NOT recorded")  # the records still to archive

archived_games = sa.Table(
    "archived_games",
    metadata,
    sa.Column("game_id", sa.String(64), primary_key=True),
    sa.Column("mode", sa.String(32), nullable=False),
    sa.Column("board", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("winner", sa.String(16), nullable=True),  # the winning seat, if any
    sa.Column("outcome", sa.String(16), nullable=True),  # how it ended (finished games)
    sa.Column("tournament", sa.String(64), nullable=True),
    sa.Column("parent", sa.String(64), nullable=True),  # the game it was forked from
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("finished_ms", sa.BigInteger(), nullable=True),
    sa.Column("updated_ms", sa.BigInteger(), nullable=False),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("head", sa.String(64), nullable=False),
    sa.Column("seat_count", sa.Integer(), nullable=False),
    sa.Column("info", sa.Text(), nullable=False),  # the game's public info, as JSON
    # Whether its record is archived: set with the record (migration 0004), so the
    # finished games still to record are found in the partial index below.
    sa.Column("recorded", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Index("ix_archived_games_created", "created_ms", "game_id"),
    sa.Index("ix_archived_games_mode", "mode", "created_ms", "game_id"),
    sa.Index("ix_archived_games_board", "board", "created_ms", "game_id"),
    sa.Index("ix_archived_games_status", "status", "created_ms", "game_id"),
    sa.Index("ix_archived_games_finished", "finished_ms"),
    sa.Index(
        "ix_archived_games_unrecorded",
        "finished_ms",
        sqlite_where=UNRECORDED,
        postgresql_where=UNRECORDED,
    ),
)

archived_seats = sa.Table(
    "archived_seats",
    metadata,
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
    sa.Column("account_id", sa.String(64), nullable=True),  # issue 49's accounts
    sa.Column("result", sa.String(8), nullable=True),  # "won" or "lost" once finished
    sa.Column("created_ms", sa.BigInteger(), nullable=False),  # the game's, for the index
    sa.Index("ix_archived_seats_name", "name", "created_ms", "game_id"),
    sa.Index("ix_archived_seats_account", "account_id", "created_ms", "game_id"),
)

archived_records = sa.Table(
    "archived_records",
    metadata,
    sa.Column(
        "game_id",
        sa.String(64),
        sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("record", sa.LargeBinary(), nullable=False),  # one gzip member
    sa.Column("events", sa.Integer(), nullable=False),
    sa.Column("size", sa.Integer(), nullable=False),  # the record's bytes, uncompressed
    sa.Column("archived_ms", sa.BigInteger(), nullable=False),
)
