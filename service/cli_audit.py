"""Audit commands of ``risk``: verify a game record, replay it to a version."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from riskcore.errors import RiskError
from riskcore.evolve import fold
from riskcore.gamerecord import parse_record
from riskcore.record import envelope_from_dict
from riskcore.verify import Verdict, verify_record, verify_text
from riskcore.views import view


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def verify(record: Path, as_json: bool) -> None:
    """Check a game record offline: chain, seed commitment, every roll, replay.

    Exits 0 when the record verifies, 1 when it does not (naming the first
    divergence: version, field, expected, found).
    """
    text = record.read_text(encoding="utf-8", errors="replace")
    verdict = _verify_with_progress(text, as_json)
    if as_json:
        click.echo(json.dumps(verdict.to_dict(), indent=2, default=str))
    else:
        click.echo(f"record of game {verdict.game_id}: {verdict.events} events")
        for check, outcome in verdict.checks.items():
            click.echo(f"  {check:<11} {outcome}")
        if verdict.divergence:
            d = verdict.divergence
            click.echo(f"FAILED at version {d.version}: {d.message}")
            if d.field:
                click.echo(f"  field {d.field}: expected {d.expected!r}, found {d.found!r}")
        else:
            click.echo(f"VERIFIED (winner {verdict.winner})" if verdict.winner else "VERIFIED")
    sys.exit(0 if verdict.ok else 1)


def _verify_with_progress(text: str, quiet: bool) -> Verdict:
    """Long records get a progress bar on stderr (not in --json mode)."""
    try:
        record = parse_record(text)
    except RiskError:
        return verify_text(text)
    if quiet or len(record.entries) < 20_000:
        return verify_record(record)
    with click.progressbar(length=len(record.entries), label="replaying", file=sys.stderr) as bar:
        return verify_record(record, progress=bar.update)


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--to", "version", type=click.IntRange(min=1), help="Version to stop at.")
@click.option("--json", "as_json", is_flag=True, help="Print the full view as JSON.")
def replay(record: Path, version: int | None, as_json: bool) -> None:
    """Print the board of a recorded game as it was at version N."""
    try:
        parsed = parse_record(record.read_text(encoding="utf-8"))
        entries = parsed.entries[:version] if version else parsed.entries
        state = fold(envelope_from_dict(e.payload).event for e in entries)
    except (RiskError, StopIteration) as error:
        raise click.ClickException(f"cannot replay {record}: {error}") from None
    board = view(state, None)
    if as_json:
        click.echo(json.dumps(board, indent=2))
        return
    click.echo(
        f"game {state.game_id} at version {state.version}: phase {state.phase}, "
        f"turn {state.turn}, current {state.current}"
    )
    for seat in board["seats"]:
        click.echo(
            f"  {seat['id']} {seat['name']:<12} {seat['status']:<10} "
            f"{seat['territories']:>2} territories {seat['armies']:>4} armies "
            f"{seat['card_count']} cards"
        )
    for territory, info in board["territories"].items():
        click.echo(f"  {territory:<24} {info['owner'] or '-':<4} {info['armies']:>4}")
