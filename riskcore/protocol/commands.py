"""Commands: what a seat asks for. Imperative, validated by ``decide``.

On the wire a command is a JSON object with a ``type`` and its fields; the
acting ``seat`` is never part of the body (the server knows it from the
token), so ``command_from_dict`` takes it separately. Each command class is
registered after its body with ``register_command``, which gives it its wire
name and the wire type of each body field (what ``command_from_dict`` accepts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import MISSING, dataclass
from typing import Any, ClassVar

from riskcore.errors import MalformedCommand
from riskcore.mypyc_hints import mypyc_attr
from riskcore.protocol.declared import check_declaration, field_annotations
from riskcore.protocol.frozen import constructed


@mypyc_attr(allow_interpreted_subclasses=True)
class _Named:
    """A command's wire name, kept off its fields: this class is no dataclass
    (a mypyc-compiled dataclass takes a ``ClassVar`` in its own body for a field).
    ``register_command`` sets it, once per class."""

    __slots__ = ()
    TYPE: ClassVar[str] = ""


@mypyc_attr(allow_interpreted_subclasses=True)  # a test's or a plug-in's mode has commands
@dataclass(frozen=True, slots=True, kw_only=True)
class Command(_Named):
    seat: str

    def to_dict(self) -> dict[str, Any]:
        """The body a client sends: fields without ``seat``, plus ``type``."""
        body: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            if f.name != "seat":
                value = getattr(self, f.name)
                body[f.name] = list(value) if isinstance(value, tuple) else value
        return body

    def to_body(self) -> dict[str, Any]:
        """``to_dict`` without the fields left None: the body of the listed action
        this command was built from (``ActionGroup.command``), which names no field
        it leaves at None (a trade without a bonus territory)."""
        return {name: value for name, value in self.to_dict().items() if value is not None}


# What a field's wire type accepts (bools are never ints here); a field's wire
# type is written as its annotation is.
_ACCEPTS: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "str | None": (str, type(None)),
    "int | None": (int, type(None)),
    "tuple[int, ...]": (list,),
    "tuple[str, ...]": (list,),
}
# What the items of a list field must be.
_ITEMS: dict[str, type] = {"tuple[int, ...]": int, "tuple[str, ...]": str}


@dataclass(frozen=True, slots=True)
class _Shape:
    """A command class's body fields: which exist, which are required, their wire types."""

    allowed: frozenset[str]
    required: tuple[str, ...]
    accepts: dict[str, tuple[type, ...]]
    items: dict[str, type]
    exact: dict[str, type]  # the one type settled without further checks


# Every command type by wire name: the base ones, and those modes register.
COMMAND_TYPES: dict[str, type[Command]] = {}
_SHAPES: dict[type[Command], _Shape] = {}


def register_command(
    cls: type[Command], name: str | None = None, *, fields: Mapping[str, str] | None = None
) -> None:
    """Declare ``cls`` the command called ``name`` on the wire, with the wire type
    of each body field (every field but ``seat``); clients may then send it.
    Called once, after the class body::

        register_command(PlaceArmies, "place_armies", fields={"territory": "str", "count": "int"})

    A wire type is written as the field's annotation is, one of ``_ACCEPTS``; the
    pure-Python build checks that they agree (the compiled one keeps no annotations).
    """
    if COMMAND_TYPES.get(name or "") is cls:
        return
    check_declaration(cls, name, "register_command")
    assert name is not None  # check_declaration refuses a missing name
    if name in COMMAND_TYPES:
        raise ValueError(f"command type {name!r} is already registered")
    wire = dict(fields or {})
    _check_wire(cls, wire)
    cls.TYPE = name
    _SHAPES[cls] = _shape(cls, wire)
    COMMAND_TYPES[name] = constructed(cls)


def _check_wire(cls: type[Command], wire: dict[str, str]) -> None:
    body = [f.name for f in dataclasses.fields(cls) if f.name != "seat"]
    if sorted(wire) != sorted(body):
        raise TypeError(
            f"{cls.__qualname__}: fields= names {sorted(wire)}, its body {sorted(body)}"
        )
    for field_name, text in wire.items():
        if text not in _ACCEPTS:
            raise TypeError(f"{cls.__qualname__}.{field_name}: no wire form for {text!r}")
    written = field_annotations(cls)
    for field_name, text in wire.items():
        if field_name in written and written[field_name] != text:
            raise TypeError(
                f"{cls.__qualname__}.{field_name} is {written[field_name]!r}, "
                f"declared {text!r} in fields="
            )


