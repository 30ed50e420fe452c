"""The game record: a documented, versioned file an auditor can check offline.

Format ``risk-record`` (docs/records.md has both versions, what the chain
proves and what it does not), JSON Lines, UTF-8:

1. a header object::

       {"record": "risk-record", "format": 2, "game_id": ..., "board": ...,
        "mode": ..., "rules": {...}, "seats": [...], "seed_commitment": <sha256 hex>,
        "player_seeds": {...}, "engine": {"name": "riskcore", "codec": 1},
        "redacted": false, "complete": true}

   Its game facts are copies of the ``game_created`` event's, and ``format``
   is that event's ``record_format``: the verifier checks them;

2. one line per event, in version order::

       {"n": <version>, "hash": <hex>, "prev": <hex>, "payload": <envelope>,
        "secret": {...}?, "salt": <hex>?}

   ``payload`` is the envelope (``riskcore.audit.record``) as a JSON object
   whose canonical encoding is exactly the bytes that were hashed
   (``riskcore.audit.chain``), so the chain is checked without trusting the
   server. In format 2 an event with secret fields shows them hidden in
   ``payload``, which carries the commitment ``x`` to them; ``secret`` gives
   their values, to everyone once the game is over and to the seats that may
   see them before, with that event's ``salt`` so the seat can check the
   commitment at once (``riskcore.audit.sealing``). In format 1 ``payload``
   is the whole stored envelope;

3. for a finished game, a trailer ``{"seed": <hex>}`` revealing the server
   seed (it is also inside the final ``game_finished`` event).

While a game runs its record is redacted for its reader and says so with
``"redacted": true``. In format 2 its chain is checked like a finished
game's; in format 1 the hashes cover the unredacted events, so they are
withheld (``hash`` and ``prev`` left out) until the end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from riskcore.audit.sealing import public_envelope, salt, secret_of
from riskcore.errors import RecordError
from riskcore.protocol.codec import (
    CODEC_VERSION,
    canonical,
    canonical_text,
    event_from_dict,
    event_to_dict,
)
from riskcore.protocol.events import RECORD_FORMAT
from riskcore.protocol.frozen import fast_init
from riskcore.views.view import redact

RECORD_NAME = "risk-record"
RECORD_FORMATS = (1, RECORD_FORMAT)
# The header's copies of game_created's fields.
HEADER_FACTS = ("game_id", "board", "mode", "rules", "seats", "seed_commitment", "player_seeds")


@fast_init  # one per line of a record: verification builds thousands
@dataclass(frozen=True, slots=True, kw_only=True)
class RecordEntry:
    version: int
    hash: str | None  # None: withheld (a running format-1 game)
    prev: str | None
    payload: dict[str, Any]
    line: int
    secret: dict[str, Any] | None = None
    salt: str | None = None
    # The payload's own JSON text in its line, when the line is in the server's
    # layout (``server_line``); None for a line laid out otherwise.
    text: str | None = None

    def payload_bytes(self) -> bytes:
        """The bytes the chain hashed."""
        return canonical(self.payload)

    def envelope(self) -> dict[str, Any]:
        """The envelope with the secret fields the record reveals (all, once complete)."""
        if not self.secret:
            return self.payload
        return {**self.payload, "e": {**self.payload["e"], **self.secret}}


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
        "format": created["record_format"],
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
    header: dict[str, Any], lines: Iterable[dict[str, Any]], seed: str | None
) -> Iterable[str]:
    """Lines of a record: the header, the event lines (``event_lines``), the seed."""
    yield json.dumps(header, sort_keys=True, ensure_ascii=False)
    for line in lines:
        yield canonical_text(line)  # json.dumps(sort_keys, compact, ensure_ascii=False)
    if seed is not None:
        yield json.dumps({"seed": seed})


@dataclass(frozen=True, slots=True)
class Reader:
    """Who a record is for: ``viewer`` (None: a spectator) while the game runs, or
    everyone once it is ``complete``. ``seed`` gives the salts of the secrets the
    viewer may see; ``record_format`` is the game's."""

    game_id: str
    record_format: int
    complete: bool
    viewer: str | None = None
    seed: bytes | None = None


def event_lines(
    stored: Iterable[tuple[int, bytes, bytes, bytes]], reader: Reader
) -> Iterator[dict[str, Any]]:
    """Record lines from stored events ``(version, hash, prev, payload bytes)``."""
    withheld = reader.record_format < 2 and not reader.complete
    for version, digest, prev, raw in stored:
        envelope = json.loads(raw)
        line: dict[str, Any] = {"n": version}
        if not withheld:
            line["hash"], line["prev"] = digest.hex(), prev.hex()
        if "x" in envelope:
            line["payload"] = public_envelope(envelope)
            secret = secret_of(envelope["e"])
            if reader.complete:
                line["secret"] = secret
            elif _sees_all(envelope["e"], reader.viewer) and reader.seed is not None:
                line["secret"] = secret
                line["salt"] = salt(reader.seed, reader.game_id, version).hex()
        elif reader.complete:
            line["payload"] = envelope
        else:
            line["payload"] = {**envelope, "e": _redacted(envelope["e"], reader.viewer)}
        yield line


