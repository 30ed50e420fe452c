"""The record checks of ``riskcore.audit.verify`` before the replay: 1 to 7.

``structure`` (with ``known_engine`` and ``complete``), ``chain`` (and
``hashed_canonically``, its rule for an event the replay did not match byte
for byte), ``anchor``, ``decode`` (``decode_ends`` for a record
``replayable`` chose), ``header``, ``seed_matches_commitment`` (the ``revealed_seed``)
and ``secrets``. Each raises ``Failed`` (``riskcore.audit.verdict``) naming
the first fault; the replay, check 8, is ``riskcore.audit.verify_replay``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from riskcore.audit.chain import GENESIS, event_hash
from riskcore.audit.gamerecord import HEADER_FACTS, GameRecord, RecordEntry
from riskcore.audit.record import Envelope, envelope_from_dict
from riskcore.audit.sealing import hidden, matches, salt, secret_fields
from riskcore.audit.verdict import Failed, fail
from riskcore.errors import RiskError
from riskcore.protocol import events as ev
from riskcore.protocol.codec import CODEC_VERSION, EVENT_CLASSES, event_to_dict
from riskcore.protocol.dice import commitment

__all__ = [
    "anchor",
    "chain",
    "complete",
    "decode",
    "decode_ends",
    "envelope",
    "hashed_canonically",
    "header",
    "known_engine",
    "replayable",
    "revealed_seed",
    "secrets",
    "seed_matches_commitment",
    "structure",
]


def structure(record: GameRecord) -> None:
    known_engine(record)
    if not record.entries:
        raise fail("structure", "the record has no events")
    for expected, entry in enumerate(record.entries, 1):
        if entry.version != expected or entry.payload.get("n") != entry.version:
            raise fail(
                "structure",
                f"line {entry.line}: events out of order or missing",
                version=expected,
                field="n",
                expected=expected,
                found=entry.version,
            )
    complete(record)


def known_engine(record: GameRecord) -> None:
    """The header's engine and format are ones this engine can verify."""
    header = record.header
    engine = header.get("engine", {})
    codec = engine.get("codec", 0) if isinstance(engine, dict) else None
    if not isinstance(codec, int) or codec > CODEC_VERSION:
        raise fail(
            "structure",
            "the record comes from an engine newer than this one",
            field="engine.codec",
            expected=f"<= {CODEC_VERSION}",
            found=codec if isinstance(engine, dict) else engine,
        )
    if header.get("redacted") and header.get("format") == 1:
        raise fail(
            "structure", "a redacted record of format 1 cannot be verified; fetch it after the end"
        )


def complete(record: GameRecord) -> None:
    """A record that says it is complete must be: unredacted, ending in game_finished."""
    if header_complete := record.header.get("complete"):
        if record.header.get("redacted"):
            raise fail("structure", "a record cannot be both complete and redacted")
        last = record.entries[-1]
        if last.payload["e"].get("type") != ev.GameFinished.TYPE:
            raise fail(
                "structure",
                "the record says it is complete but does not end in game_finished: cut short",
                version=last.version,
                field="complete",
                expected=ev.GameFinished.TYPE,
                found=last.payload["e"].get("type"),
            )
    elif header_complete is not False:
        raise fail("structure", "the header does not say whether the record is complete")


def chain(record: GameRecord, by_text: bool = False) -> str:
    """Every ``prev`` and ``hash``; ``by_text``: over each payload's own text where
    its line kept it (``RecordEntry.text``), else over its canonical encoding.

    Hashing the text is the same check, once the text is known to be the
    canonical encoding of its payload: then the two are the same bytes. That
    is proven later, for every event, by the replay (``verify_replay.replay_texts``), whose
    byte-for-byte comparison encodes the replayed envelope canonically anyway;
    an event whose text hashes right but is not canonical fails there as a
    ``chain`` divergence, with the hash the canonical bytes give. So the
    payload is encoded once per event, not once for the chain and again for
    the replay. A text that does not hash right is encoded here and checked
    the usual way (a record written in another layout).
    """
    withheld = next((entry for entry in record.entries if entry.hash is None), None)
    if withheld is not None:
        raise fail(
            "chain",
            "the record withholds its hashes: it cannot be checked until the game ends",
            version=withheld.version,
            field="hash",
        )
    prev = GENESIS
    prev_hex = GENESIS.hex()
    sha256 = hashlib.sha256
    for entry in record.entries:
        if entry.prev != prev_hex:
            raise fail(
                "chain",
                f"event {entry.version} does not follow the event before it",
                version=entry.version,
                field="prev",
                expected=prev_hex,
                found=entry.prev,
            )
        text = entry.text if by_text else None
        digest = sha256(prev + text.encode()).digest() if text is not None else b""
        prev_hex = digest.hex()
        if prev_hex != entry.hash:
            digest = event_hash(prev, entry.payload_bytes())
            prev_hex = digest.hex()
            if entry.hash != prev_hex:
                raise _altered(entry, prev_hex)
        prev = digest
    return "passed"


