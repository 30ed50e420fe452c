"""Boards as data: territories, groups, borders, cards and board features.

A board is loaded from a JSON file shipped in ``riskcore/boards/maps`` and
validated once; the engine then only reads it. The format carries what
every board of the rule books needs (border kinds, strongholds, sites of power,
a Fellowship path) even where the classic board uses none of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from riskcore.errors import BoardError

BORDER_KINDS = frozenset({"land", "sea", "bridge", "harbour", "river", "mountain"})
IMPASSABLE_KINDS = frozenset({"river", "mountain"})
WILD = "wild"


@dataclass(frozen=True, slots=True)
class Card:
    """A territory card (``territory`` set) or a wild card (``symbol == "wild"``)."""

    id: int
    territory: str | None
    symbol: str
    side: str | None = None


@dataclass(frozen=True, slots=True)
class Group:
    """A continent or region: holding every territory earns ``bonus`` armies."""

    id: str
    name: str
    bonus: int
    territories: frozenset[str]


@dataclass(frozen=True, slots=True)
class PathStep:
    territory: str
    needs_roll: bool


@dataclass(frozen=True, slots=True)
class Board:
    name: str
    title: str
    territory_names: dict[str, str]
    territory_group: dict[str, str]
    groups: tuple[Group, ...]
    neighbours: dict[str, tuple[str, ...]]  # sorted, so iteration is reproducible
    border_kinds: dict[frozenset[str], str]
    cards: tuple[Card, ...]
    strongholds: dict[str, str] = field(default_factory=dict)
    sites_of_power: dict[str, str] = field(default_factory=dict)
    path: tuple[PathStep, ...] = ()

    @property
    def territories(self) -> tuple[str, ...]:
        return tuple(self.territory_names)

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.neighbours.get(a, ())

    def card(self, card_id: int) -> Card:
        return self.cards[card_id]

    def to_dict(self) -> dict[str, Any]:
        """The public description served by the API and ``risk map``."""
        return {
            "name": self.name,
            "title": self.title,
            "territories": [
                {"id": t, "name": n, "group": self.territory_group[t]}
                | ({"stronghold": self.strongholds[t]} if t in self.strongholds else {})
                | ({"site_of_power": self.sites_of_power[t]} if t in self.sites_of_power else {})
                for t, n in self.territory_names.items()
            ],
            "groups": [
                {"id": g.id, "name": g.name, "bonus": g.bonus, "territories": sorted(g.territories)}
                for g in self.groups
            ],
            "borders": sorted([*sorted(pair), kind] for pair, kind in self.border_kinds.items()),
            "cards": [
                {"id": c.id, "territory": c.territory, "symbol": c.symbol}
                | ({"side": c.side} if c.side is not None else {})
                for c in self.cards
            ],
            "path": [{"territory": s.territory, "needs_roll": s.needs_roll} for s in self.path],
        }


def board_from_dict(data: dict[str, Any]) -> Board:
    """Build and validate a board; raises BoardError naming the first fault."""
    try:
        return _board(data)
    except (KeyError, TypeError, ValueError) as error:
        raise BoardError(f"board data is missing or has a bad field: {error!r}") from None


def _board(data: dict[str, Any]) -> Board:
    names = {t["id"]: t["name"] for t in data["territories"]}
    if len(names) != len(data["territories"]):
        raise BoardError("duplicate territory id")
    groups = tuple(
        Group(g["id"], g["name"], int(g["bonus"]), frozenset(g["territories"]))
        for g in data["groups"]
    )
    territory_group = _territory_groups(names, groups)
    neighbours, kinds = _borders(names, data["borders"])
    cards = tuple(
        Card(int(c["id"]), c.get("territory"), c["symbol"], c.get("side")) for c in data["cards"]
    )
    _check_cards(names, cards)
    return Board(
        name=data["name"],
        title=data.get("title", data["name"]),
        territory_names=names,
        territory_group=territory_group,
        groups=groups,
        neighbours=neighbours,
        border_kinds=kinds,
        cards=cards,
        strongholds={t["id"]: t["stronghold"] for t in data["territories"] if "stronghold" in t},
        sites_of_power={
            t["id"]: t["site_of_power"] for t in data["territories"] if "site_of_power" in t
        },
        path=tuple(PathStep(s["territory"], bool(s["needs_roll"])) for s in data.get("path", [])),
    )


def _territory_groups(names: dict[str, str], groups: tuple[Group, ...]) -> dict[str, str]:
    territory_group: dict[str, str] = {}
    for group in groups:
        for t in group.territories:
            if t not in names:
                raise BoardError(f"group {group.id!r} names unknown territory {t!r}")
            if t in territory_group:
                raise BoardError(f"territory {t!r} is in two groups")
            territory_group[t] = group.id
    missing = sorted(set(names) - set(territory_group))
    if missing:
        raise BoardError(f"territories in no group: {missing!r}")
    return territory_group


def _borders(
    names: dict[str, str], borders: list[list[str]]
) -> tuple[dict[str, tuple[str, ...]], dict[frozenset[str], str]]:
    adjacency: dict[str, set[str]] = {t: set() for t in names}
    kinds: dict[frozenset[str], str] = {}
    for a, b, kind in borders:
        if a not in names or b not in names or a == b:
            raise BoardError(f"bad border {a!r} - {b!r}")
        if kind not in BORDER_KINDS:
            raise BoardError(f"border {a!r} - {b!r} has unknown kind {kind!r}")
        if kinds.setdefault(frozenset((a, b)), kind) != kind:
            raise BoardError(f"border {a!r} - {b!r} is listed with two kinds")
        if kind not in IMPASSABLE_KINDS:
            adjacency[a].add(b)
            adjacency[b].add(a)
    return {t: tuple(sorted(ns)) for t, ns in adjacency.items()}, kinds


def _check_cards(names: dict[str, str], cards: tuple[Card, ...]) -> None:
    if [c.id for c in cards] != list(range(len(cards))):
        raise BoardError("card ids must be 0..n-1 in order")
    pictured = [c.territory for c in cards if c.territory is not None]
    if sorted(pictured) != sorted(names):
        raise BoardError("there must be exactly one card per territory")
    if sum(c.symbol == WILD for c in cards) != 2:
        raise BoardError("a deck has exactly 2 wild cards")


@cache
def load_board(name: str) -> Board:
    """Load a shipped board by name (``classic``, ``middle_earth``)."""
    try:
        text = resources.files("riskcore.boards.maps").joinpath(f"{name}.json").read_text("utf-8")
    except FileNotFoundError:
        raise BoardError(f"unknown board {name!r}") from None
    return board_from_dict(json.loads(text))


def board_names() -> list[str]:
    files = resources.files("riskcore.boards.maps").iterdir()
    return sorted(f.name.removesuffix(".json") for f in files if f.name.endswith(".json"))
