"""One pass over a finished record's event lines: chain, secrets and replay at once.

``riskcore.audit.verify`` checks a record step by step: parse every line
into dicts, hash, decode, replay, compare. For a finished game in the
server's layout (``record_lines``: keys sorted, no whitespace) most of that
work proves the same thing twice, so this pass reads each line once, left
to right, and checks each part of it where it stands:

- the envelope's own fields before the event (``a``, ``b``, ``c``) are read
  by the JSON scanner and must be written canonically (their canonical
  encoding is the text they were read from); the command is replayed;
- the event is not read at all: the text where it stands must *start with*
  the canonical encoding of the replayed event (its secret fields hidden
  where the line commits to them), which proves it is that event, written
  canonically, and ends where that encoding ends;
- the fields after it (``n``, ``t``, ``x``) are read and must be canonical;
  the payload's text is then, byte for byte, the canonical encoding of the
  envelope the line holds, and the chain hashes that text: exactly the
  chain's own rule (``riskcore.audit.chain``);
- ``prev`` must be the hash before it, the secret values given must be the
  replayed event's and open the commitment ``x``.

It only ever says yes: anything it does not find exactly as the server
writes it (another layout, an old schema, a tampered byte, a refused
command) makes it return None, and the caller checks the record step by
step, which names the fault. So it accepts a record only where the
step-by-step checks would, and is stricter where they are lenient (a
command on an event inside a batch, a commitment on an event without
secrets: those go the step-by-step way).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from riskcore.audit.chain import GENESIS
from riskcore.audit.sealing import matches, public_event, salt
from riskcore.model.state import State
from riskcore.protocol import events as ev
from riskcore.protocol.codec import canonical_text, event_text, event_to_dict

# The decoder's own scanner (as ``riskcore.audit.gamerecord`` reads lines).
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_HASH_END = 73  # '{"hash":"' and 64 hex digits
Decide = Callable[[State, int, Any, str], list[ev.Event]]
Progress = Callable[[int], None]


class Mismatch(Exception):
    """A line is not exactly what the server writes for the replayed event."""


@dataclass(slots=True)
class Passed:
    """What the pass found: the state after the last event, the head, every hash."""

    state: State
    head: str
    hashes: list[str]


@dataclass(slots=True)
class Game:
    """What the pass needs to know of the game: from its first and last events."""

    game_id: str
    seed: bytes
    sealed: bool  # record format 2: secret fields hidden and committed to


def check_lines(
    lines: list[str],
    game: Game,
    opening: list[ev.Event],
    state: State,
    decide: Decide,
    progress: Progress | None = None,
) -> Passed | None:
    """Check event lines ``lines`` (version 1 first) against the replay from
    ``state`` (the opening applied; ``opening`` its events); None at the first
    thing that is not exactly as expected."""
    try:
        return _check(lines, game, opening, state, decide, progress)
    except (Mismatch, StopIteration, ValueError, TypeError, KeyError, IndexError):
        return None


def _check(
    lines: list[str],
    game: Game,
    opening: list[ev.Event],
    state: State,
    decide: Decide,
    progress: Progress | None,
) -> Passed:
    sha256 = hashlib.sha256
    prev = GENESIS
    prev_hex = GENESIS.hex()
    hashes: list[str] = []
    pending = opening
    taken = 0
    actors: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        version = str(number)
        if not line.startswith('{"hash":"') or not line.startswith(
            '","n":' + version + ',"payload":{"a":', _HASH_END
        ):
            raise Mismatch
        start = _HASH_END + len(version) + 17  # the payload's '{'
        actor, i = _canonical_str(line, start + 5, actors)
        command = None
        if line.startswith(',"b":', i):
            _, i = _canonical(line, i + 5)
        if line.startswith(',"c":', i):
            command, i = _canonical(line, i + 5)
        if taken == len(pending):
            if command is None:
                raise Mismatch
            pending = decide(state, number, command, actor)
            taken = 0
            if progress is not None:
                progress(len(pending))
        elif command is not None:
            raise Mismatch  # the server records a command on a batch's first event only
        event = pending[taken]
        taken += 1
        committed = game.sealed and bool(type(event).SECRET)
        secret = _secret(event) if committed else None
        encoded = (
            event_text(event)
            if secret is None
            else canonical_text(public_event(event_to_dict(event), secret))
        )
        if not line.startswith(',"e":', i) or not line.startswith(encoded, i + 5):
            raise Mismatch
        i += 5 + len(encoded)
        if not line.startswith(',"n":' + version + ',"t":', i):
            raise Mismatch
        time_ms, j = _SCAN(line, i + 10 + len(version))
        if type(time_ms) is not int or line[i + 10 + len(version) : j] != str(time_ms):
            raise Mismatch
        i = j
        commitment = None
        if line.startswith(',"x":', i):
            commitment, i = _canonical_str(line, i + 5, None)
        if (commitment is not None) != committed or not line.startswith(
            '},"prev":"' + prev_hex + '"', i
        ):
            raise Mismatch
        end = i + 1
        i = end + 74  # past ',"prev":"<64 hex>"'
        given_salt = given_secret = None
        if line.startswith(',"salt":', i):
            given_salt, i = _SCAN(line, i + 8)
        if line.startswith(',"secret":', i):
            given_secret, i = _SCAN(line, i + 10)
        if i != len(line) - 1 or line[i] != "}":
            raise Mismatch
        prev = sha256(prev + line[start:end].encode()).digest()
        prev_hex = prev.hex()
        if not line.startswith(prev_hex, 9):
            raise Mismatch
        hashes.append(prev_hex)
        if committed:
            _opens(game, number, secret, commitment, given_salt, given_secret)
        elif given_salt is not None or given_secret is not None:
            raise Mismatch
    if taken != len(pending) or not hashes:
        raise Mismatch
    return Passed(state, prev_hex, hashes)


def _canonical_str(line: str, i: int, seen: dict[str, str] | None) -> tuple[str, int]:
    """The JSON string at ``i``, which must be written as canonical JSON writes it
    (``seen``: the strings already found so, by their text)."""
    value, j = _SCAN(line, i)
    text = line[i:j]
    if seen is not None and seen.get(text) is not None:
        return seen[text], j
    if type(value) is not str or canonical_text(value) != text:
        raise Mismatch
    if seen is not None:
        seen[text] = value
    return value, j


def _canonical(line: str, i: int) -> tuple[dict[str, Any], int]:
    """The JSON object at ``i``, which must be written canonically."""
    value, j = _SCAN(line, i)
    if type(value) is not dict or canonical_text(value) != line[i:j]:
        raise Mismatch
    return value, j


def _secret(event: ev.Event) -> dict[str, Any]:
    """The replayed event's secret fields and their values, as a line gives them."""
    data = event_to_dict(event)
    return {name: data[name] for name in type(event).SECRET}


def _opens(
    game: Game,
    version: int,
    secret: dict[str, Any] | None,
    commitment: Any,
    given_salt: Any,
    given_secret: Any,
) -> None:
    """The line gives the replayed event's secret values, they open its commitment
    under the salt the seed derives, and a salt it gives is that one."""
    if secret is None or given_secret != secret or type(commitment) is not str:
        raise Mismatch
    event_salt = salt(game.seed, game.game_id, version)
    if given_salt is not None and given_salt != event_salt.hex():
        raise Mismatch
    if not matches(given_secret, event_salt, commitment):
        raise Mismatch
