"""docs/rules.md cannot drift from the engine, nor point outside the project.

The "Rule options" table is what users read to create a game, so its rows
must be exactly the options ``riskcore.model.options.OPTIONS`` declares:
same names, defaults and values, in declaration order. The page is the
project's own account of the rules: it names editions in words, never the
source files it was written from. Every error code it lists is one the
engine can raise.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from riskcore.model.options import OPTIONS, OptionSpec
from riskcore.modes import BUILT_IN_MODES, mode_named

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
HEADER = ["Option", "Default", "Values", "What it changes"]


def _section(title: str) -> str:
    """The text of the ``## title`` section, up to the next level-2 heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", DOC.read_text(), re.M | re.S)
    assert match, f"docs/rules.md has a '## {title}' section"
    return match.group(1)


def _table(section: str) -> list[list[str]]:
    """The first Markdown table of a section: its rows as lists of stripped cells."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _written(value: Any) -> str:
    """A value as the doc writes it: JSON-style booleans, bare strings, digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _values(spec: OptionSpec) -> str:
    if spec.choices is None:
        assert spec.bounds is not None
        low, high = spec.bounds
        return f"{low}–{high}"
    return ", ".join(_written(choice) for choice in spec.choices)


def test_the_options_table_is_the_declaration() -> None:
    header, rule, *rows = _table(_section("Rule options"))
    assert header == HEADER
    assert all(set(cell) <= set("-: ") for cell in rule)
    documented = [(name, default, values) for name, default, values, _ in rows]
    declared = [(f"`{s.name}`", _written(s.default), _values(s)) for s in OPTIONS]
    assert documented == declared
    assert all(what for *_, what in rows), "every option says what it changes"


def test_the_page_points_nowhere_outside_the_project() -> None:
    text = DOC.read_text()
    for reference in ("../shared", "RULES.md", "seeds/", ".txt"):
        assert reference not in text, f"docs/rules.md mentions {reference!r}"


def test_every_documented_error_code_is_raised_by_the_engine() -> None:
    header, _, *rows = _table(_section("Error codes"))
    assert header == ["Code", "Meaning"]
    source = "\n".join(p.read_text() for p in (ROOT / "riskcore").rglob("*.py"))
    codes = [code.strip("`") for code, _ in rows]
    assert codes, "the page lists error codes"
    missing = [code for code in codes if f'"{code}"' not in source]
    assert missing == []


def test_how_each_mode_is_won_is_what_the_modes_declare() -> None:
    """Issue 53: each mode declares its win condition once (``GameMode.win_condition``);
    the page's table is those words, mode by mode, in the engine's order."""
    header, _, *rows = _table(_section("Game modes").split("### How each mode is won", 1)[1])
    assert header == ["Mode", "How it is won"]
    assert rows == [[f"`{m}`", mode_named(m).win_condition] for m in BUILT_IN_MODES]
