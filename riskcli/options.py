"""Rule options on the command line, made from their one declaration.

Each option of ``riskcore.model.options.OPTIONS`` becomes a ``--name``
flag (underscores as dashes) with its declared choices or bounds, so a new
option shows up in ``risk simulate --help`` without touching this package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from riskcore.engine.registry import mode_named
from riskcore.model.options import OPTIONS, OptionSpec, RuleSet

F = TypeVar("F", bound=Callable[..., Any])


def _flag(spec: OptionSpec) -> Callable[[F], F]:
    name = "--" + spec.name.replace("_", "-")
    helptext = f"{spec.summary} [default: {spec.default}]"
    if spec.choices is None:
        assert spec.bounds is not None
        kind: click.ParamType = click.IntRange(*spec.bounds)
    elif isinstance(spec.default, bool):
        kind = click.BOOL
    else:
        kind = click.Choice([str(c) for c in spec.choices])
    return click.option(name, spec.name, type=kind, default=None, help=helptext)


def rule_options(command: F) -> F:
    """Decorate a click command with a flag for every rule option."""
    for spec in reversed(OPTIONS):
        command = _flag(spec)(command)
    return command


def rule_set(values: dict[str, Any], mode: str = "classic") -> RuleSet:
    """The ``RuleSet`` of the flags given; the others keep the mode's defaults."""
    chosen: dict[str, Any] = {}
    for spec in OPTIONS:
        value = values.get(spec.name)
        if value is None:
            continue
        if (
            spec.choices is not None
            and isinstance(spec.default, int)
            and not isinstance(spec.default, bool)
        ):
            value = int(value)
        chosen[spec.name] = value
    return mode_named(mode).rule_set(chosen)
