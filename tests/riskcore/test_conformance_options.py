"""docs/conformance.md's rows that depend on a rule option name tests that run under it.

Issue 53: the table cited, for "an ally attacking another neutral rolls one die
for each", a test that set ``marker_dice: command``, so the default rules were
never tested there. A row depends on an option when its Engine cell names one
(in backticks). Such a row cites, besides any other, a test under the default
rules (``(defaults)``, or ``(`mode` defaults)`` where the mode's own defaults
are the reading), and where the passage reads another value than the default
(``option `x` (value; default d, ...)``) a test under that value
(``(`x: value`)``). Each claim is checked by running the test and looking at
the games it plays: every ``State`` it builds (its mode and ``RuleSet``), or,
for a test that plays no game, every ``RuleSet`` it makes. One of them must
be what the citation claims.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from riskcore.engine.registry import mode_named, mode_names
from riskcore.model.options import OPTIONS, RuleSet
from riskcore.model.state import State
from tests.riskcore.test_conformance import ROWS, Citation, Row

DECLARED = {spec.name for spec in OPTIONS}
# "option `x` (value; default d": the passage reads ``value``, not the default.
READS_OTHER = re.compile(r"option `([a-z_]+)` \(([^;,)]+); default ")
SETTING = re.compile(r"`([a-z_]+): ([^`]+)`")
MODE_DEFAULTS = re.compile(r"`([a-z_]+)` defaults")


def depends_on(row: Row) -> list[str]:
    """The rule options a row's Engine cell names: what its passage's reading hangs on."""
    return [name for name in re.findall(r"`([a-z_]+)`", row.engine) if name in DECLARED]


DEPENDENT = [row for row in ROWS if depends_on(row)]


@dataclass(frozen=True)
class Claim:
    """What a citation says its test runs under: a mode's defaults (``mode`` None: the
    defaults of whatever mode the test plays) for the row's options, or settings."""

    defaults: bool
    mode: str | None
    settings: dict[str, Any]


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.isdigit() else text


def claim_of(citation: Citation) -> Claim | None:
    if citation.claim is None:
        return None
    words = citation.claim
    mode = MODE_DEFAULTS.fullmatch(words)
    if words == "defaults" or mode:
        return Claim(True, mode[1] if mode else None, {})
    settings = {name: _value(value) for name, value in SETTING.findall(words)}
    assert settings and ", ".join(f"`{k}: {v}`" for k, v in SETTING.findall(words)) == words, (
        f"a claim is (defaults), (`mode` defaults) or (`option: value`, ...): {words!r}"
    )
    return Claim(False, None, settings)


def test_every_row_that_depends_on_an_option_cites_a_test_under_the_defaults() -> None:
    """And, where the passage reads another value than the default, one under it."""
    lacking = []
    for row in DEPENDENT:
        claims = [c for c in map(claim_of, row.citations) if c is not None]
        if not any(c.defaults for c in claims):
            lacking.append(f"{row.rule}: no test under the default rules")
        for option, value in READS_OTHER.findall(row.engine):
            if not any(c.settings.get(option) == _value(value) for c in claims):
                lacking.append(f"{row.rule}: no test under `{option}: {value}`")
    assert not lacking, lacking


def test_every_claim_names_declared_options_and_values_and_known_modes() -> None:
    for row in ROWS:
        for citation in row.citations:
            claim = claim_of(citation)
            if claim is None:
                continue
            assert depends_on(row), f"{row.rule}: a claim on a row that names no option"
            assert claim.mode is None or claim.mode in mode_names(), row.rule
            for name, value in claim.settings.items():
                RuleSet.from_dict({name: value})  # a declared option, a declared value


