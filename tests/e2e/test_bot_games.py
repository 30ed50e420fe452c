"""End to end (issue 18): all-bot games through the relay and two real `risk worker`
processes, one killed with SIGKILL in the middle: every game is played to its end,
its stream without a gap or a double move."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.conftest import http, running_stack

pytestmark = pytest.mark.e2e
BOTS = {"seats": [{"kind": "bot", "bot": "random"} for _ in range(4)]}


def _version(url: str, game: str) -> tuple[int, str]:
    status, view = http("GET", f"{url}/v1/games/{game}")
    assert status == 200
    return int(view["version"]), str(view["status"])


def test_bot_games_finish_though_a_worker_is_killed_in_the_middle(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    with running_stack(stack_env, tmp_path) as stack:
        stack.start("second", "worker", "--log-level", "WARNING")
        games = []
        for _ in range(6):
            status, created = http("POST", f"{stack.url}/v1/games", BOTS)
            assert status == 201
            games.append(created["game"]["game_id"])
        deadline = time.monotonic() + 60
        while max(_version(stack.url, g)[0] for g in games) < 300:
            assert time.monotonic() < deadline, "the bots did not play"
            time.sleep(0.05)
        stack.kill("worker")  # SIGKILL, in the middle of a job (it ran one at a time)
        running = [g for g in games if _version(stack.url, g)[1] == "running"]
        assert running, "the crash must come while games are being played"
        deadline = time.monotonic() + 120
        while any(_version(stack.url, g)[1] != "finished" for g in games):
            assert time.monotonic() < deadline, "a game stalled after the crash"
            time.sleep(0.2)
        for game in games:
            events = []
            while True:
                since = len(events)
                page = http("GET", f"{stack.url}/v1/games/{game}/events?since={since}&limit=1000")
                if not page[1]["events"]:
                    break
                events += page[1]["events"]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            assert events[-1]["event"]["type"] == "game_finished"