def _altered(entry: RecordEntry, expected: str) -> Failed:
    return fail(
        "chain",
        f"event {entry.version} was altered after it was hashed",
        version=entry.version,
        field="hash",
        expected=expected,
        found=entry.hash,
    )


def hashed_canonically(entry: RecordEntry) -> None:
    """The chain's own rule for an event whose text the replay did not match byte
    for byte: its recorded hash must be that of its payload's canonical encoding
    (``chain`` may have hashed the text, which is only the same check for a
    canonical text; its ``prev`` is the hash before it, checked there)."""
    if entry.text is None:
        return  # ``chain`` hashed the canonical encoding
    expected = event_hash(bytes.fromhex(entry.prev or ""), entry.payload_bytes()).hex()
    if expected != entry.hash:
        raise _altered(entry, expected)


def anchor(record: GameRecord, heads: list[str]) -> None:
    """Each head a client saw is the hash of one of the record's events: the record
    is the one that client followed (or a longer one), not one rewritten since."""
    hashes = {entry.hash for entry in record.entries}
    for head in heads:
        if head not in hashes:
            raise fail(
                "anchor",
                "the record does not contain the expected head: it is not the chain you saw",
                field="hash",
                expected=head,
                found=record.entries[-1].hash,
            )


def decode(record: GameRecord) -> list[Envelope]:
    envelopes = [envelope(entry) for entry in record.entries]
    if not isinstance(envelopes[0].event, ev.GameCreated):
        raise fail("decode", "the first event is not game_created", version=1, field="e.type")
    return envelopes


def envelope(entry: RecordEntry) -> Envelope:
    try:
        return envelope_from_dict(entry.envelope())
    except RiskError as error:
        raise fail("decode", error.message, version=entry.version, field="payload") from None


def decode_ends(record: GameRecord) -> list[Envelope]:
    """The first and last envelopes only, for a record ``replayable`` chose.

    Every other event is decoded by its replay instead: one whose text is the
    canonical encoding of the replayed envelope decodes to the replayed event
    (the codec's encoding round-trips); any other is decoded in full there,
    and one that does not decode fails as ``decode`` at its version. Which
    event types and schema versions the record holds ``replayable`` has
    checked for all of them already.
    """
    first = envelope(record.entries[0])
    if not isinstance(first.event, ev.GameCreated):
        raise fail("decode", "the first event is not game_created", version=1, field="e.type")
    return [first, envelope(record.entries[-1])]


def replayable(record: GameRecord) -> bool:
    """Whether the record can be replayed byte for byte (``verify_replay.replay_texts``): a
    finished game (its last event reveals the seed) whose every event is of a
    type this engine knows at its current schema version, in an envelope of
    plain fields. Anything else (an old record to upcast, an odd envelope, a
    running game) goes the step-by-step way, which names every fault as it did.
    Only reads the parsed dicts: nothing here fails a record."""
    entries = record.entries
    last = entries[-1].payload["e"]
    if last.get("type") != ev.GameFinished.TYPE or type(last.get("seed")) is not str:
        return False
    classes = EVENT_CLASSES
    for entry in entries:
        payload = entry.payload
        event = payload["e"]
        cls = classes.get(event.get("type"))
        if (
            cls is None
            or event.get("v", 1) != cls.VERSION
            or type(payload.get("t")) is not int
            or type(payload.get("a")) is not str
        ):
            return False
    return True


_MISSING = object()


