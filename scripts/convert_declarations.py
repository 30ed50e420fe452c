"""Rewrite old event, command and mode declarations into the registered form.

Old form (a class decorator, and the wire name, version and secret fields in
the class body)::

    @register_event
    @dataclass(frozen=True, slots=True, kw_only=True)
    class MissionDealt(Event):
        TYPE = "mission_dealt"
        VERSION = 2
        SECRET = ("mission",)
        seat: str

New form (what mypyc can compile: no decorator but the dataclass, nothing in
the body but fields and methods, and a statement after the class)::

    @dataclass(frozen=True, slots=True, kw_only=True)
    class MissionDealt(Event):
        seat: str


    register_event(MissionDealt, "mission_dealt", version=2, secret=("mission",))

A command also gets the wire type of each body field (``fields={...}``), an event
the names of its fields that hold tuples (``tuples=(...)``), both written from
the annotations; ``@register_mode`` becomes ``register_mode(Cls)``.
Comments above or beside ``VERSION`` and ``SECRET`` move into the call. Run it
on the files to convert (default: riskcore/ and tests/); a converted file is
left as it is, so running it again changes nothing. The files it changed are
then formatted with ruff, if ruff is installed.

    python scripts/convert_declarations.py [FILE_OR_DIR ...] [--check]

``--check`` changes nothing and exits 1 if some file would change.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRATIONS = ("register_event", "register_command", "register_mode")
DECLARED = ("TYPE", "VERSION", "SECRET")
# The modules whose classes were registered by a table, not a decorator.
BASE_DECLARATIONS = {ROOT / "riskcore/protocol/events.py", ROOT / "riskcore/protocol/commands.py"}


@dataclass
class Conversion:
    """One class's rewrite: the lines to drop and the statement to add after it."""

    drop: set[int] = field(default_factory=set)  # 0-based line numbers
    after: int = 0  # 0-based line the statement goes after
    statement: str = ""
    empty_body_at: int | None = None  # where a `pass` goes if nothing is left


def _decorator_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _base_registration(cls: ast.ClassDef) -> str | None:
    """An undecorated class with TYPE in its body: an event or a command by its base."""
    for base in cls.bases:
        name = _decorator_name(base) or ""
        if name.endswith("Event"):
            return "register_event"
        if name.endswith("Command"):
            return "register_command"
    return None


def _comments_above(lines: list[str], lineno: int) -> list[int]:
    """The comment-only lines directly above 0-based ``lineno``."""
    found = []
    i = lineno - 1
    while i >= 0 and lines[i].strip().startswith("#"):
        found.append(i)
        i -= 1
    return sorted(found)


def _trailing_comment(line: str) -> str | None:
    """A ``# ...`` after code on ``line`` (the assignments here hold no '#' in strings)."""
    code, sep, comment = line.partition("  #")
    return f"#{comment.rstrip()}" if sep and code.strip() else None


