"""End to end (issue 6): a person plays over HTTP against bots run by real
`risk worker` processes, behind a real `risk serve`; a worker is killed in
the middle and restarted, and nothing is lost."""

from __future__ import annotations

import importlib.util
import itertools
import random
import threading
import time
from datetime import datetime
from typing import Any

import pytest

from tests.e2e.conftest import ROOT, Stack, http

pytestmark = pytest.mark.e2e


def load_example_bot() -> Any:
    """The stand-alone example, imported by path: it is a script, not a module of ours."""
    spec = importlib.util.spec_from_file_location("http_bot", ROOT / "examples" / "http_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def all_events(url: str, game: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        status, page = http("GET", f"{url}/v1/games/{game}/events?since={len(events)}&limit=1000")
        assert status == 200
        if not page["events"]:
            return events
        events += page["events"]


def ms(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["time"]).timestamp() * 1000


def test_a_person_plays_two_bots_to_the_end_through_a_worker_crash(stack: Stack) -> None:
    status, created = http(
        "POST",
        f"{stack.url}/v1/games",
        {
            "seats": [
                {"kind": "human", "name": "Ada"},
                {"kind": "bot", "bot": "random"},
                {"kind": "bot", "bot": "heuristic"},
            ]
        },
    )
    assert status == 201
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    example = load_example_bot()
    outcome: dict[str, Any] = {}
    player = threading.Thread(
        target=lambda: outcome.update(
            example.play(example.Api(stack.url, token), game, random.Random(3))
        ),
        daemon=True,
    )
    player.start()
    while http("GET", f"{stack.url}/v1/games/{game}")[1]["version"] < 60:
        time.sleep(0.02)
    status, view = http("GET", f"{stack.url}/v1/games/{game}")
    assert view["status"] == "running", "the crash must come in the middle of the game"
    killed_at = time.time() * 1000
    stack.kill("worker")  # SIGKILL, maybe in the middle of a bot's turn
    time.sleep(0.5)
    stack.start("worker", "worker", "--log-level", "WARNING")
    restarted_at = time.time() * 1000
    player.join(timeout=240)
    assert not player.is_alive(), "the game did not finish"
    assert outcome["status"] == "finished"

    events = all_events(stack.url, game)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["event"]["type"] == "game_finished"
    late = []
    for before, after in itertools.pairwise(events):
        started = before["event"]
        if started["type"] == "turn_started" and started["seat"] != "p1":
            waited = ms(after) - ms(before)
            in_crash = killed_at - 1000 <= ms(before) <= restarted_at + 8000
            if not in_crash and waited > 1000:
                late.append((before["version"], waited))
    assert late == [], f"bot turns that started more than 1 s late: {late}"
    bot_moves = [e for e in events if e.get("bot")]
    assert {e["bot"]["name"] for e in bot_moves} >= {"random", "heuristic"}
