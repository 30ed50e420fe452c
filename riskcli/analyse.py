"""``risk analyse RECORD``: the game analysis offline, from a record file.

The engine package only (``riskcore.analysis``), no server: the same report
the API's ``/analysis`` gives for the same seed and depth, since both key
the rollouts by the seed and the record's head hash.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from riskcli.install_hint import install_line
from riskcore.analysis import DEFAULT_DEPTH, MAX_DEPTH, analyse
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import Envelope, envelope_from_dict
from riskcore.errors import RiskError


@click.command("analyse")
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--depth",
    type=click.IntRange(1, MAX_DEPTH),
    default=DEFAULT_DEPTH,
    show_default=True,
    help="Rollouts per turn start and per option of a judged decision (cost grows with it).",
)
@click.option("--seed", default="", help="Seed of the rollouts' dice (same seed, same report).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
@click.option(
    "--chart",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a PNG of each player's win chance by turn (needs the charts extra).",
)
def analyse_command(record: Path, depth: int, seed: str, as_json: bool, chart: Path | None) -> None:
    """Win chances per turn, turning points and costly decisions of a finished game."""
    envelopes, head = read_record(record)
    with click.progressbar(length=1, label="analysing", file=sys.stderr) as bar:

        def progress(done: int, total: int) -> None:
            bar.length = total
            bar.update(done - bar.pos)

        try:
            report = analyse(envelopes, depth=depth, seed=seed, head=head, progress=progress)
        except ValueError as error:
            raise click.ClickException(f"cannot analyse {record}: {error}") from None
    if chart:
        draw_chances(report, chart)
        click.echo(f"wrote {chart}", err=True)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    _print(report)


def read_record(path: Path) -> tuple[list[Envelope], str]:
    """The record's envelopes and its head hash."""
    try:
        parsed = parse_record(path.read_text(encoding="utf-8"))
        envelopes = [envelope_from_dict(e.envelope()) for e in parsed.entries]
    except RiskError as error:
        raise click.ClickException(f"cannot read {path}: {error}") from None
    if not envelopes:
        raise click.ClickException(f"{path} holds no events")
    return envelopes, parsed.entries[-1].hash or ""


def _print(report: dict[str, Any]) -> None:
    for player in report["players"].values():
        click.echo(player["line"])
    click.echo("turning points:")
    for point in report["turning_points"]:
        swing = ", ".join(f"{p} {100 * v:+.0f}" for p, v in point["swing"].items() if v)
        click.echo(
            f"  turn {point['turn']} ({point['seat']}, events {point['from_version']}-"
            f"{point['to_version']}): {swing}"
        )
    click.echo("costly decisions:")
    for decision in report["decisions"]:
        click.echo(
            f"  v{decision['version']} {decision['seat']} turn {decision['turn']}: "
            f"{_move(decision['played'])} cost {100 * decision['cost']:.0f} points; "
            f"better {_move(decision['better'])}"
        )


def _move(body: dict[str, Any]) -> str:
    where = [str(body[k]) for k in ("territory", "source", "target", "count") if k in body]
    return " ".join([body["type"], *where])


def draw_chances(report: dict[str, Any], path: Path) -> None:
    """Each player's win chance by turn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.ClickException(f"charts need matplotlib: {install_line('charts')}") from None
    points = report["points"]
    figure, axes = plt.subplots(figsize=(9, 4))
    for seat, player in report["players"].items():
        label = f"{player['name']} ({seat})"
        axes.plot([p["turn"] for p in points], [p["chances"][seat] for p in points], label=label)
    for point in report["turning_points"]:
        axes.axvline(point["turn"], color="grey", linewidth=0.5, linestyle=":")
    axes.set_ylim(0, 1)
    axes.set_xlabel("turn")
    axes.set_ylabel("win chance")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
