"""`risk dev` (issue 8), as a newcomer runs it: it starts everything, prints a
token and a first move that work, a bot answers, and Ctrl-C leaves nothing.
Issue 13 item 9: nor does closing the terminal, SIGTERM or its own SIGKILL, and
a port already in use stops it before it prints or starts anything."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.e2e.conftest import RISK, ROOT, free_port, http

pytestmark = pytest.mark.e2e


def read_until(process: subprocess.Popen[str], marker: str, timeout: float = 60) -> str:
    seen = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"no {marker!r} in the output:\n{''.join(seen)}")


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found |= {int(entry.name), *descendants(int(entry.name))}
    return found


def test_risk_dev_serves_a_playable_demo_and_stops_cleanly(stack_env: dict[str, str]) -> None:
    port = free_port()
    process = subprocess.Popen(
        [*RISK, "dev", "--port", str(port)],
        cwd=ROOT,
        env=stack_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # as a terminal shows both
        text=True,
    )
    try:
        output = read_until(process, "Ctrl-C stops everything")
        children = descendants(process.pid)
        assert len(children) >= 2
        assert f"http://127.0.0.1:{port}/docs" in output
        # The lobby first (issue 33), then a link that opens the demo seat in a browser;
        # first in the terminal too, not after gunicorn's and the migrations' lines (issue
        # 51: the children log warnings and errors only).
        assert output.splitlines()[0] == f"Open the lobby in a browser: http://127.0.0.1:{port}/"
        game = re.search(r"Demo game (\S+):", output)
        token = re.search(r"your seat token: (\S+)", output)
        move = re.search(r"first move: +(curl .+)$", output, flags=re.M)
        assert game and token and move
        link = f"http://127.0.0.1:{port}/games/{game.group(1)}#seat=p1&token={token.group(1)}"
        assert f"play it in the browser: {link}" in output
        before = http("GET", f"http://127.0.0.1:{port}/v1/games/{game.group(1)}")[1]["version"]
        answer = subprocess.run(shlex.split(move.group(1)), capture_output=True, text=True)
        assert '"version"' in answer.stdout, answer.stdout
        deadline = time.monotonic() + 10
        bot_moved = False
        while time.monotonic() < deadline and not bot_moved:
            url = f"http://127.0.0.1:{port}/v1/games/{game.group(1)}/events?since={before}&wait=5"
            page = http("GET", url)[1]
            bot_moved = any(e.get("bot") for e in page["events"])
        assert bot_moved, "no bot answered the first move"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
        assert process.stdout is not None
        process.stdout.close()
    time.sleep(0.5)
    alive = [pid for pid in children if os.path.exists(f"/proc/{pid}")]
    assert alive == [], f"processes left running: {alive}"


def alive(pids: set[int]) -> list[int]:
    """Those of ``pids`` still running (zombies count as gone)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running


def gone_within(pids: set[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGKILL])
def test_risk_dev_leaves_no_child_running_whatever_stops_it(
    stack_env: dict[str, str], signum: signal.Signals
) -> None:
    """SIGHUP is the terminal closing; SIGKILL leaves risk dev no time to clean up,
    so its children must notice their parent's death by themselves."""
    process = subprocess.Popen(
        [*RISK, "dev", "--port", str(free_port()), "--no-demo"],
        cwd=ROOT,
        env=stack_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    children: set[int] = set()
    try:
        read_until(process, "Ctrl-C stops everything")
        children = descendants(process.pid)
        assert len(children) >= 3  # gunicorn's master and worker, risk worker
        process.send_signal(signum)
        process.wait(30)
        assert gone_within(children, 20) == [], f"left running after {signum.name}"
    finally:
        for pid in alive(children):  # do not leave them to the next test
            os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()


@pytest.fixture
def old_server() -> Iterator[int]:
    """Something on a port that answers every GET with 200, as an earlier server would."""

    class Ready(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"status": "ready"}')

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Ready)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_risk_dev_refuses_a_port_in_use_before_printing_or_starting_anything(
    stack_env: dict[str, str], old_server: int
) -> None:
    result = subprocess.run(
        [*RISK, "dev", "--port", str(old_server), "--no-demo"],
        cwd=ROOT,
        env=stack_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode != 0
    assert result.stdout == ""
    assert f"127.0.0.1:{old_server}" in result.stderr and "--port" in result.stderr
