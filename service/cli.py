"""The `risk` command line: one click group that each area extends."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="riskcore")
def main() -> None:
    """Risk game server: engine tools, API server and workers."""


def _register() -> None:
    from service import cli_audit, cli_dev, cli_engine, cli_server
    from workers import cli as worker_cli

    for command in (
        cli_engine.odds,
        cli_engine.map_,
        cli_engine.simulate,
        cli_audit.verify,
        cli_audit.replay,
        worker_cli.worker,
        worker_cli.relay_command,
        cli_server.serve,
        cli_dev.dev,
    ):
        main.add_command(command)


_register()