def _sees_all(event: dict[str, Any], viewer: str | None) -> bool:
    decoded = event_from_dict(event)
    return viewer is not None and redact(decoded, viewer) == decoded


def _redacted(event: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    decoded = event_from_dict(event)
    seen = redact(decoded, viewer)
    return event if seen is decoded else event_to_dict(seen)


def parse_record(text: str) -> GameRecord:
    """Parse a record; RecordError says which line is wrong and why."""
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise RecordError("the record is empty")
    header = json_line(*lines[0])
    if header.get("record") != RECORD_NAME:
        raise RecordError("line 1: not a risk-record header")
    if header.get("format") not in RECORD_FORMATS:
        raise RecordError(f"line 1: unknown record format {header.get('format')!r}")
    record = GameRecord(header)
    withheld = header.get("redacted") is True
    for number, line in lines[1:]:
        entry = server_line(number, line) if line.startswith(_SERVER_LINE) else None
        if entry is not None:
            if record.seed is not None:
                raise RecordError(f"line {number}: event after the seed trailer")
            record.entries.append(entry)
            continue
        obj = json_line(number, line)
        if "seed" in obj and "payload" not in obj:
            record.seed = _text(obj, "seed", number)
            continue
        if record.seed is not None:
            raise RecordError(f"line {number}: event after the seed trailer")
        record.entries.append(_entry(obj, number, withheld))
    return record


# The decoder's own scanner: ``json.loads`` is this scanner plus whitespace
# skipping and checks around it, which cost as much as the scan of a short line.
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def json_line(number: int, line: str) -> dict[str, Any]:
    """One line's JSON value, exactly as ``json.loads`` reads it.

    A line that is one JSON value from its first character to its last (every
    line the server writes) is read by the scanner alone; any other line goes
    through ``json.loads``, which reads or refuses it with its usual message.
    """
    try:
        obj, end = _SCAN(line, 0)
    except (StopIteration, ValueError):
        end = -1
    if end != len(line):
        try:
            obj = json.loads(line)
        except ValueError as error:
            raise RecordError(f"line {number}: not JSON ({error})") from None
    if not isinstance(obj, dict):
        raise RecordError(f"line {number}: expected a JSON object")
    return obj


_SERVER_LINE = '{"hash":'


def server_line(number: int, line: str) -> RecordEntry | None:
    """The entry of a line in the layout the server writes (``record_lines``:
    keys sorted, no whitespace), or None for any other line.

    Each value is read by the scanner where the layout puts it, so the entry
    is the one ``json.loads`` reads from the line, and the payload's own text
    is kept beside it: the chain can hash it without encoding the payload
    again (``riskcore.audit.verify``). Anything else (another key, a space, a
    value of the wrong kind) is left to the general path and its messages.
    """
    try:
        digest, i = _SCAN(line, 8)
        if not line.startswith(',"n":', i):
            return None
        version, i = _SCAN(line, i + 5)
        if not line.startswith(',"payload":', i):
            return None
        start = i + 11
        payload, i = _SCAN(line, start)
        text = line[start:i]
        if not line.startswith(',"prev":', i):
            return None
        prev, i = _SCAN(line, i + 8)
        salt_hex: Any = None
        secret: Any = None
        if line.startswith(',"salt":', i):
            salt_hex, i = _SCAN(line, i + 8)
            if type(salt_hex) is not str:  # a salt given must be text, even null is not
                return None
        if line.startswith(',"secret":', i):
            secret, i = _SCAN(line, i + 10)
    except (StopIteration, ValueError):
        return None
    if (
        i != len(line) - 1
        or line[i] != "}"
        or type(version) is not int
        or type(digest) is not str
        or type(prev) is not str
        or type(payload) is not dict
        or type(payload.get("e")) is not dict
        or not (secret is None or type(secret) is dict)
    ):
        return None
    return RecordEntry(
        version=version,
        hash=digest,
        prev=prev,
        payload=payload,
        line=number,
        secret=secret,
        salt=salt_hex,
        text=text,
    )


def _entry(obj: dict[str, Any], number: int, may_withhold: bool) -> RecordEntry:
    version = obj.get("n")
    payload = obj.get("payload")
    secret = obj.get("secret")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordError(f"line {number}: missing event version 'n'")
    if not isinstance(payload, dict) or not isinstance(payload.get("e"), dict):
        raise RecordError(f"line {number}: missing event payload")
    if secret is not None and not isinstance(secret, dict):
        raise RecordError(f"line {number}: 'secret' must be an object")
    salt_hex = _text(obj, "salt", number) if "salt" in obj else None
    if may_withhold and "hash" not in obj and "prev" not in obj:
        digest = prev = None
    else:
        digest, prev = _text(obj, "hash", number), _text(obj, "prev", number)
    return RecordEntry(
        version=version,
        hash=digest,
        prev=prev,
        payload=payload,
        line=number,
        secret=secret,
        salt=salt_hex,
    )


def _text(obj: dict[str, Any], key: str, number: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise RecordError(f"line {number}: missing {key!r}")
    return value
