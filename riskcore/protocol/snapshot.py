"""State snapshots: a cache that makes loading a long game cheap.

A snapshot is the whole state as canonical JSON, stamped with
``SNAPSHOT_STAMP``. Canonical JSON sorts object keys, but the order of a
state's dictionaries matters (legal actions, and so bots' choices, list
territories in the order the state holds them), so every dictionary is
written as a list of ``[key, value]`` pairs in its own order: a restored
state is the folded one, iteration order included.

The stamp changes whenever the state shape, the codec or the rules code
changes in a way that could alter a fold, so a snapshot written by other
code is ignored and the game is folded from its events instead. Snapshots
are never the source of truth: events are.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any

from riskcore.boards.board import load_board
from riskcore.errors import RecordError
from riskcore.model.options import RuleSet
from riskcore.model.state import Occupation, PendingBattle, Seat, State
from riskcore.protocol.codec import CODEC_VERSION, canonical

STATE_SHAPE_VERSION = 2  # 2: dictionaries as ordered pairs
SNAPSHOT_STAMP = f"codec{CODEC_VERSION}.state{STATE_SHAPE_VERSION}"
# The state's dictionaries written as ordered pairs (``seats`` and ``armies``
# have their own forms).
_PAIRED = frozenset(
    {"player_seeds", "owner", "reserve", "setup_quota", "hands", "out", "missions", "leaders"}
    | {"scores"}
)


def state_to_dict(state: State) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in fields(State):
        value = getattr(state, f.name)
        if f.name == "board":
            value = value.name
        elif f.name == "rules":
            value = value.to_dict()
        elif f.name == "seats":
            value = [asdict(seat) for seat in value.values()]
        elif f.name == "armies":
            value = [[t, p, n] for (t, p), n in value.items()]
        elif f.name in ("pending_battle", "occupation"):
            value = asdict(value) if value is not None else None
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = [[k, v] for k, v in value.items()]
        data[f.name] = value
    return data


def state_from_dict(data: dict[str, Any]) -> State:
    try:
        values: dict[str, Any] = {k: dict(v) if k in _PAIRED else v for k, v in data.items()}
        values["board"] = load_board(data["board"])
        values["rules"] = RuleSet.from_dict(data["rules"])
        values["seats"] = {s["id"]: Seat(**s) for s in data["seats"]}
        values["order"] = tuple(data["order"])
        values["armies"] = {(t, p): n for t, p, n in data["armies"]}
        if data["pending_battle"] is not None:
            values["pending_battle"] = PendingBattle(**data["pending_battle"])
        if data["occupation"] is not None:
            values["occupation"] = Occupation(**data["occupation"])
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
