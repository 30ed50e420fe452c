"""The ``risk`` click group: engine commands eagerly, server commands on demand.

The engine and audit commands need only the engine and click, so they are
registered at import. ``serve``, ``dev``, ``worker`` and ``relay`` are named
here with their one-line summaries and imported when one is run: with only
the ``cli`` extra installed, ``risk --help`` and the offline commands work
without Flask, Redis or RQ, and a server command says which extra to
install instead of ending in a traceback.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from riskcli.install_hint import install_line

try:
    import click
except ModuleNotFoundError as error:  # riskcore without an extra has the script, not click
    if error.name != "click":
        raise
    raise SystemExit(f"the risk command needs click: {install_line('cli')}") from None

from riskcli import analyse, audit, engine, tournament

__all__ = ["SERVER_COMMANDS", "main"]

# Top-level modules of the `server` extra's packages (pyproject.toml). A
# server command whose import misses one of these lacks the extra; any other
# missing module is a bug and keeps its traceback.
SERVER_MODULES = frozenset(
    {
        "flask",
        "marshmallow",
        "redis",
        "hiredis",
        "rq",
        "gunicorn",
        "prometheus_client",
        "yaml",
        "sqlalchemy",
        "alembic",
        "psycopg",
    }
)


@dataclass(frozen=True)
class LazyCommand:
    """Where a server command lives, and what ``risk --help`` says of it meanwhile.

    ``summary`` repeats the command's docstring summary so that listing the
    commands imports nothing; tests/riskcli/test_cli.py keeps the two equal.
    """

    module: str
    attribute: str
    summary: str

    def load(self, name: str) -> click.Command:
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as error:
            missing = (error.name or "").split(".")[0]
            if missing not in SERVER_MODULES:
                raise
            raise click.ClickException(
                f"`risk {name}` needs the server extra (no module {missing!r}): "
                + install_line("server")
            ) from None
        command = getattr(module, self.attribute)
        assert isinstance(command, click.Command)
        return command


SERVER_COMMANDS = {
    "archive": LazyCommand(
        "riskcli.archive",
        "archive",
        "The archive of finished games in SQL (RISK_DATABASE_URL): migrate, backfill, prune.",
    ),
    "dev": LazyCommand(
        "riskcli.dev",
        "dev",
        "Run the API, the relay, the workers and the projector, and open a game against bots.",
    ),
    "projector": LazyCommand(
        "riskcli.projector",
        "projector",
        "Project finished games into the SQL archive (RISK_DATABASE_URL). Stops on SIGTERM.",
    ),
    "relay": LazyCommand(
        "riskcli.worker",
        "relay_command",
        "Only the relay: outbox notifications to RQ jobs. Stops on SIGTERM or Ctrl-C.",
    ),
    "serve": LazyCommand(
        "riskcli.serve",
        "serve",
        "Serve the REST API (REDIS_URL, RISK_KEY_PREFIX, RISK_ADMIN_TOKEN, ... from the env).",
    ),
    "worker": LazyCommand(
        "riskcli.worker",
        "worker",
        "An RQ worker for bot turns and clocks, with a deadline scheduler and the relay.",
    ),
}


class RiskGroup(click.Group):
    """A click group that also knows the server commands without importing them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *SERVER_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = SERVER_COMMANDS.get(cmd_name)
        if lazy is None:
            return super().get_command(ctx, cmd_name)
        return lazy.load(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Like click's listing, with stand-ins for the server commands.

        click's own would call ``get_command`` for each, importing the
        server stack (or failing without it) just to print a summary.
        """
        listed: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            lazy = SERVER_COMMANDS.get(name)
            command = (
                click.Command(name, help=lazy.summary)
                if lazy is not None
                else super().get_command(ctx, name)
            )
            if command is not None and not command.hidden:
                listed.append((name, command))
        if not listed:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in listed)
        with formatter.section("Commands"):
            formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in listed])


@click.group(cls=RiskGroup)
@click.version_option(package_name="riskcore")
def main() -> None:
    """Risk game server: engine tools, API server and workers."""


for _command in (
    engine.odds,
    engine.map_,
    engine.simulate,
    tournament.tournament,
    audit.verify,
    audit.replay,
    analyse.analyse_command,
):
    main.add_command(_command)
