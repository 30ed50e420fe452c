"""``risk tournament``: a bot tournament played in this process, no server needed.

The same schedule, places and ratings as ``POST /v1/tournaments``
(``riskcore.tournament``, ``service.application.ratings``), with the games played by
``riskcore.simulate`` one after another. A progress bar goes to stderr
when it is a terminal; the table (or ``--json``) to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from riskcore.bots.levels import bot_for
from riskcore.engine.evolve import fold
from riskcore.engine.registry import mode_names
from riskcore.errors import RiskError
from riskcore.simulate import play_game
from riskcore.tournament import (
    FORMATS,
    Entrant,
    Fixture,
    Outcome,
    TournamentError,
    entrants_from,
    outcome_of,
    schedule,
)

__all__ = ["tournament"]


@click.command()
@click.argument("entrants", nargs=-1, required=True)
@click.option("--players", type=click.IntRange(2, 6), default=3, show_default=True)
@click.option("--format", "format_", type=click.Choice(FORMATS), default="round_robin")
@click.option("--games", type=click.IntRange(min=1), default=None, help="Games per pairing.")
@click.option("--seed", type=int, default=0, show_default=True, help="The tournament's seed.")
@click.option("--mode", type=click.Choice(mode_names()), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def tournament(
    entrants: tuple[str, ...],
    players: int,
    format_: str,
    games: int | None,
    seed: int,
    mode: str | None,
    as_json: bool,
) -> None:
    """Play a tournament between ENTRANTS and print the standings with ratings.

    Each entrant is a bot (random, heuristic, strong), a level (easy, medium,
    hard) or BOT:LEVEL. ``--format round_robin`` plays every combination of
    PLAYERS entrants once from each seat order; ``games_per_pairing`` plays
    ``--games`` games per combination, seats rotated.
    """
    if format_ == "games_per_pairing" and games is None:
        games = players
    chosen = mode or ("two_player" if players == 2 else "classic")
    try:
        field = entrants_from([_request(spec) for spec in entrants])
        fixtures = schedule(
            [e.id for e in field],
            players=players,
            format=format_,
            games=games if format_ == "games_per_pairing" else None,
            seed=seed.to_bytes(32, "big", signed=False),
        )
    except TournamentError as error:
        raise click.UsageError(str(error)) from None
    shown = sys.stderr.isatty()
    try:
        with click.progressbar(
            length=len(fixtures), label="tournament", file=sys.stderr, hidden=not shown
        ) as bar:
            outcomes = play_all(field, fixtures, chosen, progress=bar.update)
    except RiskError as error:
        raise click.UsageError(error.message) from None
    from service.application.ratings import table

    rows = table(field, outcomes)
    if as_json:
        document = {"entrants": [e.public() for e in field], "games": len(fixtures)}
        click.echo(json.dumps(document | {"standings": rows}, indent=2))
    else:
        click.echo(format_table(rows))


def _request(spec: str) -> dict[str, Any]:
    from riskcore.bots.levels import LEVELS

    bot, _, level = spec.partition(":")
    if not level and bot in LEVELS:
        return {"level": bot}
    return {"bot": bot, "level": level or None}


def play_all(
    entrants: Sequence[Entrant],
    fixtures: Sequence[Fixture],
    mode: str,
    progress: Callable[[int], object] | None = None,
) -> list[Outcome]:
    """Every fixture played in process; ``progress(1)`` after each game."""
    by_id = {e.id: e for e in entrants}
    outcomes = []
    for fixture in fixtures:
        bots = [bot_for(by_id[e].bot, by_id[e].level) for e in fixture.seats]
        game_id = f"t-{fixture.index}"
        result = play_game(bots, seed=fixture.seed, game_id=game_id, mode=mode)
        outcomes.append(outcome_of(fixture, fold(result.events), game_id=game_id))
        if progress is not None:
            progress(1)
    return outcomes


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    head = f"{'#':>2}  {'entrant':<20} {'games':>5} {'wins':>6} {'place':>5}  rating (mu ± 2σ)"
    lines = [head]
    for row in rows:
        r = row["rating"]
        lines.append(
            f"{row['rank']:>2}  {row['name']:<20} {row['games']:>5} {row['wins']:>6g}"
            f" {row['mean_place'] or 0:>5.2f}  {r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]"
            f"  ordinal {r['ordinal']:.1f}"
        )
    return "\n".join(lines)
