"""State snapshots: a cache that makes loading a long game cheap.

A snapshot is the whole state as canonical JSON, stamped with
``SNAPSHOT_STAMP``. Canonical JSON sorts object keys, but the order of a
state's dictionaries matters (legal actions, and so bots' choices, list
territories in the order the state holds them), so every dictionary is
written as a list of ``[key, value]`` pairs in its own order: a restored
state is the folded one, iteration order included.

Which fields there are comes from the state's one declaration
(``riskcore.model.state.FIELDS``); only fields whose values are not plain
JSON have a form of their own here (``_FORMS``).

The stamp changes whenever the state shape, the codec or the rules code
changes in a way that could alter a fold, so a snapshot written by other
code is ignored and the game is folded from its events instead. Snapshots
are never the source of truth: events are.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from riskcore.boards.board import load_board
from riskcore.engine.registry import mode_named
from riskcore.errors import RecordError
from riskcore.model.options import RuleSet
from riskcore.model.state import FIELDS, Mission, Occupation, PendingBattle, Seat, State
from riskcore.protocol.codec import CODEC_VERSION, canonical

# 2: dictionaries as ordered pairs; 3: game modes; 4: record_format; 5: bribes;
# 6: the adventure pile; 7: ``marker_dice`` ``attack`` rolls for each neutral (issue 53:
# a running game's snapshot of the rules before it is folded again from its events)
STATE_SHAPE_VERSION = 7
SNAPSHOT_STAMP = f"codec{CODEC_VERSION}.state{STATE_SHAPE_VERSION}"


def _pairs(value: dict[Any, Any]) -> list[list[Any]]:
    return [[k, v] for k, v in value.items()]


def _tagged(value: Any) -> list[Any]:
    """A mode's JSON value with its dictionaries (at any depth) as ordered pairs,
    each tagged so that it reads back as a dictionary, in its order."""
    if isinstance(value, dict):
        return ["dict", [[k, _tagged(v)] for k, v in value.items()]]
    if isinstance(value, list):
        return ["list", [_tagged(v) for v in value]]
    return ["value", value]


def _untagged(data: list[Any]) -> Any:
    tag, value = data
    if tag == "dict":
        return {k: _untagged(v) for k, v in value}
    if tag == "list":
        return [_untagged(v) for v in value]
    return value


def _optional(cls: type) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    return (
        lambda value: asdict(value) if value is not None else None,
        lambda data: cls(**data) if data is not None else None,
    )


# Field -> (to JSON, from JSON), for the fields that are not plain values.
_FORMS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "board": (lambda board: board.name, load_board),
    "rules": (lambda rules: rules.to_dict(), RuleSet.from_dict),
    "mode": (lambda mode: mode.name, mode_named),
    "seats": (
        lambda seats: [asdict(seat) for seat in seats.values()],
        lambda data: {s["id"]: Seat(**s) for s in data},
    ),
    "armies": (
        lambda armies: [[t, p, n] for (t, p), n in armies.items()],
        lambda data: {(t, p): n for t, p, n in data},
    ),
    "order": (list, tuple),
    "winners": (list, tuple),
    "shared": (sorted, set),
    "pending_battle": _optional(PendingBattle),
    "occupation": _optional(Occupation),
    "missions": (
        lambda missions: [[k, [asdict(m) for m in v]] for k, v in missions.items()],
        lambda data: {k: [Mission(**m) for m in v] for k, v in data},
    ),
    "leaders": (
        lambda leaders: [[k, list(v)] for k, v in leaders.items()],
        lambda data: {k: tuple(v) for k, v in data},
    ),
    "mode_data": (_tagged, _untagged),
}


def _is_dict(annotation: Any) -> bool:
    """A field's annotation is its text in the pure build (``dict[str, int]``) and the
    class itself in the compiled one (``dict``): both name a dictionary."""
    return annotation is dict or (isinstance(annotation, str) and annotation.startswith("dict"))


_DICT_FIELDS = frozenset(f.name for f in FIELDS if _is_dict(f.type))


def state_to_dict(state: State) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in FIELDS:
        value = getattr(state, f.name)
        form = _FORMS.get(f.name)
        if form is not None:
            value = form[0](value)
        elif f.name in _DICT_FIELDS:
            value = _pairs(value)
        data[f.name] = value
    return data


def state_from_dict(data: dict[str, Any]) -> State:
    try:
        values: dict[str, Any] = {}
        for f in FIELDS:
            value = data[f.name]
            form = _FORMS.get(f.name)
            if form is not None:
                value = form[1](value)
            elif f.name in _DICT_FIELDS:
                value = dict(value)
            values[f.name] = value
        return State(**values)
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"bad snapshot: {error!r}") from None


def encode_state(state: State) -> bytes:
    return canonical(state_to_dict(state))


def decode_state(raw: bytes) -> State:
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise RecordError(f"snapshot is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise RecordError("a snapshot must be a JSON object")
    return state_from_dict(data)
