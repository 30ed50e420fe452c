"""The compiled build (setup.py, ``make compiled``) behaves as the pure-Python one:
the same seeds give byte-identical event streams, in every built-in mode, with
random and heuristic bots (issue 18, "a compiled build": "a test proves they
produce byte-identical event streams for the same seeds").

This process plays the games with the riskcore it imports; the other build's
interpreter plays them again (tests/riskcore/build_streams.py). ``make test``
runs the test on both builds; without a compiled build it skips, saying so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.riskcore import build_streams

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(build_streams.__file__)
# Each build's interpreter: the virtualenvs of `make` (overridable).
PYTHONS = {
    "pure": os.environ.get("RISKCORE_PURE_PYTHON", str(ROOT / ".venv/bin/python")),
    "compiled": os.environ.get("RISKCORE_COMPILED_PYTHON", str(ROOT / ".venv-compiled/bin/python")),
}


def test_both_builds_record_byte_identical_event_streams(tmp_path: Path) -> None:
    here = build_streams.build()
    other = "pure" if here == "compiled" else "compiled"
    python = PYTHONS[other]
    if not Path(python).exists():
        pytest.skip(f"no {other} build to compare with ({python}); `make compiled` builds it")
    ran = subprocess.run(
        [python, str(SCRIPT)],
        cwd=tmp_path,  # not the repository: its riskcore/ would come first on the path
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert ran.returncode == 0, ran.stderr
    theirs = json.loads(ran.stdout)
    assert theirs["build"] == other, f"{python} imported the {theirs['build']} riskcore"
    ours = build_streams.streams()
    assert sum(game["events"] for game in ours) > 3000  # whole games, not openings
    assert theirs["streams"] == ours, f"{sys.executable} ({here}) and {python} ({other}) differ"
