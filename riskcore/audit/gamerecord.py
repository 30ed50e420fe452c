"""The game record: a documented, versioned file an auditor can check offline.

Format ``risk-record`` version 1, JSON Lines, UTF-8:

1. a header object::

       {"record": "risk-record", "format": 1, "game_id": ..., "board": ...,
        "mode": ..., "rules": {...}, "seats": [...], "seed_commitment": <sha256 hex>,
        "player_seeds": {...}, "engine": {"name": "riskcore", "codec": 1},
        "redacted": false, "complete": true}

2. one line per event, in version order::

       {"n": <version>, "hash": <hex>, "prev": <hex>, "payload": <envelope>}

   ``payload`` is the stored envelope (``riskcore.audit.record``) as a JSON
   object; its canonical encoding is exactly the bytes that were hashed
   (``riskcore.audit.chain``), so the chain is checked without trusting the server;

3. for a finished game, a trailer ``{"seed": <hex>}`` revealing the server
   seed (it is also inside the final ``game_finished`` event).

While a game runs, a record is redacted for its reader (hidden cards are
-1) and says so with ``"redacted": true``: its hash chain cannot be checked
then, since hashes cover the unredacted events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from riskcore.errors import RecordError
from riskcore.protocol.codec import CODEC_VERSION, canonical, event_from_dict, event_to_dict

RECORD_NAME = "risk-record"
RECORD_FORMAT = 1


@dataclass(frozen=True, slots=True)
class RecordEntry:
    version: int
    hash: str
    prev: str
    payload: dict[str, Any]
    line: int

    def payload_bytes(self) -> bytes:
        return canonical(self.payload)


@dataclass(slots=True)
class GameRecord:
    header: dict[str, Any]
    entries: list[RecordEntry] = field(default_factory=list)
    seed: str | None = None


def header_for(created: dict[str, Any], *, redacted: bool, complete: bool) -> dict[str, Any]:
    """The header, from the ``game_created`` event's fields."""
    created = event_to_dict(event_from_dict(created))  # a game_created of any version
    return {
        "record": RECORD_NAME,
        "format": RECORD_FORMAT,
        "game_id": created["game_id"],
        "board": created["board"],
        "mode": created["mode"],
        "rules": created["rules"],
        "seats": created["seats"],
        "seed_commitment": created["seed_commitment"],
        "player_seeds": created["player_seeds"],
        "engine": {"name": "riskcore", "codec": CODEC_VERSION},
        "redacted": redacted,
        "complete": complete,
    }


def record_lines(
    header: dict[str, Any],
    events: Iterable[tuple[int, bytes, bytes, dict[str, Any]]],
    seed: str | None,
) -> Iterable[str]:
    """Lines of a record: ``events`` are (version, hash, prev, payload object)."""
    yield json.dumps(header, sort_keys=True, ensure_ascii=False)
    for version, digest, prev, payload in events:
        line = {"n": version, "hash": digest.hex(), "prev": prev.hex(), "payload": payload}
        yield json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if seed is not None:
        yield json.dumps({"seed": seed})


def parse_record(text: str) -> GameRecord:
    """Parse a record; RecordError says which line is wrong and why."""
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise RecordError("the record is empty")
    header = _json_line(*lines[0])
    if header.get("record") != RECORD_NAME:
        raise RecordError("line 1: not a risk-record header")
    if header.get("format") != RECORD_FORMAT:
        raise RecordError(f"line 1: unknown record format {header.get('format')!r}")
    record = GameRecord(header)
    for number, line in lines[1:]:
        obj = _json_line(number, line)
        if "seed" in obj and "payload" not in obj:
            record.seed = _text(obj, "seed", number)
            continue
        if record.seed is not None:
            raise RecordError(f"line {number}: event after the seed trailer")
        record.entries.append(_entry(obj, number))
    return record


def _json_line(number: int, line: str) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except ValueError as error:
        raise RecordError(f"line {number}: not JSON ({error})") from None
    if not isinstance(obj, dict):
        raise RecordError(f"line {number}: expected a JSON object")
    return obj


def _entry(obj: dict[str, Any], number: int) -> RecordEntry:
    version = obj.get("n")
    payload = obj.get("payload")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordError(f"line {number}: missing event version 'n'")
    if not isinstance(payload, dict):
        raise RecordError(f"line {number}: missing event payload")
    return RecordEntry(
        version, _text(obj, "hash", number), _text(obj, "prev", number), payload, number
    )


def _text(obj: dict[str, Any], key: str, number: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise RecordError(f"line {number}: missing {key!r}")
    return value
