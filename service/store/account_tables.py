"""The players' tables as SQLAlchemy Core objects (issue 49).

``migrations/versions/0002_accounts.py`` creates them; this is what the code
queries with. They share the archive's ``metadata``, so the schema test
(tests/service/store/test_archive_schema.py) compares every table at once.
"""

from __future__ import annotations

import sqlalchemy as sa

from service.store.archive_tables import metadata

__all__ = ["accounts", "metadata", "rated_games", "ratings", "tokens"]

# One MetaData for every table of the database: the archive's (issue 48) and these.

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("name_key", sa.String(64), nullable=False, unique=True),  # lower-cased name
    sa.Column("kind", sa.String(8), nullable=False),  # human | bot
    sa.Column("level", sa.String(16), nullable=True),  # a bot account's level
    sa.Column("subject", sa.String(255), nullable=True, unique=True),  # "issuer|sub" (OIDC)
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("deleted_ms", sa.BigInteger(), nullable=True),
)

tokens = sa.Table(
    "tokens",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column(
        "account_id",
        sa.String(64),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("name", sa.String(64), nullable=True),
    sa.Column("scopes", sa.String(255), nullable=False),  # space-separated
    sa.Column("hash", sa.String(64), nullable=False, unique=True),  # SHA-256 hex, never the token
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("last_used_ms", sa.BigInteger(), nullable=True),
    sa.Column("revoked_ms", sa.BigInteger(), nullable=True),
    sa.Index("ix_tokens_account", "account_id", "created_ms"),
)

ratings = sa.Table(
    "ratings",
    metadata,
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
    sa.Index("ix_ratings_board", "mode", "ordinal"),
)

rated_games = sa.Table(
    "rated_games",
    metadata,
    sa.Column("game_id", sa.String(64), primary_key=True),
    sa.Column("mode", sa.String(32), nullable=False),
    sa.Column("finished_ms", sa.BigInteger(), nullable=False),
    sa.Column("seats", sa.Text(), nullable=False),  # JSON: [{"account": id, "won": bool}]
    sa.Index("ix_rated_games_finished", "finished_ms", "game_id"),
)
