"""The event codec: the one place events become JSON and JSON becomes events.

Wire form of an event: ``{"type": ..., "v": <schema version>, <fields>}``.
Canonical bytes (what hashes are computed over) are that object as JSON
with sorted keys, no whitespace, UTF-8, and no floats anywhere. Decoding
passes old schema versions through registered upcasters first, so a record
written today still replays after an event changes shape.

State snapshots use the same rules (``state_to_dict``/``state_from_dict``),
stamped with ``SNAPSHOT_STAMP`` so a snapshot from other code is ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from riskcore.errors import RecordError
from riskcore.protocol import events as ev
from riskcore.protocol.declared import field_names

CODEC_VERSION = 1
EVENT_CLASSES = ev.EVENT_CLASSES  # by wire name, including the events modes register
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
# (type, from_version) -> function returning the object at from_version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


# Per event class, its field names (made on first use, since modes register
# event classes after this module is loaded).
_FIELDS: dict[type[ev.Event], tuple[str, ...]] = {}


def _fields(cls: type[ev.Event]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = field_names(cls)
    return names


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function that lifts ``event_type`` from one schema version."""

    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(event_type, from_version)] = fn
        return fn

    return register


def event_to_dict(event: ev.Event) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event.TYPE, "v": event.VERSION}
    for name in _fields(type(event)):
        value = getattr(event, name)
        data[name] = list(value) if isinstance(value, tuple) else value
    return data


# Per event class with two fields or more, one getter of all its fields' values.
_GETTERS: dict[type[ev.Event], Callable[[Any], Any]] = {}


def event_to_wire(event: ev.Event) -> dict[str, Any]:
    """``event_to_dict`` with tuples left as tuples: canonical JSON encodes them as
    the very lists that function makes, so the encoding is the same bytes, with
    the values read in C (the audit's byte-for-byte replay encodes every event)."""
    cls = type(event)
    names = _fields(cls)
    data: dict[str, Any] = {"type": cls.TYPE, "v": cls.VERSION}
    if len(names) < 2:
        data.update((name, getattr(event, name)) for name in names)
        return data
    getter = _GETTERS.get(cls)
    if getter is None:
        getter = _GETTERS[cls] = attrgetter(*names)
    data.update(zip(names, getter(event), strict=True))
    return data


def event_from_dict(data: dict[str, Any]) -> ev.Event:
    """Decode (and upcast) one event; RecordError names what is wrong."""
    try:
        kind = data["type"]
        cls = EVENT_CLASSES[kind]
        version = data.get("v", 1)
        while version < cls.VERSION:
            data = UPCASTERS[(kind, version)](data)
            version += 1
        if version != cls.VERSION:
            raise RecordError(f"{kind} schema version {version!r} is newer than this engine")
        values = {name: data[name] for name in _fields(cls)}
        for name in ev.TUPLE_FIELDS[cls]:
            values[name] = tuple(values[name])
        return cls(**values)
    except RecordError:
        raise
    except (KeyError, TypeError, AttributeError) as error:
        raise RecordError(f"cannot decode event {str(data)[:120]}: {error!r}") from None


# One encoder for every call: json.dumps builds a new one whenever options are given.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _c_encoder() -> Callable[[Any], str] | None:
    """``_CANONICAL.encode`` made once, for the C encoder ``JSONEncoder`` builds on
    every call (with a fresh table of the containers it has entered, for its
    circular-reference check): the same bytes, ~30 % faster on events. Events and
    the dicts around them are trees, so the check can go; a cycle would still
    fail, with a RecursionError. None where the C accelerator is missing."""
    make = getattr(json.encoder, "c_make_encoder", None)
    text = getattr(json.encoder, "c_encode_basestring", None)
    if make is None or text is None:  # pragma: no cover - CPython has both
        return None
    encode = make(None, _CANONICAL.default, text, None, ":", ",", True, False, True)

    def canonical_c(obj: Any) -> str:
        if type(obj) is str:  # JSONEncoder.encode's own shortcut for a bare string
            return _CANONICAL.encode(obj)
        return "".join(encode(obj, 0))

    return canonical_c


_canonical_c = _c_encoder()


def canonical_text(obj: Any) -> str:
    """Canonical JSON as text: sorted keys, compact, non-ASCII kept (``canonical``)."""
    if _canonical_c is not None:
        return _canonical_c(obj)
    return _CANONICAL.encode(obj)  # pragma: no cover - CPython has the C encoder


def canonical(obj: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, compact, UTF-8 (events hold no floats)."""
    return canonical_text(obj).encode()


def event_text(event: ev.Event) -> str:
    """``canonical_text(event_to_dict(event))``, the same text, from a template.

    The audit encodes every replayed event (``riskcore.audit.onepass``), and the
    JSON encoder spends most of its time on what is the same for every event of
    a class: listing and sorting the keys, escaping them. So each class gets a
    format string once, its keys in sorted order and its type and version
    written in (``_template``), and only the values are encoded, each by the
    encoder canonical JSON uses for its type (``_VALUE_TEXT``). A value of any
    other type (a float, a subclass) gets the encoder's own text for the event.
    """
    cls = type(event)
    template = _TEMPLATES.get(cls)
    if template is None:
        template = _TEMPLATES[cls] = _template(cls)
    form, getter = template
    try:
        return form % tuple([_VALUE_TEXT[type(value)](value) for value in getter(event)])
    except KeyError:
        return canonical_text(event_to_wire(event))


def _template(cls: type[ev.Event]) -> tuple[str, Callable[[Any], tuple[Any, ...]]]:
    """The class's format string (one ``%s`` per field, keys sorted) and a getter
    of its fields' values in that order."""
    names = sorted(_fields(cls))
    parts = {name: _json_str(name) + ":%s" for name in names}
    for name, value in (("type", cls.TYPE), ("v", cls.VERSION)):
        if name in parts:  # pragma: no cover - no event has a field named so
            raise ValueError(f"{cls.__name__} has a field named {name!r}")
        parts[name] = (_json_str(name) + ":" + canonical_text(value)).replace("%", "%%")
    form = "{" + ",".join(parts[key] for key in sorted(parts)) + "}"
    if len(names) == 1:
        only = names[0]
        return form, lambda event: (getattr(event, only),)
    return form, attrgetter(*names) if names else lambda event: ()


def _json_str(text: str) -> str:
    return canonical_text(text).replace("%", "%%")


_BOOL_TEXT = {True: "true", False: "false"}
# By a value's exact type, its canonical JSON text (``canonical_text`` for the rest).
_VALUE_TEXT: dict[type, Callable[[Any], str]] = {
    int: int.__repr__,
    str: json.encoder.encode_basestring,
    bool: _BOOL_TEXT.__getitem__,
    type(None): lambda _: "null",
    tuple: canonical_text,
    list: canonical_text,
    dict: canonical_text,
}
_TEMPLATES: dict[type[ev.Event], tuple[str, Callable[[Any], tuple[Any, ...]]]] = {}


def encode_event(event: ev.Event) -> bytes:
    return canonical(event_to_dict(event))


def decode_event(raw: bytes | str) -> ev.Event:
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise RecordError(f"event is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise RecordError("an event must be a JSON object")
    return event_from_dict(data)


# The upcasters of the versions this engine has outgrown register themselves here.
from riskcore.protocol import upcasters  # noqa: E402, F401
