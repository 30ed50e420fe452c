"""The registry of game modes by name, and of the commands and events they add.

A mode is registered once, when its module is imported (``riskcore.modes``
imports the built-in ones; a test mode registers itself). The engine finds a
game's mode by the name recorded in ``game_created`` and attaches the one
instance to the state, so asking a hook costs a method call, not a lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskcore.errors import RuleOptionError

if TYPE_CHECKING:
    from riskcore.modes.base import GameMode

_MODES: dict[str, GameMode] = {}


def register_mode(cls: type[GameMode]) -> None:
    """Make ``cls`` playable under its ``name``: a statement after the class body
    (as a class decorator it would keep mypyc from compiling the class)."""
    name = cls.name
    existing = _MODES.get(name)
    if existing is not None and type(existing) is not cls:
        raise ValueError(f"game mode {name!r} is already registered by {type(existing)!r}")
    _MODES[name] = cls()


def mode_named(name: str) -> GameMode:
    try:
        return _MODES[name]
    except KeyError:
        raise RuleOptionError(f"unknown game mode {name!r}; one of {mode_names()}") from None


def mode_names() -> list[str]:
    return sorted(_MODES)
