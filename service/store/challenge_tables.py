"""The challenges' tables as SQLAlchemy Core objects (issue 49).

``migrations/versions/0004_challenges.py`` creates them; they share the
archive's ``metadata`` like the accounts' tables, so the schema test compares
every table at once.
"""

from __future__ import annotations

import sqlalchemy as sa

from service.store.archive_tables import metadata

__all__ = ["challenge_seats", "challenges", "metadata"]

challenges = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),  # unguessable: an open one's link
    sa.Column(
        "challenger_id",
        sa.String(64),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("mode", sa.String(32), nullable=False),
    sa.Column("board", sa.String(64), nullable=True),
    sa.Column("rated", sa.Boolean(), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # pending | accepted | declined | ...
    sa.Column("created_ms", sa.BigInteger(), nullable=False),
    sa.Column("expires_ms", sa.BigInteger(), nullable=False),
    sa.Column("ended_ms", sa.BigInteger(), nullable=True),
    sa.Column("starting_ms", sa.BigInteger(), nullable=True),  # who starts the game holds it
    sa.Column("game_id", sa.String(64), nullable=True),
    sa.Index("ix_challenges_challenger", "challenger_id", "created_ms"),
    sa.Index("ix_challenges_due", "status", "expires_ms"),
)

challenge_seats = sa.Table(
    "challenge_seats",
    metadata,
    sa.Column(
        "challenge_id",
        sa.String(40),
        sa.ForeignKey("challenges.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.String(8), primary_key=True),  # p1 (the challenger), p2, ...
    sa.Column("kind", sa.String(16), nullable=False),  # challenger | named | open | bot
    sa.Column("account_id", sa.String(64), nullable=True),  # named, or who took an open seat
    sa.Column("level", sa.String(16), nullable=True),  # a bot seat's level
    sa.Column("answer", sa.String(16), nullable=False),  # pending | accepted | declined
    sa.Column("name", sa.String(64), nullable=True),  # an anonymous taker's name
    sa.Column("token_hash", sa.String(64), nullable=True),  # an anonymous taker's seat token
    sa.Column("answered_ms", sa.BigInteger(), nullable=True),
    # An account sits once in a challenge: two takes of a link by one account, or the
    # challenger taking its own open seat, meet this index (NULLs never collide).
    sa.UniqueConstraint("challenge_id", "account_id", name="uq_challenge_seats_account"),
    sa.Index("ix_challenge_seats_account", "account_id", "challenge_id"),
)
