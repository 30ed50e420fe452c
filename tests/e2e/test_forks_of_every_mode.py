"""End to end (issue 53): finished Lord of the Rings games, analysed and forked.

Three random bots play a Lord of the Rings game (the adventure pile and all)
to its end through `risk serve` and `risk worker`; the worker analyses it at
depth 1; the game is then forked at a middle version and at the last one
before its final command (inside it, `fork_at_end`, issue 54)
(a fork of that mode was refused before, `fork_not_supported`). Each fork's
bots play it to its end and `risk verify` checks the fork's record alone and
with `--parent`.
"""

from __future__ import annotations

import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from riskcore.audit.gamerecord import parse_record
from tests.e2e.conftest import RISK, ROOT, Stack, http

pytestmark = pytest.mark.e2e
BOTS = [{"kind": "bot", "bot": "random"} for _ in range(3)]


def _finished(stack: Stack, game: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status, view = http("GET", f"{stack.url}/v1/games/{game}")
        assert status == 200
        if view["status"] == "finished":
            return dict(view)
        assert time.monotonic() < deadline, f"game {game} did not end: {view['status']}"
        time.sleep(0.2)


def _record(stack: Stack, game: str, where: Path) -> Path:
    """The game's record (JSON lines, so not through ``http``), in a file."""
    with urllib.request.urlopen(f"{stack.url}/v1/games/{game}/record", timeout=40) as answer:
        path = where / f"{game}.jsonl"
        path.write_bytes(answer.read())
    return path


def _verify(record: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RISK, "verify", str(record), *more], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def _analysed(stack: Stack, game: str) -> dict[str, Any]:
    status, started = http("POST", f"{stack.url}/v1/games/{game}/analysis", {"depth": 1})
    assert status in (200, 202), started
    deadline = time.monotonic() + 60
    while True:
        status, found = http("GET", f"{stack.url}/v1/games/{game}/analysis?depth=1")
        if status == 200 and found["status"] == "done":
            return dict(found["report"])
        assert time.monotonic() < deadline, f"no analysis: {found}"
        time.sleep(0.2)


def _before_final_command(record: Path) -> int:
    """The last version a fork may start from: the one before the final command's
    events (a fork inside that command is refused as ``fork_at_end``, issue 54)."""
    entries = parse_record(record.read_text()).entries
    return max(entry.version for entry in entries if "c" in entry.payload) - 1


def test_a_lord_of_the_rings_game_is_analysed_and_forked_and_the_forks_verify(
    stack: Stack, tmp_path: Path
) -> None:
    status, created = http("POST", f"{stack.url}/v1/games", {"mode": "lotr", "seats": BOTS})
    assert status == 201, created
    parent = created["game"]["game_id"]
    end = _finished(stack, parent)
    assert end["mode"] == "lotr" and end["winners"]
    parent_record = _record(stack, parent, tmp_path)
    report = _analysed(stack, parent)
    assert report, "the worker's analysis of a Lord of the Rings game"
    last = _before_final_command(parent_record)
    for at in (int(end["version"]) // 2, last):
        status, forked = http(
            "POST", f"{stack.url}/v1/games/{parent}/fork", {"version": at, "seats": BOTS}
        )
        assert status == 201, forked
        fork = forked["game"]["game_id"]
        page = http("GET", f"{stack.url}/v1/games/{fork}/events?since=0&limit=3")[1]
        types = [e["event"]["type"] for e in page["events"]]
        assert types == ["game_forked", "deck_shuffled", "adventure_deck_shuffled"]
        _finished(stack, fork)
        record = _record(stack, fork, tmp_path)
        alone = _verify(record)
        assert alone.returncode == 0, alone.stdout + alone.stderr
        with_parent = _verify(record, "--parent", str(parent_record))
        assert with_parent.returncode == 0, with_parent.stdout + with_parent.stderr