@contextmanager
def games_played() -> Iterator[tuple[set[tuple[str, RuleSet]], set[RuleSet]]]:
    """Every game state (its mode's name and rules) and every rule set made meanwhile."""
    games: set[tuple[str, RuleSet]] = set()
    rule_sets: set[RuleSet] = set()
    state_init, rules_init = State.__init__, RuleSet.__init__

    def noting_state(self: State, *args: Any, **kwargs: Any) -> None:
        state_init(self, *args, **kwargs)
        games.add((getattr(self.mode, "name", ""), self.rules))

    def noting_rules(self: RuleSet, *args: Any, **kwargs: Any) -> None:
        rules_init(self, *args, **kwargs)
        rule_sets.add(self)

    with pytest.MonkeyPatch.context() as patch:
        try:
            patch.setattr(State, "__init__", noting_state)
        except (TypeError, AttributeError):  # a native class: the pure build checks the claims
            pytest.skip("the compiled build's State cannot be watched; the pure build's can")
        patch.setattr(RuleSet, "__init__", noting_rules)
        yield games, rule_sets


def _calls(function: Callable[..., Any]) -> Iterator[dict[str, Any]]:
    """The test's calls: once, or once per case of its ``parametrize`` mark."""
    marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        yield {}
        return
    assert len(marks) == 1, "a cited test has one parametrize mark at most"
    names, cases = marks[0].args[:2]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    for case in cases:
        values = getattr(case, "values", case)
        yield dict(zip(names, values if len(names) > 1 else (values,), strict=True))


def _holds(claim: Claim, options: list[str], mode: str | None, rules: RuleSet) -> bool:
    """Whether a game of ``mode`` (None: a rule set no game was made with) under ``rules``
    is what ``claim`` says, for the row's ``options``."""
    if claim.mode is not None and mode is not None and mode != claim.mode:
        return False
    if claim.defaults:
        defaults = mode_named(mode or claim.mode or "classic").rule_set()
        return all(getattr(rules, o) == getattr(defaults, o) for o in options)
    return all(getattr(rules, o) == v for o, v in claim.settings.items())


CLAIMED = [
    pytest.param(row, citation, id=f"{row.rule}-{citation.test.partition('::')[2]}")
    for row in DEPENDENT
    for citation in row.citations
    if citation.claim is not None
]


def observed(citation: Citation) -> set[tuple[str | None, RuleSet]]:
    """The games the cited test plays (mode, rules), or the rule sets it makes if none."""
    file, _, function_name = citation.test.partition("::")
    function = getattr(importlib.import_module(f"tests.riskcore.{file[:-3]}"), function_name)
    with games_played() as (games, rule_sets):
        for arguments in _calls(function):
            function(**arguments)
    return set(games) or {(None, r) for r in rule_sets}


@pytest.mark.parametrize(("row", "citation"), CLAIMED)
def test_each_cited_test_runs_with_the_options_it_claims(row: Row, citation: Citation) -> None:
    claim = claim_of(citation)
    assert claim is not None
    options = depends_on(row)
    seen = observed(citation)
    assert seen, f"{citation.test} plays no game and makes no rule set"
    assert any(_holds(claim, options, mode, rules) for mode, rules in seen), (
        f"{row.rule}: {citation.test} does not run under ({citation.claim}): "
        f"{sorted({(m, tuple(getattr(r, o) for o in options)) for m, r in seen}, key=str)}"
    )


def test_a_test_that_sets_another_value_is_no_test_of_the_defaults() -> None:
    """What issue 53 found: the row's test set ``marker_dice: command``; cited as a test
    under the defaults, the check refuses it."""
    (row,) = [r for r in ROWS if r.rule == "000-marker-each"]
    test = (
        "test_active_neutrals.py::test_an_ally_attacking_the_other_neutral_rolls_one_die_for_each"
    )
    claim = claim_of(Citation(test, "`two_player_active` defaults"))
    assert claim is not None
    seen = observed(Citation(test, None))
    assert {rules.marker_dice for _, rules in seen} == {"command"}
    assert not any(_holds(claim, depends_on(row), mode, rules) for mode, rules in seen)
