"""Commands: what a seat asks for. Imperative, validated by ``decide``.

On the wire a command is a JSON object with a ``type`` and its fields; the
acting ``seat`` is never part of the body (the server knows it from the
token), so ``command_from_dict`` takes it separately.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from riskcore.errors import MalformedCommand


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


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.TYPE: cls
    for cls in (
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
    )
}

# Per command class: its body fields, and those without a default.
_FIELDS: dict[type[Command], tuple[frozenset[str], tuple[str, ...]]] = {
    cls: (
        frozenset(f.name for f in fields(cls) if f.name != "seat"),
        tuple(
            f.name
            for f in fields(cls)
            if f.name != "seat" and f.default is MISSING and f.default_factory is MISSING
        ),
    )
    for cls in COMMAND_TYPES.values()
}

_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "territory": (str,),
    "source": (str,),
    "target": (str,),
    "count": (int,),
    "dice": (int, type(None)),
    "stop_at": (int,),
    "bonus_territory": (str, type(None)),
}


_EXACT_TYPES: dict[str, type] = {
    name: types[0] for name, types in _FIELD_TYPES.items() if types[0] is not type(None)
}


def command_from_dict(body: Any, seat: str) -> Command:
    """Parse a client's command body; raise MalformedCommand naming the fault."""
    if not isinstance(body, dict):
        raise MalformedCommand(f"a command must be a JSON object, not {type(body).__name__}")
    kind = body.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(kind, str):
        raise MalformedCommand(f"unknown command type {kind!r}; one of {sorted(COMMAND_TYPES)}")
    allowed, required = _FIELDS[cls]
    values: dict[str, Any] = {}
    for name, value in body.items():
        if name in allowed:
            # The usual case (an exact str or int) is settled here; the rest,
            # and every error, in _field_value.
            exact = type(value) is _EXACT_TYPES.get(name)
            values[name] = value if exact else _field_value(kind, name, value)
        elif name != "type":
            raise MalformedCommand(f"{kind} has no field {name!r}")
    for name in required:
        if name not in values:
            raise MalformedCommand(f"{kind} needs field {name!r}")
    return cls(seat=seat, **values)


def _field_value(kind: str, name: str, value: Any) -> Any:
    if name == "cards":
        if not isinstance(value, list) or not all(_is_int(c) for c in value):
            raise MalformedCommand(f"{kind}.cards must be a list of card ids, not {value!r}")
        return tuple(value)
    expected = _FIELD_TYPES[name]
    if int in expected and _is_int(value):
        return value
    matches = any(isinstance(value, t) and not isinstance(value, bool) for t in expected)
    if not matches and not (value is None and type(None) in expected):
        raise MalformedCommand(f"{kind}.{name} has the wrong type: {value!r}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
