"""Hypothesis strategies shared by the test suite (one place, as attrs keeps them).

- ``rule_sets()``: any valid ``RuleSet``.
- ``game_configs()``: a game mode, a player count it takes, and rules.
- ``seeds``: server seeds.
- ``command_bodies()``: wire bodies of commands, well formed or not.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from riskcore.engine.registry import mode_named, mode_names
from riskcore.model.options import OPTIONS, RuleSet
from riskcore.protocol.commands import COMMAND_TYPES

seeds = st.binary(min_size=1, max_size=32)


def rule_sets() -> st.SearchStrategy[RuleSet]:
    """Every option of docs/rules.md, "Rule options", drawn independently from its declared choices
    (``riskcore.model.options.OPTIONS``); army counts from the mode's table."""
    return st.builds(
        RuleSet,
        **{spec.name: st.sampled_from(spec.choices) for spec in OPTIONS if spec.choices},
    )


def game_configs() -> st.SearchStrategy[tuple[str, int, RuleSet]]:
    """(mode, players, rules): every registered game mode, the test-only ones
    included, with a player count it takes and any rule options."""
    import tests.riskcore.capitals  # noqa: F401  (registers the test mode)

    def for_mode(name: str) -> st.SearchStrategy[tuple[str, int, RuleSet]]:
        low, high = mode_named(name).players
        return st.tuples(st.just(name), st.integers(low, high), rule_sets())

    return st.sampled_from(mode_names()).flatmap(for_mode)


_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "territory": st.sampled_from(["alaska", "peru", "atlantis", ""]),
    "source": st.sampled_from(["alaska", "brazil"]),
    "target": st.sampled_from(["kamchatka", "north_africa"]),
    "count": st.integers(min_value=-2, max_value=50),
    "dice": st.one_of(st.none(), st.integers(min_value=-1, max_value=4)),
    "stop_at": st.integers(min_value=-1, max_value=10),
    "bonus_territory": st.one_of(st.none(), st.just("peru")),
    "cards": st.lists(st.integers(min_value=-1, max_value=44), max_size=4),
    "adventure": st.integers(min_value=-1, max_value=40),
}
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
)


@st.composite
def command_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A command body as a client might send it: usually well formed, sometimes not
    (an unknown type, a field of the wrong type, a missing or an extra field)."""
    kind = draw(st.sampled_from([*sorted(COMMAND_TYPES), "conquer_world"]))
    body: dict[str, Any] = {"type": kind}
    fields = [f for f in _VALUES if kind in COMMAND_TYPES and _has(kind, f)]
    for name in fields:
        if draw(st.integers(0, 9)) > 0:
            body[name] = draw(_VALUES[name]) if draw(st.integers(0, 9)) else draw(_JUNK)
    if draw(st.integers(0, 9)) == 0:
        body[draw(st.sampled_from(["seat", "extra", "Count"]))] = draw(_JUNK)
    return body


def _has(kind: str, field: str) -> bool:
    return field in COMMAND_TYPES[kind].__dataclass_fields__
