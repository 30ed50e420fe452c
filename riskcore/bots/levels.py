"""Bot levels: the names a server offers (easy, medium, hard), each a bot and its options.

Declared once, here: the API's seats, the workers, tournaments and ``risk
tournament`` all read a level from this table. ``easy`` is the heuristic bot
without its turn plans (``plans: false``: it prices one attack at a time and
plans no elimination), trading every set at once (``hold: false``), claiming
by continent alone and conquering wherever (``gather: false``): the
heuristic as it was before issue 34, kept beatable; ``medium`` and ``hard``
are the strong bot (rollouts of the full heuristic) with a budget of CPU
time per own turn (``turn_ms`` on the ``cpu`` clock: a loaded machine makes
a turn take longer, not play weaker) and a cap on its rollouts, so a faster
machine or engine buys a level more search but never more than its cap; both
also search the timing of card trades and trust an alternative sooner
(``SEARCH``), and search where to place reinforcements and how many armies
to move in (``hard`` its fortify as well: ``HARD_SEARCH``): their claims and
attacks are the heuristic's. Time-bound play is
not reproducible from the seed (how far a search gets depends on the
machine); the record still verifies, since the commands chosen are the
record. ``strong`` with no level is the strong bot on its iteration budget
alone, reproducible. docs/bots.md has their figures against Domination's AI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from riskcore.bots.base import Bot, get_bot

__all__ = ["LEVELS", "Level", "bot_for", "level_names"]


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    bot: str
    options: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def public(self) -> dict[str, Any]:
        """The level as plain JSON values: a copy, so no caller can change the table."""
        return {"level": self.name, "bot": self.bot, "options": _plain(self.options)}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


# What ``medium`` and ``hard`` search beyond their budgets: whether to trade a set
# now or hold it, and an alternative to the heuristic's choice taken when it wins
# by half a standard error (docs/bots.md, "Fourth round": +5.0 ± 4.2 points
# against three of Domination's hard AIs on 800 paired games at ``medium``).
# Only the placing of reinforcements and the armies moved in are searched: the
# claims and the attacks are the heuristic's, whose choices beat those of a
# search whose rollouts play heuristics in every seat ("Sixth round": claims
# searched lost 10.6 ± 5.2 points at ``medium``; "Eighth round": ``hard`` with
# its attacks unsearched won 46.8% of 400 games where it had won 40.3%, in half
# the time; placing unsearched lost 11.3 ± 8.9 points at ``medium``).
SEARCH: Mapping[str, Any] = MappingProxyType(
    {"trades": True, "confidence": 0.5, "searched": ["reinforce", "occupy"]}
)

# What ``hard`` searches beyond ``medium`` besides four times its budget (issue 52):
# its fortify, which its rollouts judge where it tells (they play the rivals' turns
# that test the border it held or left thin). Alone against two ``medium``, 3
# players, on 180 paired seeds: 40.0% where ``hard`` without it won 34.4%
# (docs/bots.md, "The levels' ladder"). And in a game that ends on points (Lord of
# the Rings) its rollouts score its share of the points as the end nears
# (``points``; no other mode has such an end): 40.0% of 300 games against two
# ``medium`` where ``hard`` without it won 33.3% on the same seeds.
HARD_SEARCH: Mapping[str, Any] = MappingProxyType(
    {**SEARCH, "searched": [*SEARCH["searched"], "fortify"], "points": 1.0}
)

LEVELS: Mapping[str, Level] = MappingProxyType(
    {
        "easy": Level(
            "easy",
            "heuristic",
            MappingProxyType({"plans": False, "hold": False, "gather": False}),
            "the heuristic bot without its turn plans: rules of thumb priced by odds",
        ),
        "medium": Level(
            "medium",
            "strong",
            # Most of its turn's time for the placing: its only search that pays
            # ("Eighth round"; ``hard``, whose budget is four times this, was
            # measured without it).
            MappingProxyType(
                {"turn_ms": 250, "turn_rollouts": 200, "clock": "cpu", "place_share": 0.7, **SEARCH}
            ),
            "the strong bot, 0.25 s of CPU a turn at most",
        ),
        "hard": Level(
            "hard",
            "strong",
            MappingProxyType(
                {
                    "turn_ms": 1000,
                    "turn_rollouts": 800,
                    "iterations": 32,
                    "clock": "cpu",
                    **HARD_SEARCH,
                }
            ),
            "the strong bot, 1 s of CPU a turn at most",
        ),
    }
)


def level_names() -> list[str]:
    return list(LEVELS)


def level_of(name: str) -> Level:
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown level {name!r}; one of {level_names()}") from None


def resolve(bot: str | None, level: str | None) -> tuple[str, Level | None]:
    """The bot a seat plays and its level: a level alone names its bot; a bot and a
    level must agree. ValueError for an unknown level or a level of another bot."""
    if level is None:
        if bot is None:
            raise ValueError("a bot seat names a bot, a level, or both")
        return bot, None
    found = level_of(level)
    if bot is not None and bot != found.bot:
        raise ValueError(f"level {level!r} plays the {found.bot} bot, not {bot!r}")
    return found.bot, found


def bot_for(bot: str | None, level: str | None) -> Bot:
    """A new bot as a seat names it (``resolve``), with its level's options."""
    name, found = resolve(bot, level)
    return get_bot(name, found.options if found else None)
