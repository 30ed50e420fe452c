"""End to end (issue 48): a bot game played by real `risk serve`, `risk worker` and
`risk projector` processes is archived; its keys are then deleted from Redis and
every read still answers, from the archive, the record byte for byte, and
`risk verify` passes the downloaded record. On SQLite and on PostgreSQL."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import redis as redis_lib

from service.application.games import GameService
from service.store.keys import KeySpace
from tests.e2e.conftest import RISK, ROOT, http, running_stack

pytestmark = pytest.mark.e2e
BOTS = {"seats": [{"kind": "bot", "bot": "random"} for _ in range(3)]}
READS = ("", "/record", "/events?limit=1000", "/state?version=7", "/summary")


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _wait(what: str, done: object, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not done():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_finished_bot_game_answers_from_the_archive_once_redis_lost_it(
    stack_env: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    env = stack_env | {"RISK_DATABASE_URL": database_url}
    with running_stack(env, tmp_path) as stack:
        stack.start("projector", "projector", "--log-level", "WARNING")
        status, created = http("POST", f"{stack.url}/v1/games", BOTS)
        assert status == 201
        game = created["game"]["game_id"]
        _wait(
            "the bots did not finish",
            lambda: http("GET", f"{stack.url}/v1/games/{game}")[1]["status"] == "finished",
        )
        listed = f"{stack.url}/v1/games?source=archive&status=finished"
        _wait("the projector did not archive it", lambda: http("GET", listed)[1]["games"], 30)
        assert http("GET", f"{stack.url}/readyz")[1]["archive"]["projectors_alive"] == 1
        before = {path: _get(f"{stack.url}/v1/games/{game}{path}") for path in READS}
        page = _get(f"{stack.url}/games/{game}")
        store = redis_lib.Redis.from_url(env["REDIS_URL"])
        GameService(store, KeySpace(env["RISK_KEY_PREFIX"])).delete(game)  # Redis lost it
        store.close()
        assert http("GET", f"{stack.url}/v1/games?status=finished")[1]["games"] == []  # lobby
        for path in READS:
            assert _get(f"{stack.url}/v1/games/{game}{path}") == before[path], path
        assert _get(f"{stack.url}/games/{game}") == page
    record = tmp_path / f"{game}.jsonl"
    record.write_bytes(before["/record"][1])
    verified = subprocess.run(
        [*RISK, "verify", str(record)], cwd=ROOT, capture_output=True, text=True
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "VERIFIED" in verified.stdout
