"""`risk dev` (issue 8), as a newcomer runs it: it starts everything, prints a
token and a first move that work, a bot answers, and Ctrl-C leaves nothing."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
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
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        output = read_until(process, "Ctrl-C stops everything")
        children = descendants(process.pid)
        assert len(children) >= 2
        assert f"http://127.0.0.1:{port}/docs" in output
        game = re.search(r"Demo game (\S+):", output)
        token = re.search(r"your seat token: (\S+)", output)
        move = re.search(r"first move: +(curl .+)$", output, flags=re.M)
        assert game and token and move
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
