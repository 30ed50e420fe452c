"""``risk dev``: the whole stack on one machine, with a game ready to play.

Starts ``risk serve`` and ``risk worker`` (which runs the relay too) as child
processes, waits until the API is ready, creates a demo game with one seat
for you against two bots, and prints the docs URL, your seat token and a
``curl`` line for your first move. Ctrl-C (or SIGTERM) stops every child
and waits for them, so nothing is left running.

Loaded by ``riskcli.main`` only when ``risk dev`` runs. It imports the
serve and worker modules although only its children run them, so that a
missing server extra stops it at once with the install message, before
any child starts.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from typing import Any

import click

# Run only by the children; imported so that a missing extra fails here (see above).
import riskcli.serve
import riskcli.worker  # noqa: F401
from service.http_json import call

# Children run with this interpreter, not whichever `risk` is first on PATH.
RISK = [sys.executable, "-m", "riskcli"]


@click.command()
@click.option("--port", type=int, default=8000, show_default=True, envvar="RISK_DEV_PORT")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--demo/--no-demo", default=True, show_default=True, help="Create a demo game.")
@click.option("--bots", default="heuristic,random", show_default=True, help="The demo's bots.")
def dev(port: int, host: str, demo: bool, bots: str) -> None:
    """Run the API, the relay and a worker, and open a game against bots."""
    url = f"http://{host}:{port}"
    children = [
        _spawn("serve", "--bind", f"{host}:{port}", "--workers", "1"),
        _spawn("worker", "--log-level", "WARNING"),
    ]
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        _wait_ready(url, children)
        click.echo(f"Risk server on {url}  (API docs: {url}/docs, spec: {url}/openapi.yaml)")
        if demo:
            _demo(url, [b.strip() for b in bots.split(",") if b.strip()])
        click.echo("Ctrl-C stops everything.")
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
        for child in children:
            if child.poll() is not None and not stopping:
                click.echo(f"a child process exited with {child.returncode}; stopping", err=True)
    finally:
        _stop(children)


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    """A child in its own process group, so Ctrl-C reaches it only through us."""
    return subprocess.Popen([*RISK, *args], start_new_session=True)


def _wait_ready(url: str, children: list[subprocess.Popen[bytes]], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(child.poll() is not None for child in children):
            raise click.ClickException("a server process exited while starting; see its output")
        try:
            if call("GET", f"{url}/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise click.ClickException(f"the API at {url} did not become ready in {timeout:.0f} s")


def _demo(url: str, bots: list[str]) -> None:
    seats = [{"kind": "open"}, *({"kind": "bot", "bot": b} for b in bots)]
    status, created = call("POST", f"{url}/v1/games", {"seats": seats})
    if status != 201:
        raise click.ClickException(f"could not create the demo game: {status} {created}")
    game = created["game"]["game_id"]
    status, joined = call("POST", f"{url}/v1/games/{game}/join", {"name": "You"})
    if status != 200:
        raise click.ClickException(f"could not join the demo game: {status} {joined}")
    token, seat = joined["token"], joined["seat"]
    command = _first_move(url, game, token)
    click.echo(f"Demo game {game}: you are {seat} against {len(bots)} bots ({', '.join(bots)}).")
    click.echo(f"  your seat token: {token}")
    click.echo(
        f"  your view:       curl -s {url}/v1/games/{game} -H 'Authorization: Bearer {token}'"
    )
    click.echo(f"  watch live:      curl -sN {url}/v1/games/{game}/events/stream")
    if command is not None:
        body = shlex.quote(json.dumps(command))
        click.echo(
            f"  first move:      curl -s -X POST {url}/v1/games/{game}/commands "
            f"-H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' -d {body}"
        )


def _first_move(url: str, game: str, token: str, timeout: float = 20) -> dict[str, Any] | None:
    """The first legal action once it is your turn (the bots may move first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, legal = call("GET", f"{url}/v1/games/{game}/legal-actions", token=token)
        if status == 200 and legal["actions"]:
            return dict(legal["actions"][0]["command"])
        time.sleep(0.1)
    return None


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every child's group, wait, then SIGKILL what is left."""
    for child in children:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