def _shape(cls: type[Command], wire: dict[str, str]) -> _Shape:
    accepts = {name: _ACCEPTS[text] for name, text in wire.items()}
    return _Shape(
        allowed=frozenset(accepts),
        required=tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.name in wire and f.default is MISSING and f.default_factory is MISSING
        ),
        accepts=accepts,
        items={name: _ITEMS[text] for name, text in wire.items() if text in _ITEMS},
        exact={n: types[0] for n, types in accepts.items() if types[0] in (str, int)},
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimTerritory(Command):
    territory: str


register_command(ClaimTerritory, "claim_territory", fields={"territory": "str"})


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceArmies(Command):
    territory: str
    count: int = 1


register_command(PlaceArmies, "place_armies", fields={"territory": "str", "count": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeCards(Command):
    cards: tuple[int, ...]
    bonus_territory: str | None = None


register_command(
    TradeCards, "trade_cards", fields={"cards": "tuple[int, ...]", "bonus_territory": "str | None"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Attack(Command):
    """One battle; ``dice`` defaults to the most the source allows."""

    source: str
    target: str
    dice: int | None = None


register_command(Attack, "attack", fields={"source": "str", "target": "str", "dice": "int | None"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Blitz(Command):
    """Repeat battles with the most dice until the target falls or the source
    is down to ``stop_at`` armies (at least 1)."""

    source: str
    target: str
    stop_at: int = 1


register_command(Blitz, "blitz", fields={"source": "str", "target": "str", "stop_at": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Defend(Command):
    dice: int


register_command(Defend, "defend", fields={"dice": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class SetDefence(Command):
    """A seat's standing answer, where defenders choose their dice: always roll the
    most (no battle waits for it), or be asked each battle. Sent at any time."""

    always_most: bool


register_command(SetDefence, "set_defence", fields={"always_most": "bool"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Occupy(Command):
    count: int


register_command(Occupy, "occupy", fields={"count": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Fortify(Command):
    source: str
    target: str
    count: int


register_command(Fortify, "fortify", fields={"source": "str", "target": "str", "count": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class EndPhase(Command):
    pass


register_command(EndPhase, "end_phase")


@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(Command):
    pass


register_command(Resign, "resign")


@dataclass(frozen=True, slots=True, kw_only=True)
class Abandon(Command):
    """The server ends a game nobody plays any more (no winner). Its seat is the
    server's own ("system"); the API takes it from no client (it has no schema)."""


register_command(Abandon, "abandon")


# The commands of the classic game, which every mode takes (registered above).
BASE_COMMAND_TYPES: tuple[type[Command], ...] = tuple(COMMAND_TYPES.values())
# Commands only the server sends (records replay them like any other).
SYSTEM_COMMANDS = frozenset({Abandon.TYPE})


def command_from_dict(body: Any, seat: str) -> Command:
    """Parse a client's command body; raise MalformedCommand naming the fault."""
    if not isinstance(body, dict):
        raise MalformedCommand(f"a command must be a JSON object, not {type(body).__name__}")
    kind = body.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(kind, str):
        raise MalformedCommand(f"unknown command type {kind!r}; one of {sorted(COMMAND_TYPES)}")
    shape = _SHAPES[cls]
    allowed, exact = shape.allowed, shape.exact
    values: dict[str, Any] = {}
    for name, value in body.items():
        if name in allowed:
            # The usual case (an exact str or int) is settled here; the rest,
            # and every error, in _field_value.
            values[name] = (
                value if type(value) is exact.get(name) else _field_value(kind, name, value, shape)
            )
        elif name != "type":
            raise MalformedCommand(f"{kind} has no field {name!r}")
    for name in shape.required:
        if name not in values:
            raise MalformedCommand(f"{kind} needs field {name!r}")
    return cls(seat=seat, **values)


def _field_value(kind: str, name: str, value: Any, shape: _Shape) -> Any:
    expected = shape.accepts[name]
    item = shape.items.get(name)
    if item is not None:
        if not isinstance(value, list) or not all(_is_of(v, item) for v in value):
            what = "card ids" if name == "cards" else f"{item.__name__} values"
            raise MalformedCommand(f"{kind}.{name} must be a list of {what}, not {value!r}")
        return tuple(value)
    if any(_is_of(value, t) for t in expected):
        return value
    raise MalformedCommand(f"{kind}.{name} has the wrong type: {value!r}")


def _is_of(value: Any, expected: type) -> bool:
    if expected is int:
        return _is_int(value)
    if expected is type(None):
        return value is None
    return isinstance(value, expected)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
