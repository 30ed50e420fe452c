"""Generate the API clients from openapi.yaml and check them (``make clients``).

``install`` puts the pinned generators in .clients/ (git-ignored): a venv with
openapi-python-client (clients/requirements.txt) and node_modules with
openapi-typescript and typescript (clients/package.json, its lock file).
``generate`` (the default) writes, under .clients/out/<key>/:

- ``risk_client/``: the Python client (openapi-python-client, with the
  settings of clients/openapi-python-client.yaml);
- ``api.d.ts``: the TypeScript types (openapi-typescript);

and type-checks clients/example.ts against the types with ``tsc --strict``.
A generator that prints anything but its own progress lines (a warning) fails
the run. ``<key>`` is a hash of everything the output depends on, so an
unchanged spec is not generated twice. The last line printed is the output
folder. Exit status 3: the tools are not installed (``make clients-tools``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi.yaml"
SOURCES = ROOT / "clients"
CACHE = ROOT / ".clients"
PYTHON_TOOLS = CACHE / "venv"
NODE_TOOLS = CACHE / "node"
GENERATOR = PYTHON_TOOLS / "bin" / "openapi-python-client"
TYPESCRIPT = NODE_TOOLS / "node_modules" / ".bin" / "openapi-typescript"
TSC = NODE_TOOLS / "node_modules" / ".bin" / "tsc"
INSTALL = "make clients-tools"
# What the generators print when all goes well; any other line is a warning.
PROGRESS = ("Generating ", "✨ openapi-typescript", "🚀 ")
# Fields with a server default are optional, in requests as the server reads them.
TS_FLAGS = ["--default-non-nullable", "false"]
TSC_FLAGS = (
    "--strict",
    "--noEmit",
    "--target",
    "es2022",
    "--module",
    "esnext",
    "--moduleResolution",
    "bundler",
    "--lib",
    "es2022,dom",
)


class Failed(Exception):
    pass


def _run(args: list[str], cwd: Path = ROOT) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise Failed(f"{' '.join(args)} failed ({done.returncode}):\n{output}")
    return output


def _stamp(folder: Path, *inputs: Path) -> tuple[Path, str]:
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in inputs)).hexdigest()
    return folder / ".installed", digest


def install() -> None:
    stamp, digest = _stamp(PYTHON_TOOLS, SOURCES / "requirements.txt")
    if not (stamp.exists() and stamp.read_text() == digest):
        venv.create(PYTHON_TOOLS, clear=True, with_pip=True)
        pip = [str(PYTHON_TOOLS / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
        _run([*pip, "install", "--quiet", "-r", str(SOURCES / "requirements.txt")])
        stamp.write_text(digest)
    lock = SOURCES / "package-lock.json"
    stamp, digest = _stamp(NODE_TOOLS, SOURCES / "package.json", lock)
    if not (stamp.exists() and stamp.read_text() == digest):
        if not shutil.which("npm"):
            raise Failed("npm is not installed (Node.js 20 or later: apt-get install -y npm)")
        NODE_TOOLS.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(SOURCES / name, NODE_TOOLS / name)
        _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NODE_TOOLS)
        stamp.write_text(digest)


def installed() -> bool:
    return all(tool.exists() for tool in (GENERATOR, TYPESCRIPT, TSC))


def _warnings(output: str) -> list[str]:
    lines = [line.strip() for line in output.splitlines()]
    return [line for line in lines if line and not line.startswith(PROGRESS)]


def generate() -> Path:
    if not installed():
        raise Failed(f"the client generators are not installed: {INSTALL}")
    config = SOURCES / "openapi-python-client.yaml"
    example = SOURCES / "example.ts"
    inputs = [SPEC, config, example, SOURCES / "requirements.txt", SOURCES / "package-lock.json"]
    key = hashlib.sha256(b"\0".join(p.read_bytes() for p in inputs)).hexdigest()[:16]
    done = CACHE / "out" / key
    if (done / ".ok").exists():
        return done
    # Built aside and renamed into place: two runs at once (pytest -n 2) never share a folder.
    (CACHE / "out").mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=CACHE / "out"))
    try:
        _generate_into(out, config, example)
        (out / ".ok").write_text(key)
        try:
            out.rename(done)
        except OSError:  # another run finished first: its output is the same
            if not (done / ".ok").exists():
                shutil.rmtree(done, ignore_errors=True)
                out.rename(done)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return done


def _generate_into(out: Path, config: Path, example: Path) -> None:
    said = _run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(SPEC),
            "--output-path",
            str(out / "risk_client"),
            "--meta",
            "none",
            "--config",
            str(config),
        ]
    )
    if _warnings(said):
        raise Failed(f"openapi-python-client warned:\n{said}")
    said = _run([str(TYPESCRIPT), str(SPEC), "-o", str(out / "api.d.ts"), *TS_FLAGS])
    if _warnings(said):
        raise Failed(f"openapi-typescript warned:\n{said}")
    shutil.copy(example, out / "example.ts")
    said = _run([str(TSC), *TSC_FLAGS, str(out / "example.ts")])
    if said.strip():
        raise Failed(f"tsc --strict:\n{said}")


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "generate"
    try:
        if command == "install":
            install()
            print(CACHE)
        elif command == "generate":
            print(generate())
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except Failed as error:
        print(error, file=sys.stderr)
        return 3 if not installed() else 1
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))
