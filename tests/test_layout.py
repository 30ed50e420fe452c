"""The dependency direction of docs/engine.md, "Layers", checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("flask", "redis", "rq", "marshmallow", "service", "workers", "click")


def test_riskcore_imports_nothing_from_the_server_stack() -> None:
    code = (
        "import json, pkgutil, importlib, sys, riskcore\n"
        "for m in pkgutil.walk_packages(riskcore.__path__, 'riskcore.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = json.loads(out.stdout)
    leaked = [m for m in loaded if m.split(".")[0] in FORBIDDEN]
    assert leaked == []


def test_openapi_document_parses() -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert spec["openapi"].startswith("3.1")
    assert spec["paths"]


def test_readme_opens_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    first_blocks = [b for b in text.split("```") if b.strip().startswith(("make", "bash"))]
    lines = [
        line.split("#")[0].strip() for block in first_blocks[:1] for line in block.splitlines()
    ]
    commands = [line for line in lines if line and line != "bash"]
    assert commands[:2] == ["make run", "make test"]


def test_readme_layout_names_every_folder_and_the_engine_layers() -> None:
    """README's "Layout" lists the repository's folders, and riskcore's layers in the
    order of .importlinter's contract (top first), so it cannot drift from either."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Layout", 1)[1].split("```")[1]
    listed = [line.split()[0] for line in block.splitlines() if line and not line[0].isspace()]
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folders = {f"{path.split('/')[0]}/" for path in tracked if "/" in path}
    assert sorted(listed) == sorted(f for f in folders if not f.startswith("."))

    contract = (ROOT / ".importlinter").read_text().split("contract:engine-layers", 1)[1]
    layers = contract.split("layers =", 1)[1].split("containers", 1)[0].split()
    riskcore = block.split("riskcore/", 1)[1].split("riskcli/", 1)[0]
    named = riskcore.split(":", 1)[1].split("(", 1)[0].replace(",", " ").split()
    assert named == [layer for layer in layers if layer != "errors"]
