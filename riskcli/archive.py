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
    """The archive of finished games in SQL (RISK_DATABASE_URL): migrate, backfill, prune."""


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


@archive.command("backfill")
@click.option("--batch", default=50, show_default=True, help="Games per transaction.")
def backfill_command(batch: int) -> None:
    """Archive the finished games still in Redis (those the projector never saw)."""
    from service.application.archived import archive_for
    from service.application.games import GameService
    from service.store.connections import store_client
    from service.store.keys import KeySpace
    from workers.backfill import Backfilled, backfill

    settings = Settings.from_env()
    migrate(settings.database_url)
    client = store_client(settings, socket_timeout=30)
    service = GameService(client, KeySpace(settings.key_prefix), cache_games=64)
    archive = archive_for(settings, pool_size=1)

    def progress(done: Backfilled) -> None:
        click.echo(f"  {done.games} games, {done.records} records", err=True)

    try:
        done = backfill(service, archive, batch=batch, progress=progress)
    finally:
        archive.engine.dispose()
    click.echo(
        f"backfilled {done.games} games, {done.records} new records"
        + (f", {done.refused} records refused (did not verify)" if done.refused else "")
    )


@archive.command("prune")
@click.option(
    "--days",
    type=float,
    default=None,
    help="Drop games finished more than this many days ago (default RISK_ARCHIVE_DAYS).",
)
def prune_command(days: float | None) -> None:
    """Drop archived games finished longer ago than RISK_ARCHIVE_DAYS (or --days)."""
    import time

    from service.application.archived import archive_for

    settings = Settings.from_env()
    keep = settings.archive_days if days is None else days
    if keep <= 0:
        raise click.ClickException("nothing to prune: RISK_ARCHIVE_DAYS is 0 (keep for ever)")
    archive = archive_for(settings, pool_size=1)
    try:
        dropped = archive.prune(int((time.time() - keep * 86400) * 1000))
    finally:
        archive.engine.dispose()
    click.echo(f"dropped {dropped} games finished more than {keep:g} days ago")


def _shown(url: str) -> str:
    """The URL without its password, for a log line."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _add_ratings() -> None:
    """``risk archive ratings`` (issue 49) lives in its own module."""
    from riskcli.ratings import ratings_command

    archive.add_command(ratings_command)


_add_ratings()
