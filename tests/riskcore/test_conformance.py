"""docs/conformance.md, the table of every rule of the five books, holds to the code.

The table is data (one Markdown row per rule): each row names its book, the
passage in the book's own words, the engine's reading and the test that
checks it. This module fails when a named test does not exist, when an
option a row names is not declared, when a test cites a rule the table does
not list (the citation convention: a ``# rule: <id>`` line in the test's
body), and, where the books are next to the checkout, when a passage is not
in its book word for word.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from riskcore.model.options import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "conformance.md"
TESTS = ROOT / "tests"
SEEDS = ROOT.parent / "shared" / "seeds"
BOOKS = ("000", "001", "002", "003", "004")
READINGS = ("follows", "option", "ours", "n/a")
CITATION = re.compile(r"^\s*# rule: (\S+)\s*$", re.M)
ROW_ID = re.compile(r"^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*$")


# A Test cell: one or more citations, each a test with the options it runs under when the
# row's passage depends on an option (tests/riskcore/test_conformance_options.py):
# `file.py::test_name` (defaults) | (`mode` defaults) | (`option: value`, ...), joined by "; ".
CITED = re.compile(r"`(?P<test>[^`]+\.py::\w+)`(?: \((?P<claim>[^)]*)\))?")


@dataclass(frozen=True)
class Citation:
    test: str  # "file.py::test_name" under tests/riskcore
    claim: str | None  # the options it runs under, as written, or None


@dataclass(frozen=True)
class Row:
    rule: str
    book: str
    passage: str
    english: str
    engine: str
    citations: tuple[Citation, ...]  # none for n/a rows

    @property
    def test(self) -> str | None:
        """The first test the row names (None for n/a rows)."""
        return self.citations[0].test if self.citations else None


def _citations(cell: str) -> tuple[Citation, ...]:
    if cell == "—":
        return ()
    found = [CITED.fullmatch(part.strip()) for part in cell.split("; ")]
    assert all(found), f"a Test cell is `file.py::test` (claim); ...: {cell!r}"
    return tuple(Citation(m["test"], m["claim"]) for m in found if m)


def _cells(line: str) -> list[str]:
    """A table line's cells (``\\|`` is a bar inside a cell)."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [part.strip().replace("\\|", "|") for part in parts]


def rows() -> list[Row]:
    lines = TABLE.read_text("utf-8").splitlines()
    start = lines.index("| Rule | Book | Passage | English | Engine | Test |")
    found = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rule, book, passage, english, engine, test = _cells(line)
        found.append(
            Row(
                rule=rule.strip("`"),
                book=book,
                passage=passage.removeprefix("«").removesuffix("»"),
                english=english,
                engine=engine,
                citations=_citations(test),
            )
        )
    return found


ROWS = rows()


def _functions(path: Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(path.read_text("utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def citations() -> Iterator[tuple[str, str]]:
    """Every ``# rule:`` citation in the tests: (where, rule id)."""
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text("utf-8")
        for match in CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            yield f"{path.relative_to(ROOT)}:{line}", match.group(1)


def test_the_table_lists_every_book_with_one_row_per_rule() -> None:
    """Issue 35: every rule of every book, 150 to 250 expected."""
    ids = [row.rule for row in ROWS]
    assert len(ids) == len(set(ids)), "each rule is listed once"
    assert 150 <= len(ROWS) <= 300
    assert {row.book for row in ROWS} == set(BOOKS)
    for row in ROWS:
        match = ROW_ID.match(row.rule)
        assert match and match.group(1) == row.book, row.rule
        assert row.passage and row.english, row.rule


def test_every_row_says_how_the_engine_reads_it_and_names_real_options() -> None:
    declared = {spec.name for spec in OPTIONS}
    for row in ROWS:
        assert row.engine.startswith(READINGS), f"{row.rule}: {row.engine!r}"
        if row.engine.startswith("option"):
            named = re.findall(r"`([a-z_]+)`", row.engine)
            assert named and set(named) <= declared | {"set_defence"}, row.rule
        assert (row.test is None) == row.engine.startswith("n/a"), row.rule


def test_every_test_the_table_names_exists() -> None:
    """A row's test is a function of a test module under tests/riskcore."""
    modules: dict[str, dict[str, ast.FunctionDef]] = {}
    missing = []
    for row in ROWS:
        for citation in row.citations:
            name, _, function = citation.test.partition("::")
            path = TESTS / "riskcore" / name
            if name not in modules:
                modules[name] = _functions(path) if path.is_file() else {}
            if function not in modules[name]:
                missing.append(f"{row.rule}: {citation.test}")
    assert not missing, f"tests named in docs/conformance.md that do not exist: {missing}"


def test_every_cited_rule_is_in_the_table() -> None:
    """The citation convention: a test that checks a rule of the table says so with a
    ``# rule: <id>`` line; an id the table does not list is a stale citation."""
    listed = {row.rule for row in ROWS}
    cited = list(citations())
    assert cited, "the tests cite rules"
    stale = [f"{where}: {rule}" for where, rule in cited if rule not in listed]
    assert not stale, f"tests cite rules docs/conformance.md does not list: {stale}"


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the rule books are not next to this checkout")
def test_every_passage_is_in_its_book_word_for_word() -> None:
    books = {book: _normal(next(SEEDS.glob(f"{book}_*.txt")).read_text("utf-8")) for book in BOOKS}
    absent = [row.rule for row in ROWS if _normal(row.passage) not in books[row.book]]
    assert not absent, f"passages not found in their books: {absent}"
