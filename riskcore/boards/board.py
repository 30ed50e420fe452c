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
from riskcore.mypyc_hints import copied_by_constructor

BORDER_KINDS = frozenset({"land", "sea", "bridge", "harbour", "river", "mountain"})
# A pair listed with one of these kinds is no border: a river away from its
# bridges, or a mountain range. They are listed (where a board knows them)
# only so that a move across one is refused with its own error code.
IMPASSABLE_KINDS = frozenset({"river", "mountain"})
WILD = "wild"


@dataclass(frozen=True, slots=True)
class Card:
    """A territory card (``territory`` set) or a wild card (``symbol == "wild"``)."""

    id: int
    territory: str | None
    symbol: str
    side: str | None = None


copied_by_constructor(Card)  # copied and pickled with the state, compiled too


@dataclass(frozen=True, slots=True)
class Group:
    """A continent or region: holding every territory earns ``bonus`` armies."""

    id: str
    name: str
    bonus: int
    territories: frozenset[str]


copied_by_constructor(Group)  # copied and pickled with the state, compiled too


@dataclass(frozen=True, slots=True)
class PathStep:
    territory: str
    needs_roll: bool


copied_by_constructor(PathStep)  # copied and pickled with the state, compiled too


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
    harbours: frozenset[str] = frozenset()
    card_sides: tuple[str, ...] = ()  # the sides a card may be of (the board file says)

    @property
    def territories(self) -> tuple[str, ...]:
        return tuple(self.territory_names)

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.neighbours.get(a, ())

    def border_kind(self, a: str, b: str) -> str | None:
        """The kind of the border between ``a`` and ``b`` (None: they do not touch)."""
        return self.border_kinds.get(frozenset((a, b)))

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
                | ({"harbour": True} if t in self.harbours else {})
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
        } | ({"card_sides": list(self.card_sides)} if self.card_sides else {})


copied_by_constructor(Board)  # copied and pickled with the state, compiled too


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
    _check_cards(names, cards, frozenset(data.get("card_sides", ())))
    harbours = frozenset(t["id"] for t in data["territories"] if t.get("harbour", False))
    _check_harbours(harbours, kinds)
    path = tuple(PathStep(s["territory"], bool(s["needs_roll"])) for s in data.get("path", []))
    _check_path(names, path)
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
        path=path,
        harbours=harbours,
        card_sides=tuple(data.get("card_sides", ())),
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


def _check_cards(names: dict[str, str], cards: tuple[Card, ...], sides: frozenset[str]) -> None:
    if [c.id for c in cards] != list(range(len(cards))):
        raise BoardError("card ids must be 0..n-1 in order")
    pictured = [c.territory for c in cards if c.territory is not None]
    if sorted(pictured) != sorted(names):
        raise BoardError("there must be exactly one card per territory")
    if sum(c.symbol == WILD for c in cards) != 2:
        raise BoardError("a deck has exactly 2 wild cards")
    for c in cards:
        if c.side is not None and (c.side not in sides or c.territory is None):
            raise BoardError(f"card {c.id}: side {c.side!r} is not one of {sorted(sides)}")


def _check_harbours(harbours: frozenset[str], kinds: dict[frozenset[str], str]) -> None:
    """A harbour link joins two territories that both have a harbour."""
    for pair, kind in kinds.items():
        if kind == "harbour" and not pair <= harbours:
            a, b = sorted(pair)
            raise BoardError(f"harbour link {a!r} - {b!r} needs a harbour at both ends")


def _check_path(names: dict[str, str], path: tuple[PathStep, ...]) -> None:
    """The Fellowship's path: known territories, none twice."""
    steps = [s.territory for s in path]
    for t in steps:
        if t not in names:
            raise BoardError(f"the path names unknown territory {t!r}")
    if len(set(steps)) != len(steps):
        raise BoardError("the path visits a territory twice")


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
