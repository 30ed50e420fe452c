"""``risk archive ratings``: rebuild the players' ratings (issue 49).

Ratings are a projection of the log of rated results (``rated_games``):
this rates the rated games that finished and wait in Redis, then those the
archive holds and the log lacks (issue 48's projector rates them as it
archives them; this catches any it missed), then replays the whole log, in
the order the games finished, into a new ratings table: the table the
server keeps (``service.application.player_ratings``). Imported only when run.
"""

from __future__ import annotations

import dataclasses

import click

from service.application.archived import archive_for
from service.application.games import GameService
from service.application.player_ratings import PlayerRatings
from service.settings import Settings
from service.store.connections import store_client
from service.store.keys import KeySpace
from service.store.ratings import FinishedQueue, RatingStore


@click.command("ratings")
@click.option(
    "--database-url",
    envvar="RISK_DATABASE_URL",
    default=None,
    help="A SQLAlchemy URL (default: RISK_DATABASE_URL, else sqlite:///.data/risk.db).",
)
def ratings_command(database_url: str | None) -> None:
    """Rate the finished rated games, then rebuild every rating from the log."""
    settings = Settings.from_env()
    if database_url:
        settings = dataclasses.replace(settings, database_url=database_url)
    archive = archive_for(settings, pool_size=1)
    client = store_client(settings)
    keys = KeySpace(settings.key_prefix)
    try:
        games = GameService(client, keys)
        ratings = PlayerRatings(RatingStore(archive.engine), FinishedQueue(client, keys), games)
        rated = ratings.catch_up() + ratings.rate_archived(archive)
        replayed = ratings.rebuild()
        click.echo(f"{rated} game(s) newly rated; ratings rebuilt from {replayed} rated game(s)")
    finally:
        archive.engine.dispose()
        client.close()
