"""The `risk` command line: one click group that each area extends."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="riskcore")
def main() -> None:
    """Risk game server: engine tools, API server and workers."""
