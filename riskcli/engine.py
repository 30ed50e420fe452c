"""Engine commands of ``risk``: odds, maps and simulated games.

Only the engine and click are imported here: these commands are what
installing the ``cli`` extra is for, on machines with no server stack.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import click

from riskcli.options import rule_options, rule_set
from riskcore.boards.board import board_names, load_board
from riskcore.bots import bot_names, get_bot
from riskcore.engine.registry import mode_names
from riskcore.errors import RiskError
from riskcore.model.options import RuleSet
from riskcore.rules import odds as odds_module
from riskcore.simulate import GameResult, play_game


@click.command()
@click.argument("attackers", type=click.IntRange(min=0))
@click.argument("defenders", type=click.IntRange(min=1))
@click.option(
    "--attacker-bonus",
    type=click.IntRange(0, 2),
    default=0,
    help="Added to the attacker's highest die (a leader).",
)
@click.option(
    "--defender-bonus",
    type=click.IntRange(0, 2),
    default=0,
    help="Added to the defender's highest die (a stronghold, a leader).",
)
@click.option(
    "--one-die-vs-one",
    is_flag=True,
    help="One attacking die lets the defender roll one (Middle-earth).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def odds(
    attackers: int,
    defenders: int,
    attacker_bonus: int,
    defender_bonus: int,
    one_die_vs_one: bool,
    as_json: bool,
) -> None:
    """Exact odds that ATTACKERS armies (not counting the one left behind) take DEFENDERS."""
    result = odds_module.attack_outcome(
        attackers,
        defenders,
        attacker_bonus=attacker_bonus,
        defender_bonus=defender_bonus,
        defender_one_die_vs_one=one_die_vs_one,
    )
    if as_json:
        click.echo(json.dumps(odds_module.to_json(result), indent=2))
    else:
        click.echo(odds_module.format_odds(result))


@click.command(name="map")
@click.argument("name", type=click.Choice(board_names()))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def map_(name: str, as_json: bool) -> None:
    """A board: territories, groups with bonuses, borders."""
    board = load_board(name)
    if as_json:
        click.echo(json.dumps(board.to_dict(), indent=2, ensure_ascii=False))
        return
    click.echo(f"{board.title}")
    for group in board.groups:
        click.echo(f"\n{group.name} (bonus {group.bonus})")
        for territory in sorted(group.territories):
            names = ", ".join(board.territory_names[n] for n in board.neighbours[territory])
            click.echo(f"  {board.territory_names[territory]}: {names}")


@click.command()
@click.option("--players", type=click.IntRange(2, 6), default=4, show_default=True)
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="First game's seed.")
@click.option(
    "--bot",
    "bots",
    default="random",
    show_default=True,
    help=f"Bot name, or a comma list seated in rotation ({', '.join(bot_names())}).",
)
@click.option(
    "--mode",
    type=click.Choice(mode_names()),
    default=None,
    help="Game mode [default: two_player for 2 players, else classic].",
)
@click.option("--variant", "variant", type=click.Choice(mode_names()), default=None, hidden=True)
@rule_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def simulate(
    players: int,
    games: int,
    seed: int,
    bots: str,
    mode: str | None,
    variant: str | None,
    as_json: bool,
    **options: Any,
) -> None:
    """Play GAMES full games between bots and report speed and winners.

    ``--variant`` is the name this option had before game modes; it still works.
    """
    names = [b.strip() for b in bots.split(",") if b.strip()]
    for name in names:
        if name not in bot_names():
            raise click.BadParameter(f"unknown bot {name!r}", param_hint="--bot")
    chosen = mode or variant or ("two_player" if players == 2 else "classic")
    # A bar on stderr, so long runs show they are running; --json output piped to a
    # program stays clean unless a person watches the terminal.
    shown = not as_json or sys.stderr.isatty()
    try:
        with click.progressbar(
            length=games, label="simulating", file=sys.stderr if shown else io.StringIO()
        ) as bar:
            summary = run_simulation(
                players, games, seed, names, chosen, rule_set(options, chosen), progress=bar.update
            )
    except RiskError as error:
        raise click.UsageError(error.message) from None
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            click.echo(f"{key:>22}: {value}")


def _winning_side(result: GameResult) -> str:
    """The winner's bot; a winning team's bots joined with "+" (the team game)."""
    if result.winner:
        return result.seats[result.winner]
    if result.winners:
        return "+".join(result.seats[seat] for seat in result.winners)
    return "none"


def run_simulation(
    players: int,
    games: int,
    seed: int,
    names: list[str],
    mode: str,
    rules: RuleSet,
    progress: Callable[[int], object] | None = None,
) -> dict[str, object]:
    """Seats rotate through the bot list game by game, so no bot keeps one seat;
    ``progress(1)`` is called after each game."""
    wins: Counter[str] = Counter()
    events = turns = commands = 0
    started = time.perf_counter()
    for game in range(games):
        seated = [names[(game + i) % len(names)] for i in range(players)]
        result = play_game(
            [get_bot(n) for n in seated],
            seed=(seed + game).to_bytes(32, "big"),
            game_id=f"sim-{seed + game}",
            mode=mode,
            rules=rules,
        )
        events += len(result.events)
        turns += result.turns
        commands += result.commands
        wins[_winning_side(result)] += 1
        if progress is not None:
            progress(1)
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "players": players,
        "bots": names,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 2),
        "events_per_second": round(events / elapsed),
        "commands_per_second": round(commands / elapsed),
        "mean_commands_per_game": round(commands / games, 1),
        "mean_events_per_game": round(events / games, 1),
        "mean_turns_per_game": round(turns / games, 1),
        "wins": dict(wins),
    }
