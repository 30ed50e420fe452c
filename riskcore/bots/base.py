"""The bot interface and the registry of bots by name.

A bot's factory may take options as keyword arguments (the strong bot's
``think_ms``, say); ``get_bot(name, options)`` passes them on, and a bot
that takes none refuses any.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Protocol

from riskcore.engine.legal import Action
from riskcore.views.seatview import SeatView

_REGISTRY: dict[str, Callable[..., Bot]] = {}


class Bot(Protocol):
    name: str
    version: str

    def choose(
        self, view: SeatView, actions: Sequence[Action], rng: random.Random
    ) -> dict[str, Any]:
        """One command body, built from ``actions`` (never from hidden state)."""
        ...


def register(name: str) -> Callable[[Callable[..., Bot]], Callable[..., Bot]]:
    def add(factory: Callable[..., Bot]) -> Callable[..., Bot]:
        _REGISTRY[name] = factory
        return factory

    return add


def get_bot(name: str, options: Mapping[str, Any] | None = None) -> Bot:
    """A new bot ``name`` with ``options``; ValueError for an unknown bot or option."""
    _load_builtin()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; one of {bot_names()}") from None
    try:
        return factory(**dict(options or {}))
    except TypeError as error:
        raise ValueError(f"bot {name!r} does not take options {dict(options or {})!r}") from error


def bot_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


@cache
def _load_builtin() -> None:
    """Import every bot module once a process (each registers its bots): listing
    the package on every ``get_bot`` cost more than a random bot's whole game."""
    import importlib
    import pkgutil

    import riskcore.bots

    for module in pkgutil.iter_modules(riskcore.bots.__path__):
        if module.name != "base":
            importlib.import_module(f"riskcore.bots.{module.name}")
