"""End to end (issue 19): a tournament of two bot levels and one HTTP bot, run by the
real `risk serve` and `risk worker`, the HTTP bot being examples/http_bot.py started
by the test; every game finishes, the standings and ratings agree with the results,
and every record verifies."""

from __future__ import annotations

import subprocess
import sys

import pytest

from riskcli.audit import verify_offline
from tests.e2e.conftest import ROOT, Stack, http

pytestmark = pytest.mark.e2e


def record(url: str, game: str) -> str:
    import urllib.request

    with urllib.request.urlopen(f"{url}/v1/games/{game}/record", timeout=30) as response:
        return str(response.read().decode())


def test_a_tournament_of_two_levels_and_an_http_bot_plays_out(stack: Stack) -> None:
    body = {
        "entrants": [{"level": "easy"}, {"level": "medium"}, {"kind": "http", "name": "visitor"}],
        "players": 3,
        "format": "games_per_pairing",
        "games": 2,
        "parallel": 2,
    }
    status, created = http("POST", f"{stack.url}/v1/tournaments", body)
    assert status == 201, created
    tid, token = created["tournament"]["tournament_id"], created["tokens"]["e3"]
    command = [sys.executable, "examples/http_bot.py", "--api", stack.url, "--seed", "7"]
    bot = subprocess.Popen(
        [*command, "--tournament", tid, "--token", token],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        out, _ = bot.communicate(timeout=280)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0
    status, done = http("GET", f"{stack.url}/v1/tournaments/{tid}")
    assert status == 200 and done["status"] == "finished" and done["games_finished"] == 2

    wins = dict.fromkeys(["e1", "e2", "e3"], 0.0)
    for game in done["games"]:
        status, summary = http("GET", f"{stack.url}/v1/games/{game['game_id']}")
        assert summary["status"] == "finished"
        seats = {s["id"]: s for s in summary["seats"]}
        visitor = f"p{game['seats'].index('e3') + 1}"
        assert seats[visitor]["controller"] == "human"
        levels = {s["level"] for s in seats.values() if s["controller"] == "bot"}
        assert levels == {"easy", "medium"}
        for winner in game["winners"]:
            wins[winner] += 1 / len(game["winners"])
        verdict = verify_offline(record(stack.url, game["game_id"]))
        assert verdict.ok, verdict.to_dict()
        events = http("GET", f"{stack.url}/v1/games/{game['game_id']}/events?limit=1000")[1]
        assert any(e["actor"] == visitor and not e["bot"] for e in events["events"])
    rows = {row["entrant"]: row for row in done["standings"]}
    assert {e: rows[e]["wins"] for e in rows} == wins
    assert all(row["games"] == 2 for row in rows.values())
    ranked = [row["rating"]["ordinal"] for row in done["standings"]]
    assert ranked == sorted(ranked, reverse=True)
    assert '"standings"' in out.decode()  # the bot printed the final table