def header(record: GameRecord, created: ev.GameCreated) -> None:
    """The header repeats the first event's facts: each must be that event's, as
    recorded or as upcast (headers of old records copied the old event's form)."""
    recorded = record.entries[0].payload["e"]
    upcast = event_to_dict(created)
    for key in HEADER_FACTS:
        found = record.header.get(key, _MISSING)
        if found in (recorded.get(key, _MISSING), upcast[key]):
            continue
        raise fail(
            "header",
            f"the header's {key} is not the first event's",
            version=1,
            field=key,
            expected=upcast[key],
            found=None if found is _MISSING else found,
        )
    if record.header.get("format") != created.record_format:
        raise fail(
            "header",
            "the header's format is not the one the first event set",
            version=1,
            field="format",
            expected=created.record_format,
            found=record.header.get("format"),
        )


def revealed_seed(record: GameRecord, last_envelope: Envelope) -> str | None:
    last = last_envelope.event
    revealed = last.seed if isinstance(last, ev.GameFinished) else None
    if record.seed is not None and revealed is not None and record.seed != revealed:
        raise fail(
            "commitment",
            "the trailer's seed is not the one revealed in the final event",
            field="seed",
            expected=revealed,
            found=record.seed,
        )
    return revealed


def seed_matches_commitment(created: ev.GameCreated, seed: str) -> None:
    try:
        found = commitment(bytes.fromhex(seed))
    except ValueError:
        found = hashlib.sha256(seed.encode()).hexdigest()
    if found != created.seed_commitment:
        raise fail(
            "commitment",
            "the revealed seed does not match the commitment made before the first roll",
            version=1,
            field="seed_commitment",
            expected=created.seed_commitment,
            found=found,
        )


def secrets(record: GameRecord, created: ev.GameCreated, seed: str | None) -> str:
    """Every secret given is the one committed to (format 2); with the seed, all are."""
    sealed = created.record_format >= 2
    seed_bytes = bytes.fromhex(seed) if seed is not None else None
    checked = 0
    for entry in record.entries:
        event = entry.payload["e"]
        committed = entry.payload.get("x")
        if not sealed:
            if committed is not None:
                raise fail(
                    "secrets", "a format-1 event carries a commitment", version=entry.version
                )
            continue
        if committed is None:
            if secret_fields(event):
                raise fail(
                    "secrets",
                    f"event {entry.version} has secret fields but no commitment to them",
                    version=entry.version,
                    field="x",
                )
            continue
        checked += _secret(record, entry, committed, seed_bytes)
    if not sealed:
        return "skipped: format 1 hashes secrets with their events"
    if seed_bytes is None:
        return f"partial: {checked} given with their salt checked; the rest need the seed"
    return "passed"


def _secret(record: GameRecord, entry: RecordEntry, committed: Any, seed: bytes | None) -> int:
    """Check one committed secret if the record gives it; 1 if it was checked."""
    event = entry.payload["e"]
    version = entry.version
    if entry.secret is None:
        if seed is not None:
            raise fail("secrets", f"the secret of event {version} is missing", version=version)
        return 0
    names = secret_fields(event)
    if set(entry.secret) != set(names) or any(
        event.get(name) != hidden(value) for name, value in entry.secret.items()
    ):
        raise fail(
            "secrets",
            f"event {version} shows a secret field, or hides another than its own",
            version=version,
            field="secret",
            expected=list(names),
            found=sorted(entry.secret),
        )
    event_salt = _salt(record, entry, seed)
    if event_salt is None:
        return 0
    if not isinstance(committed, str) or not matches(entry.secret, event_salt, committed):
        raise fail(
            "secrets",
            f"the secret of event {version} is not the one committed to when it was hashed",
            version=version,
            field="x",
            expected=committed,
            found=entry.secret,
        )
    return 1


def _salt(record: GameRecord, entry: RecordEntry, seed: bytes | None) -> bytes | None:
    """The event's salt: derived from the seed once it is revealed (a salt the record
    gives must be that one), else the one given to the reader, if any."""
    game_id = str(record.header.get("game_id"))
    if seed is not None:
        derived = salt(seed, game_id, entry.version)
        if entry.salt is not None and entry.salt != derived.hex():
            raise fail(
                "secrets",
                f"the salt of event {entry.version} is not derived from the seed",
                version=entry.version,
                field="salt",
                expected=derived.hex(),
                found=entry.salt,
            )
        return derived
    if entry.salt is None:
        return None
    try:
        return bytes.fromhex(entry.salt)
    except ValueError:
        raise fail("secrets", "a salt is not hex", version=entry.version) from None
