"""Audit commands of ``risk``: verify a game record, replay it to a version.

Only the engine and click are imported here (matplotlib only for
``--chart``): a player checks a downloaded record without installing, or
trusting, anything of the server.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Any

import click

from riskcli.install_hint import install_line
from riskcore.audit.forks import check_parent
from riskcore.audit.gamerecord import parse_record
from riskcore.audit.record import envelope_from_dict
from riskcore.audit.summary import summarize
from riskcore.audit.verify import FAILED, NOT_FINAL, Verdict, verify_text
from riskcore.engine.evolve import fold
from riskcore.errors import RiskError
from riskcore.views.view import view

EXIT_VERIFIED, EXIT_FAILED, EXIT_NOT_FINAL = 0, 1, 2


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@click.option(
    "--expect-head",
    "heads",
    multiple=True,
    metavar="HASH",
    help="A head hash you saw (command response, event feed): the record must contain it.",
)
@click.option(
    "--parent",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="For a fork: the parent game's record, which must hold the fork's starting position.",
)
def verify(record: Path, as_json: bool, heads: tuple[str, ...], parent: Path | None) -> None:
    """Check a game record offline: chain, header, seed commitment, hidden cards, replay.

    Exits 0 when the whole record verifies (VERIFIED), 1 when it does not
    (naming the first divergence: version, field, expected, found), and 2
    when nothing failed but the game has not ended (no seed revealed), so
    dice and hidden cards could not be checked: "chain valid, not final".
    """
    text = record.read_text(encoding="utf-8", errors="replace")
    verdict = verify_offline(text, as_json, heads)
    if parent is not None and verdict.ok:
        with_parent(verdict, text, parent.read_text(encoding="utf-8", errors="replace"))
    if as_json:
        click.echo(json.dumps(verdict.to_dict(), indent=2, default=str))
    else:
        _print(verdict)
    sys.exit(_exit_status(verdict))


def with_parent(verdict: Verdict, text: str, parent_text: str) -> None:
    """Add the fork's check against its parent's record (issue 37) to ``verdict``."""
    divergence = check_parent(text, parent_text)
    if divergence is None:
        verdict.checks["parent"] = "passed"
        return
    verdict.ok, verdict.status, verdict.divergence = False, FAILED, divergence
    verdict.checks["parent"] = "failed"


def _print(verdict: Verdict) -> None:
    click.echo(f"record of game {verdict.game_id}: {verdict.events} events")
    for check, outcome in verdict.checks.items():
        click.echo(f"  {check:<11} {outcome}")
    if verdict.divergence:
        d = verdict.divergence
        where = "" if d.version is None else f" at version {d.version}"
        click.echo(f"FAILED{where}: {d.message}")
        if d.field:
            click.echo(f"  field {d.field}: expected {d.expected!r}, found {d.found!r}")
    elif verdict.status == NOT_FINAL:
        click.echo(f"CHAIN VALID, NOT FINAL (head {verdict.head}): the game has not ended,")
        click.echo("  so its dice and hidden cards cannot be checked yet")
    else:
        click.echo(f"VERIFIED (winner {verdict.winner})" if verdict.winner else "VERIFIED")


def _exit_status(verdict: Verdict) -> int:
    if verdict.ok:
        return EXIT_VERIFIED
    return EXIT_NOT_FINAL if verdict.status == NOT_FINAL else EXIT_FAILED


def verify_offline(text: str, quiet: bool = True, heads: tuple[str, ...] = ()) -> Verdict:
    """What ``risk verify`` does, with the cyclic garbage collector paused meanwhile.

    A verification makes tens of thousands of objects (a record's lines, its
    events, their envelopes) that all live until it ends and hold no cycles:
    the collector would only scan them over and over as they pile up (~15 %
    of a verification's time). It runs again as before when the verdict is in.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _verify_with_progress(text, quiet, heads)
    finally:
        if enabled:
            gc.enable()


def _verify_with_progress(text: str, quiet: bool, heads: tuple[str, ...]) -> Verdict:
    """Long records get a progress bar on stderr (not in --json mode)."""
    events = text.count("\n") - 1  # a record's lines less its header and seed
    if quiet or events < 20_000:
        return verify_text(text, expect_heads=heads)
    with click.progressbar(length=events, label="replaying", file=sys.stderr) as bar:
        return verify_text(text, progress=bar.update, expect_heads=heads)


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--to", "version", type=click.IntRange(min=1), help="Version to stop at.")
@click.option("--json", "as_json", is_flag=True, help="Print the full view as JSON.")
@click.option("--summary", is_flag=True, help="Print game statistics (JSON) instead.")
@click.option(
    "--chart",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a PNG of armies and territories per player over the turns.",
)
def replay(
    record: Path, version: int | None, as_json: bool, summary: bool, chart: Path | None
) -> None:
    """Print the board of a recorded game as it was at version N."""
    try:
        parsed = parse_record(record.read_text(encoding="utf-8"))
        entries = parsed.entries[:version] if version else parsed.entries
        events = [envelope_from_dict(e.envelope()).event for e in entries]
        state = fold(events)
    except (RiskError, StopIteration) as error:
        raise click.ClickException(f"cannot replay {record}: {error}") from None
    if summary or chart:
        stats = summarize(events)
        if chart:
            draw_chart(stats, chart, {seat: info.name for seat, info in state.seats.items()})
            click.echo(f"wrote {chart}", err=True)
        if summary:
            click.echo(json.dumps(stats, indent=2))
        return
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


def draw_chart(stats: dict[str, Any], path: Path, names: dict[str, str]) -> None:
    """Armies and territories per player by turn (needs the ``charts`` extra)."""
    figure = chart_figure(stats, names)
    figure.savefig(path, dpi=100)
    import matplotlib.pyplot as plt

    plt.close(figure)


def chart_figure(stats: dict[str, Any], names: dict[str, str]) -> Any:
    """The chart, its legend by player name; the last point is the game's last event."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.ClickException(f"charts need matplotlib: {install_line('charts')}") from None
    timeline = stats["timeline"]
    turns = [point["turn"] for point in timeline]
    figure, (armies, territories) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    for player in timeline[0]["armies"] if timeline else []:
        label = names.get(player, player)
        armies.plot(turns, [p["armies"][player] for p in timeline], label=label)
        territories.plot(turns, [p["territories"][player] for p in timeline], label=label)
    armies.set_ylabel("armies")
    territories.set_ylabel("territories")
    territories.set_xlabel("turn")
    armies.legend()
    winner = names.get(stats["winner"], stats["winner"]) if stats["winner"] else "none yet"
    armies.set_title(f"game {stats['game_id']} (winner {winner})")
    figure.tight_layout()
    return figure
