"""``risk archive``: the SQL archive's schema and contents (``RISK_DATABASE_URL``).

``migrate`` brings the database's schema to this version's (``risk dev``,
``risk serve`` and ``risk projector`` do it themselves at start; run it
alone before a rolling upgrade). Imported only when the command runs.
"""

from __future__ import annotations

import click

from service.settings import Settings
from service.store.database import migrate


@click.group("archive")
def archive() -> None:
    """The archive of finished games in SQL (RISK_DATABASE_URL): migrate, backfill."""


@archive.command("migrate")
@click.option(
    "--database-url",
    envvar="RISK_DATABASE_URL",
    default=None,
    help="A SQLAlchemy URL (default: RISK_DATABASE_URL, else sqlite:///.data/risk.db).",
)
def migrate_command(database_url: str | None) -> None:
    """Create or upgrade the archive's tables to this version's schema."""
    url = database_url or Settings.from_env().database_url
    migrate(url)
    click.echo(f"archive schema up to date ({_shown(url)})")


def _shown(url: str) -> str:
    """The URL without its password, for a log line."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _add_ratings() -> None:
    """``risk archive ratings`` (issue 49) lives in its own module."""
    from riskcli.ratings import ratings_command

    archive.add_command(ratings_command)


_add_ratings()
