"""Real processes for end-to-end tests: `risk serve`, `risk worker`, `risk dev`.

Each test gets its own Redis database (the xdist worker's) and key prefix,
free ports, and a teardown that stops every child and checks none is left.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.http.http_json import call

ROOT = Path(__file__).resolve().parents[2]
RISK = [sys.executable, "-m", "riskcli"]
CHROMIUM_INSTALL = "apt-get install -y chromium chromium-driver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
STOP_SECONDS = 30  # for a child to stop on SIGTERM before the test fails


def skip_without_chromium() -> None:
    """Skip the calling module, at its import, without selenium or the system Chromium.

    Each browser module calls this before it imports test_board_browser's helpers:
    once pytest has collected that module as skipped, importing names from it fails
    (a collection error, not a skip).
    """
    pytest.importorskip("selenium.webdriver", reason="pip install selenium")
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip(f"no system Chromium: {CHROMIUM_INSTALL}", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


http = call  # the tests' name for it


def wait_ready(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if http("GET", url + "/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} never became ready")


@dataclass
class Stack:
    env: dict[str, str]
    url: str = ""
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: Path | None = None

    def start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        assert self.logs is not None
        with open(self.logs / f"{name}.log", "ab") as log:  # the child keeps its own copy
            process = subprocess.Popen(
                [*RISK, *args],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes[name] = process
        return process

    def log(self, name: str) -> str:
        assert self.logs is not None
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        # Every process is reaped, stopped or killed, before a failure is raised: a
        # process left unwaited fails a later test with a ResourceWarning instead. (30 s:
        # at a load of 15-20 on two cores the API took more than 15 s, twice in an hour.)
        stuck = []
        for name, process in self.processes.items():
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
                stuck.append(name)
        self.processes.clear()
        if stuck:
            pytest.fail(f"{', '.join(stuck)} did not stop on SIGTERM within {STOP_SECONDS} s")


@pytest.fixture
def stack_env(redis_url: str, key_prefix: str, redis: Any, sqlite_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        RISK_DATABASE_URL=sqlite_url,  # a migrated archive of the test's own (issue 48)
        RISK_KEY_PREFIX=key_prefix.replace("test:", "e2e-"),
        RISK_RATE_TOKEN="off",
        RISK_RATE_IP="off",
        RISK_GAMES_PER_ADDRESS="0",
        PYTHONUNBUFFERED="1",
    )
    return env


@contextmanager
def running_stack(env: dict[str, str], logs: Path) -> Iterator[Stack]:
    """`risk serve` (one worker process) and `risk worker` on a free port, ready."""
    port = free_port()
    result = Stack(env, url=f"http://127.0.0.1:{port}", logs=logs)
    result.start("api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1")
    result.start("worker", "worker", "--log-level", "WARNING")
    try:
        wait_ready(result.url)
        yield result
    finally:
        result.stop_all()


@pytest.fixture
def stack(stack_env: dict[str, str], tmp_path: Path) -> Iterator[Stack]:
    with running_stack(stack_env, tmp_path) as result:
        yield result