def _convert_class(
    cls: ast.ClassDef, lines: list[str], source: str, registers_by_base: bool
) -> Conversion | None:
    decorators = [d for d in cls.decorator_list if _decorator_name(d) in REGISTRATIONS]
    assigns: dict[str, ast.Assign] = {}
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in DECLARED
        ):
            assigns[stmt.targets[0].id] = stmt
    if decorators:
        # As the module names it (``register_event`` or ``ev.register_event``).
        register = ast.get_source_segment(source, decorators[0]) or ""
    elif "TYPE" in assigns and registers_by_base:
        register = _base_registration(cls) or ""
    else:
        if "TYPE" in assigns:
            print(f"left as it is: {cls.name} sets TYPE but is never registered", file=sys.stderr)
        return None
    conversion = Conversion(after=(cls.end_lineno or cls.lineno) - 1)
    for decorator in decorators:
        end = decorator.end_lineno or decorator.lineno
        conversion.drop.update(range(decorator.lineno - 1, end))
    args: list[str] = [cls.name]
    keywords: list[tuple[list[str], str]] = []  # (comments, "name=value")
    for attr, stmt in assigns.items():
        span = range(stmt.lineno - 1, stmt.end_lineno or stmt.lineno)
        above = _comments_above(lines, stmt.lineno - 1)
        conversion.drop.update(span, above)
        comments = [lines[i].strip() for i in above]
        trailing = _trailing_comment(lines[span[-1]])
        if trailing:
            comments.append(trailing)
        value = ast.get_source_segment(source, stmt.value) or ast.unparse(stmt.value)
        if attr == "TYPE":
            args.append(value)
            keywords[:0] = [(comments, "")] if comments else []
        else:
            keywords.append((comments, f"{attr.lower()}={value}"))
    annotations = {
        stmt.target.id: ast.unparse(stmt.annotation)
        for stmt in cls.body
        if isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and "ClassVar" not in ast.unparse(stmt.annotation)
    }
    if register.endswith("register_command"):
        wire = {name: text for name, text in annotations.items() if name != "seat"}
        if wire:
            items = ", ".join(f'"{name}": "{text}"' for name, text in wire.items())
            keywords.append(([], f"fields={{{items}}}"))
    elif register.endswith("register_event"):
        tuples = [name for name, text in annotations.items() if text.startswith("tuple")]
        if tuples:
            names = ", ".join(f'"{name}"' for name in tuples) + ("," if len(tuples) == 1 else "")
            keywords.append(([], f"tuples=({names})"))
    conversion.statement = _call(register, args, keywords)
    kept = [s for s in cls.body if s not in assigns.values()]
    if not kept:
        conversion.empty_body_at = cls.body[0].lineno - 1
    return conversion


def _call(register: str, args: list[str], keywords: list[tuple[list[str], str]]) -> str:
    """The registration statement; ruff formats it afterwards if it is too long."""
    parts = args + [kw for _, kw in keywords if kw]
    if not any(comments for comments, _ in keywords):
        return f"{register}({', '.join(parts)})\n"
    out = [f"{register}(\n"]
    out += [f"    {arg},\n" for arg in args]
    for comments, kw in keywords:
        out += [f"    {c}\n" for c in comments]
        if kw:
            out.append(f"    {kw},\n")
    out.append(")\n")
    return "".join(out)


def convert_source(source: str, registers_by_base: bool = False) -> str:
    """The source with every old declaration rewritten (unchanged if there is none).

    ``registers_by_base``: the module registered its undecorated classes with a
    ``TYPE`` by a table (the base events and commands did); elsewhere such a class
    was never registered and is left alone.
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    conversions = [
        c
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and (c := _convert_class(node, lines, source, registers_by_base)) is not None
    ]
    if not conversions:
        return source
    drop = set().union(*(c.drop for c in conversions))
    after = {c.after: c for c in conversions}
    empty = {c.empty_body_at: c for c in conversions if c.empty_body_at is not None}
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in empty:
            out.append("    pass\n")
        if i not in drop:
            out.append(line)
        if i in after:
            # No blank line may end the class body once its last lines are gone.
            while out and not out[-1].strip():
                out.pop()
            out.append(f"\n\n{after[i].statement}")
    return "".join(out)


def _python_files(targets: list[str]) -> list[Path]:
    files: list[Path] = []
    for target in targets:
        path = Path(target)
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return [f for f in files if f.resolve() != Path(__file__).resolve()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=[str(ROOT / "riskcore"), str(ROOT / "tests")])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any would")
    options = parser.parse_args(argv)
    changed = []
    for path in _python_files(options.targets):
        source = path.read_text(encoding="utf-8")
        converted = convert_source(source, path.resolve() in BASE_DECLARATIONS)
        if converted != source:
            changed.append(path)
            if not options.check:
                path.write_text(converted, encoding="utf-8")
    for path in changed:
        print(f"{'would convert' if options.check else 'converted'} {path}")
    if changed and not options.check:
        ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
        if ruff:
            subprocess.run([ruff, "format", "--quiet", *map(str, changed)], check=True)
        else:
            print("ruff not found: run `ruff format` on the files above", file=sys.stderr)
    return 1 if changed and options.check else 0


if __name__ == "__main__":
    sys.exit(main())
