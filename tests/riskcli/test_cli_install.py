"""The wheel with the `cli` extra gives a `risk` that works without the server stack.

The promise is about what gets imported and installed, which an
in-process test cannot see: the dev virtualenv has every extra, and a test
process has long since imported Flask and Redis. So one test checks the
imports in a fresh interpreter, and one builds the sdist and the wheel as
`make dist` does, installs the wheel into a fresh virtualenv with the `cli`
extra only (docs/install.md), and runs the offline commands there. No
package index has riskcore: every hint names where this copy came from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "riskcore" / "data" / "record-v1-classic-3p.jsonl"
SERVER_STACK = (
    "flask",
    "werkzeug",
    "marshmallow",
    "redis",
    "hiredis",
    "rq",
    "gunicorn",
    "prometheus_client",
    "yaml",
)
OURS_FOR_THE_SERVER = ("service", "workers", "riskcli.serve", "riskcli.worker", "riskcli.dev")
SERVER_COMMANDS = ("serve", "worker", "relay", "dev")
# The dev virtualenv holds this checkout, installed editable (`make test`).
INSTALL_HINT = f"pip install -e '{ROOT}[server]'"

OFFLINE_RUN = """
import contextlib, io, json, sys
from riskcli.main import main

record = sys.argv[1]
for args in (
    ["--help"],
    ["odds", "3", "2", "--json"],
    ["map", "classic"],
    ["simulate", "--players", "2", "--games", "1"],
    ["verify", record],
    ["replay", record, "--to", "20"],
    ["replay", record, "--summary"],
):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(args, standalone_mode=False)
        except SystemExit as exit:
            code = exit.code
    assert code in (0, None), (args, code)
print(json.dumps(sorted(sys.modules)))
"""


def loaded_from_the_server(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] in SERVER_STACK
        or any(m == ours or m.startswith(ours + ".") for ours in OURS_FOR_THE_SERVER)
    ]


def test_offline_commands_import_nothing_of_the_server() -> None:
    out = subprocess.run(
        [sys.executable, "-c", OFFLINE_RUN, str(RECORD)], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert loaded_from_the_server(json.loads(out.stdout)) == []


@pytest.mark.parametrize(
    ("command", "missing"),
    [
        ("serve", "gunicorn"),
        ("worker", "rq"),
        ("relay", "redis"),
        ("dev", "gunicorn"),
        ("dev", "rq"),
    ],
)
def test_a_missing_server_extra_gives_the_install_line(command: str, missing: str) -> None:
    """Here the server stack is installed, so one of its modules is blocked instead.

    `--help` is passed so that, should the block not bite, the command
    prints its help rather than starting a server.
    """
    block = f"import sys; sys.modules[{missing!r}] = None\n"
    result = subprocess.run(
        [sys.executable, "-c", block + "from riskcli.main import main; main()", command, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout
    assert result.stderr.splitlines() == [
        f"Error: `risk {command}` needs the server extra (no module {missing!r}): " + INSTALL_HINT
    ]


def _copy_checkout(target: Path) -> Path:
    """The sdist's sources, copied so the build writes nothing into the work tree."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    for name in ("riskcore", "riskcli", "service", "workers"):
        shutil.copytree(ROOT / name, target / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, target / name)
    return target


def test_the_wheel_with_the_cli_extra_alone_runs_the_offline_commands(tmp_path: Path) -> None:
    source = _copy_checkout(tmp_path / "source")
    venv = tmp_path / "venv"
    # Nothing of this interpreter's environment may leak into the new one.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.pop("VIRTUAL_ENV", None)

    def run(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(a) for a in args], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        if check:
            assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result

    # As `make dist` builds them, the wheel from the sdist, with the dev extra's
    # setuptools rather than one installed into an isolated env for each step.
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", tmp_path / "dist", source)
    [sdist] = (tmp_path / "dist").glob("riskcore-*.tar.gz")
    [wheel] = (tmp_path / "dist").glob("riskcore-*-py3-none-any.whl")
    assert sdist.name.removesuffix(".tar.gz") == wheel.name.removesuffix("-py3-none-any.whl")
    # No pip of its own (ensurepip is the slow part): this interpreter's pip installs into it.
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python, risk = venv / "bin" / "python", venv / "bin" / "risk"
    pip = (sys.executable, "-m", "pip", "--python", python)
    run(*pip, "install", "--quiet", f"{wheel}[cli]")
    hint = f"pip install '{wheel}[server]'"

    for module in ("flask", "marshmallow", "redis", "rq", "gunicorn"):
        assert run(python, "-c", f"import {module}", check=False).returncode == 1, module
    run(python, "-c", "import click")

    assert "serve" in run(risk, "--help").stdout
    summary = json.loads(run(risk, "simulate", "--players", "3", "--games", "2", "--json").stdout)
    assert summary["games"] == 2 and sum(summary["wins"].values()) == 2
    assert "VERIFIED" in run(risk, "verify", RECORD).stdout
    assert "at version 20" in run(risk, "replay", RECORD, "--to", "20").stdout
    assert json.loads(run(risk, "odds", "3", "2", "--json").stdout)["win"]

    for command in SERVER_COMMANDS:
        for args in ([command], [command, "--help"]):
            result = run(risk, *args, check=False)
            assert result.returncode == 1, (args, result.stdout, result.stderr)
            assert "Traceback" not in result.stderr
            [line] = result.stderr.strip().splitlines()
            assert line.endswith(hint), line
    result = run(risk, "replay", RECORD, "--chart", tmp_path / "chart.png", check=False)
    assert result.stderr.strip().endswith(f"pip install '{wheel}[charts]'"), result.stderr

    # The wheel without an extra installs the script but not click: still one line.
    run(*pip, "uninstall", "--quiet", "--yes", "click")
    result = run(risk, "--help", check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == f"the risk command needs click: pip install '{wheel}[cli]'"
