"""Commands: what a seat asks for. Imperative, validated by ``decide``.

On the wire a command is a JSON object with a ``type`` and its fields; the
acting ``seat`` is never part of the body (the server knows it from the
token), so ``command_from_dict`` takes it separately.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeVar

from riskcore.errors import MalformedCommand
from riskcore.protocol.frozen import fast_init


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    TYPE: ClassVar[str] = ""
    seat: str

    def to_dict(self) -> dict[str, Any]:
        """The body a client sends: fields without ``seat``, plus ``type``."""
        body: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):
            if f.name != "seat":
                value = getattr(self, f.name)
                body[f.name] = list(value) if isinstance(value, tuple) else value
        return body


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimTerritory(Command):
    TYPE = "claim_territory"
    territory: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceArmies(Command):
    TYPE = "place_armies"
    territory: str
    count: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeCards(Command):
    TYPE = "trade_cards"
    cards: tuple[int, ...]
    bonus_territory: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Attack(Command):
    """One battle; ``dice`` defaults to the most the source allows."""

    TYPE = "attack"
    source: str
    target: str
    dice: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Blitz(Command):
    """Repeat battles with the most dice until the target falls or the source
    is down to ``stop_at`` armies (at least 1)."""

    TYPE = "blitz"
    source: str
    target: str
    stop_at: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Defend(Command):
    TYPE = "defend"
    dice: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Occupy(Command):
    TYPE = "occupy"
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Fortify(Command):
    TYPE = "fortify"
    source: str
    target: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EndPhase(Command):
    TYPE = "end_phase"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(Command):
    TYPE = "resign"


@dataclass(frozen=True, slots=True, kw_only=True)
class Abandon(Command):
    """The server ends a game nobody plays any more (no winner). Its seat is the
    server's own ("system"); the API takes it from no client (it has no schema)."""

    TYPE = "abandon"


BASE_COMMAND_TYPES: tuple[type[Command], ...] = (
    ClaimTerritory,
    PlaceArmies,
    TradeCards,
    Attack,
    Blitz,
    Defend,
    Occupy,
    Fortify,
    EndPhase,
    Resign,
    Abandon,
)
# Commands only the server sends (records replay them like any other).
SYSTEM_COMMANDS = frozenset({Abandon.TYPE})
for _cls in BASE_COMMAND_TYPES:
    fast_init(_cls)
# Every command type by wire name: the base ones, and those modes register.
COMMAND_TYPES: dict[str, type[Command]] = {cls.TYPE: cls for cls in BASE_COMMAND_TYPES}

# What a field's annotation accepts on the wire (bools are never ints here).
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


def _shape(cls: type[Command]) -> _Shape:
    body = [f for f in fields(cls) if f.name != "seat"]
    for f in body:
        if str(f.type) not in _ACCEPTS:
            raise TypeError(f"{cls.__name__}.{f.name}: no wire form for {f.type!r}")
    accepts = {f.name: _ACCEPTS[str(f.type)] for f in body}
    return _Shape(
        allowed=frozenset(accepts),
        required=tuple(
            f.name for f in body if f.default is MISSING and f.default_factory is MISSING
        ),
        accepts=accepts,
        items={f.name: _ITEMS[str(f.type)] for f in body if str(f.type) in _ITEMS},
        exact={n: types[0] for n, types in accepts.items() if types[0] in (str, int)},
    )


_SHAPES: dict[type[Command], _Shape] = {cls: _shape(cls) for cls in BASE_COMMAND_TYPES}
C = TypeVar("C", bound=type[Command])


def register_command(cls: C) -> C:
    """Class decorator for a mode's own command: clients may then send it."""
    existing = COMMAND_TYPES.get(cls.TYPE)
    if existing is not None and existing is not cls:
        raise ValueError(f"command type {cls.TYPE!r} is already registered")
    _SHAPES[cls] = _shape(cls)
    COMMAND_TYPES[cls.TYPE] = fast_init(cls)
    return cls


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
