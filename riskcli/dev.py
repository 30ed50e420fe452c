"""``risk dev``: the whole stack on one machine, with a game ready to play.

Starts ``risk serve``, ``risk worker`` (which runs the relay too), ``risk
projector`` (finished games into the archive, a SQLite file under ``.data/``
unless ``RISK_DATABASE_URL`` names another) and ``risk worker --webhooks``
(accounts' webhooks) as child processes, waits until
the API is ready, creates a demo game with one seat for you against two bots,
and prints the lobby URL first, then the docs URL, a link that opens your seat
in a browser, your seat token and a ``curl`` line for your first move.

Nothing is left running: Ctrl-C, SIGTERM and SIGHUP (the terminal closed)
stop every child and wait for them, and on Linux each child is also asked
by the kernel to stop (``PR_SET_PDEATHSIG``) if ``risk dev`` itself dies,
even of SIGKILL. The port is checked before anything starts or is printed,
so a second ``risk dev`` cannot talk to the first one's server.

Loaded by ``riskcli.main`` only when ``risk dev`` runs. It imports the
serve and worker modules although only its children run them, so that a
missing server extra stops it at once with the install message, before
any child starts.
"""

from __future__ import annotations

import ctypes
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import click

# Run only by the children; imported so that a missing extra fails here (see above).
import riskcli.projector
import riskcli.serve
import riskcli.worker  # noqa: F401
from service.http.http_json import call

# Children run with this interpreter, not whichever `risk` is first on PATH.
RISK = [sys.executable, "-m", "riskcli"]


# Each one stops every child (SIGHUP: the terminal was closed).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Stopped(BaseException):
    """A stop signal arrived: unwind to the clean-up, wherever ``risk dev`` was."""


@click.command()
@click.option("--port", type=int, default=8000, show_default=True, envvar="RISK_DEV_PORT")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--demo/--no-demo", default=True, show_default=True, help="Create a demo game.")
@click.option("--bots", default="heuristic,random", show_default=True, help="The demo's bots.")
def dev(port: int, host: str, demo: bool, bots: str) -> None:
    """Run the API, the relay, the workers and the projector, and open a game against bots."""
    url = f"http://{host}:{port}"
    _check_port_free(host, port)
    children: list[subprocess.Popen[bytes]] = []

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise _Stopped(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    try:
        # Quiet children (warnings and errors only): the lobby's address is the first line
        # a terminal shows, not after gunicorn's and the migrations' (issue 51).
        serving = ("--bind", f"{host}:{port}", "--workers", "1", "--log-level", "WARNING")
        children.append(_spawn("serve", *serving))
        children.append(_spawn("worker", "--log-level", "WARNING"))
        children.append(_spawn("projector", "--log-level", "WARNING"))
        children.append(_spawn("worker", "--webhooks", "--log-level", "WARNING"))
        _wait_ready(url, children)
        click.echo(f"Open the lobby in a browser: {url}/")
        click.echo(f"Risk server on {url}  (API docs: {url}/docs, spec: {url}/openapi.yaml)")
        if demo:
            _demo(url, [b.strip() for b in bots.split(",") if b.strip()])
        click.echo("Ctrl-C stops everything.")
        while all(child.poll() is None for child in children):
            time.sleep(0.2)
        exited = next(child for child in children if child.poll() is not None)
        click.echo(f"a child process exited with {exited.returncode}; stopping", err=True)
    except _Stopped:
        pass
    finally:
        for signum in STOP_SIGNALS:  # a second signal must not cut the clean-up short
            signal.signal(signum, signal.SIG_IGN)
        _stop(children)


def _check_port_free(host: str, port: int) -> None:
    """Fail before starting or printing anything if something listens on ``port``."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
        try:
            probe.bind((host, port))
        except OSError as error:
            raise click.ClickException(
                f"cannot use {host}:{port} ({error.strerror}): is another server "
                "(another `risk dev`?) running there? Stop it, or pick another --port."
            ) from None


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    """A child in its own process group, so Ctrl-C reaches it only through us; told by
    the kernel to stop if we die (Linux), so even a SIGKILL of ``risk dev`` leaves none."""
    return subprocess.Popen(
        [*RISK, *args], start_new_session=True, preexec_fn=_stop_with_parent(os.getpid())
    )


def _stop_with_parent(parent: int) -> Callable[[], None] | None:
    """What the child runs before ``exec``: ``prctl(PR_SET_PDEATHSIG, SIGTERM)``."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1

    def arm() -> None:
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
        if os.getppid() != parent:  # we died before the line above: stop at once
            os._exit(1)

    return arm


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
    # The seat link keeps the token in the fragment, which the browser never sends.
    click.echo(f"  play it in the browser: {url}/games/{game}#seat={seat}&token={token}")
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
