"""Generated clients work out of the box (issue 20), against real `risk serve` and `risk worker`.

``scripts/clients.py`` (``make clients``) generates the Python client with
openapi-python-client and the TypeScript types with openapi-typescript, at the
versions pinned in clients/, fails on any warning either prints, and
type-checks clients/example.ts with ``tsc --strict``. Here it runs, and then
clients/play.py plays a whole game with the generated Python client only: in
the generators' own venv, where nothing of this project is installed.
Without the generators the tests skip, naming the install command
(``.ci/run`` runs it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, Stack, http

pytestmark = pytest.mark.e2e
TOOLS = ROOT / ".clients"
INSTALL = "make clients-tools"
if (
    not (TOOLS / "venv" / "bin" / "openapi-python-client").exists()
    or not (TOOLS / "node" / "node_modules" / ".bin" / "tsc").exists()
):
    pytest.skip(f"the client generators are not installed: {INSTALL}", allow_module_level=True)


def generate() -> Path:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "clients.py"), "generate"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def generated() -> Path:
    return generate()


def test_both_generators_run_without_a_warning_and_the_example_type_checks(
    generated: Path,
) -> None:
    # generate() fails on a warning of either generator or an error of tsc --strict.
    package = generated / "risk_client"
    assert (package / "api" / "records" / "verify_record.py").exists()  # no endpoint left out
    assert (package / "models" / "seat_request.py").exists() is False  # a union, not a model
    types = (generated / "api.d.ts").read_text()
    # No documented object comes out as an object without members.
    assert not re.findall(r"\w+\??: Record<string, never>", types)
    assert (generated / "example.ts").read_text() == (ROOT / "clients" / "example.ts").read_text()
    # Public operations take a plain client; seat operations an authenticated one.
    create = (package / "api" / "games" / "create_game.py").read_text()
    assert "client: AuthenticatedClient | Client," in create
    legal = (package / "api" / "play" / "list_legal_actions.py").read_text()
    assert "client: AuthenticatedClient," in legal
    assert generate() == generated  # the same spec is not generated twice


@pytest.mark.timeout(900)
def test_the_generated_python_client_plays_a_whole_game(generated: Path, stack: Stack) -> None:
    env = {**os.environ, "PYTHONPATH": str(generated)}
    done = subprocess.run(
        [str(TOOLS / "venv" / "bin" / "python"), str(ROOT / "clients" / "play.py"), stack.url],
        cwd=generated,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    status, game = http("GET", f"{stack.url}/v1/games/{summary['game_id']}")
    assert status == 200
    assert game["status"] == summary["status"] == "finished"
    assert summary["winner"] == game["winner"] is not None
    assert summary["version"] == game["version"]
    # Commands taken from legal actions (with their bounds) and ones built from a dict.
    assert summary["commands"]["legal action"] > 0 and summary["commands"]["dict"] > 0
    # The stream of a finished game, read whole: every event once; the record verifies.
    assert summary["streamed_events"] == game["version"]
    assert summary["record_lines"] >= game["version"] + 1
    assert summary["verdict"] == "verified"
