"""The `risk` command line: one click group that each area extends."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="riskcore")
def main() -> None:
    """Risk game server: engine tools, API server and workers."""


def _register() -> None:
    from service import cli_audit, cli_engine

    for command in (
        cli_engine.odds,
        cli_engine.map_,
        cli_engine.simulate,
        cli_audit.verify,
        cli_audit.replay,
    ):
        main.add_command(command)


_register()
