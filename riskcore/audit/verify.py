"""Offline verification of a game record: trust nothing the server says.

Checks, in order, stopping at the first failure and naming where it is:

1. ``structure``: versions run 1, 2, 3... and each payload says its own version;
2. ``chain``: every ``prev`` is the hash before it and every ``hash`` is
   SHA-256(prev || canonical payload) (``riskcore.audit.chain``);
3. ``decode``: every payload is an event this engine knows (old schema
   versions are upcast);
4. ``commitment``: the revealed seed hashes to the commitment published in
   the first event (needs a finished game);
5. ``replay``: the opening events and every command, decided again with the
   seed and the players' seeds, give exactly the recorded events — so every
   die, draw and shuffle follows from the committed seed — and the final
   state is the one the record ends in.

The result is a ``Verdict``; nothing here raises on bad input.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from riskcore.audit.chain import GENESIS, event_hash
from riskcore.audit.gamerecord import GameRecord, parse_record
from riskcore.audit.record import Envelope, envelope_from_dict
from riskcore.engine.decide import decide, new_game
from riskcore.engine.evolve import apply, fold
from riskcore.errors import RiskError
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.protocol import events as ev
from riskcore.protocol.codec import CODEC_VERSION, event_to_dict
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng, commitment
from riskcore.protocol.legacy import DERIVED

CHECKS = ("structure", "chain", "decode", "commitment", "replay")
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Divergence:
    check: str
    message: str
    version: int | None = None
    field: str | None = None
    expected: Any = None
    found: Any = None


@dataclass
class Verdict:
    ok: bool = False
    game_id: str | None = None
    events: int = 0
    checks: dict[str, str] = field(default_factory=dict)
    divergence: Divergence | None = None
    winner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["divergence"] = asdict(self.divergence) if self.divergence else None
        return data


class _Failed(Exception):
    def __init__(self, divergence: Divergence) -> None:
        self.divergence = divergence


def verify_text(text: str, progress: Progress | None = None) -> Verdict:
    try:
        record = parse_record(text)
    except RiskError as error:
        verdict = Verdict()
        verdict.checks["structure"] = "failed"
        verdict.divergence = Divergence("structure", error.message)
        return verdict
    return verify_record(record, progress)


def verify_record(record: GameRecord, progress: Progress | None = None) -> Verdict:
    verdict = Verdict(game_id=record.header.get("game_id"), events=len(record.entries))
    try:
        _structure(record)
        verdict.checks["structure"] = "passed"
        _chain(record)
        verdict.checks["chain"] = "passed"
        envelopes = _decode(record)
        verdict.checks["decode"] = "passed"
        seed = _seed(record, envelopes)
        if seed is None:
            verdict.checks["commitment"] = "skipped: the game has not ended, no seed revealed"
            verdict.checks["replay"] = "skipped: needs the revealed seed"
        else:
            _commitment(record, envelopes, seed)
            verdict.checks["commitment"] = "passed"
            verdict.winner = _replay(record, envelopes, seed, progress).winner
            verdict.checks["replay"] = "passed"
    except _Failed as failure:
        verdict.checks[failure.divergence.check] = "failed"
        verdict.divergence = failure.divergence
        return verdict
    verdict.ok = True
    return verdict


def _fail(check: str, message: str, **where: Any) -> _Failed:
    return _Failed(Divergence(check, message, **where))


def _structure(record: GameRecord) -> None:
    header = record.header
    engine = header.get("engine", {})
    if not isinstance(engine, dict) or engine.get("codec", 0) > CODEC_VERSION:
        raise _fail(
            "structure",
            "the record comes from an engine newer than this one",
            field="engine.codec",
            expected=f"<= {CODEC_VERSION}",
            found=engine.get("codec") if isinstance(engine, dict) else engine,
        )
    if header.get("redacted"):
        raise _fail("structure", "a redacted record cannot be verified; fetch it after the end")
    if not record.entries:
        raise _fail("structure", "the record has no events")
    for expected, entry in enumerate(record.entries, 1):
        if entry.version != expected or entry.payload.get("n") != entry.version:
            raise _fail(
                "structure",
                f"line {entry.line}: events out of order or missing",
                version=expected,
                field="n",
                expected=expected,
                found=entry.version,
            )


def _chain(record: GameRecord) -> None:
    prev = GENESIS
    for entry in record.entries:
        if entry.prev != prev.hex():
            raise _fail(
                "chain",
                f"event {entry.version} does not follow the event before it",
                version=entry.version,
                field="prev",
                expected=prev.hex(),
                found=entry.prev,
            )
        digest = event_hash(prev, entry.payload_bytes())
        if entry.hash != digest.hex():
            raise _fail(
                "chain",
                f"event {entry.version} was altered after it was hashed",
                version=entry.version,
                field="hash",
                expected=digest.hex(),
                found=entry.hash,
            )
        prev = digest


def _decode(record: GameRecord) -> list[Envelope]:
    envelopes = []
    for entry in record.entries:
        try:
            envelopes.append(envelope_from_dict(entry.payload))
        except RiskError as error:
            raise _fail("decode", error.message, version=entry.version, field="payload") from None
    if not isinstance(envelopes[0].event, ev.GameCreated):
        raise _fail("decode", "the first event is not game_created", version=1, field="e.type")
    return envelopes


def _seed(record: GameRecord, envelopes: list[Envelope]) -> str | None:
    last = envelopes[-1].event
    revealed = last.seed if isinstance(last, ev.GameFinished) else None
    if record.seed is not None and revealed is not None and record.seed != revealed:
        raise _fail(
            "commitment",
            "the trailer's seed is not the one revealed in the final event",
            field="seed",
            expected=revealed,
            found=record.seed,
        )
    return revealed or record.seed


def _commitment(record: GameRecord, envelopes: list[Envelope], seed: str) -> None:
    created = envelopes[0].event
    assert isinstance(created, ev.GameCreated)
    if record.header.get("seed_commitment") != created.seed_commitment:
        raise _fail(
            "commitment",
            "the header's commitment is not the first event's",
            version=1,
            field="seed_commitment",
            expected=created.seed_commitment,
            found=record.header.get("seed_commitment"),
        )
    try:
        found = commitment(bytes.fromhex(seed))
    except ValueError:
        found = hashlib.sha256(seed.encode()).hexdigest()
    if found != created.seed_commitment:
        raise _fail(
            "commitment",
            "the revealed seed does not match the commitment made before the first roll",
            version=1,
            field="seed_commitment",
            expected=created.seed_commitment,
            found=found,
        )


def _replay(
    record: GameRecord, envelopes: list[Envelope], seed_hex: str, progress: Progress | None
) -> State:
    created = envelopes[0].event
    assert isinstance(created, ev.GameCreated)
    seed = bytes.fromhex(seed_hex)
    try:
        opening = new_game(
            game_id=created.game_id,
            players=[s["name"] for s in created.seats if s["kind"] == "player"],
            seed=seed,
            board=created.board,
            mode=created.mode,
            rules=RuleSet.from_dict(created.rules),
            player_seeds=created.player_seeds,
        )
    except RiskError as error:
        raise _fail("replay", f"cannot set the game up again: {error.message}", version=1) from None
    legacy = _legacy_facts(record, envelopes)
    _compare(opening, envelopes, 0, legacy)
    state = fold(opening)
    # An old record left some facts to the engine: fold it beside the replay and
    # compare the two states after every batch that has one, so the derivation
    # (riskcore.protocol.legacy) is checked, not only the final state.
    shadow = _recorded_fold(envelopes[: len(opening)]) if legacy else None
    index = len(opening)
    while index < len(envelopes):
        batch = _decide_again(state, envelopes[index], seed)
        _compare(batch, envelopes, index, legacy)  # the next batch must start with a command
        for event in batch:
            apply(state, event)
        if shadow is not None:
            _follow_record(shadow, envelopes, index, len(batch))
            if any(i in legacy for i in range(index, index + len(batch))) and shadow != state:
                raise _fail(
                    "replay",
                    f"the state after event {index + len(batch)} differs from the replayed one",
                    version=index + len(batch),
                )
        index += len(batch)
        if progress is not None:
            progress(len(batch))
    if _recorded_fold(envelopes) != state:
        raise _fail("replay", "the record's final state differs from the replayed one")
    return state


# The facts a version of an event may leave to the engine (upcast as DERIVED).
_LEGACY_FACTS = frozenset({"next_phase", "setup_turn", "trade_down_to"})


def _legacy_facts(record: GameRecord, envelopes: list[Envelope]) -> dict[int, set[str]]:
    """Per event index, the fields its *recorded* version left to the engine: only
    these may read DERIVED; anywhere else DERIVED is a divergence like any value."""
    legacy: dict[int, set[str]] = {}
    for index, (entry, envelope) in enumerate(zip(record.entries, envelopes, strict=True)):
        recorded_version = entry.payload.get("e", {}).get("v", 1)
        if recorded_version >= envelope.event.VERSION:
            continue
        keys = {k for k, v in event_to_dict(envelope.event).items() if v == DERIVED} & _LEGACY_FACTS
        if keys:
            legacy[index] = keys
    return legacy


def _recorded_fold(envelopes: list[Envelope]) -> State:
    try:
        return fold(e.event for e in envelopes)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as error:
        raise _fail("replay", f"the record's events do not fold: {error!r}") from None


def _follow_record(shadow: State, envelopes: list[Envelope], start: int, count: int) -> None:
    try:
        for envelope in envelopes[start : start + count]:
            apply(shadow, envelope.event)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as error:
        raise _fail(
            "replay", f"event {start + 1} does not apply: {error!r}", version=start + 1
        ) from None


def _decide_again(state: State, envelope: Envelope, seed: bytes) -> list[ev.Event]:
    version = envelope.version
    if envelope.command is None:
        raise _fail(
            "replay",
            f"event {version} starts a batch but records no command",
            version=version,
            field="c",
        )
    rng = GameRng(seed, state.game_id, state.version, state.player_seeds)
    try:
        return decide(state, command_from_dict(envelope.command, envelope.actor), rng)
    except RiskError as error:
        raise _fail(
            "replay",
            f"the command of event {version} is refused when replayed: {error.message}",
            version=version,
            field="c",
            found=envelope.command,
        ) from None


def _compare(
    replayed: list[ev.Event], envelopes: list[Envelope], start: int, legacy: dict[int, set[str]]
) -> None:
    for offset, event in enumerate(replayed):
        index = start + offset
        if index >= len(envelopes):
            raise _fail(
                "replay",
                "the record ends before the events its last command causes",
                version=index + 1,
                expected=event.TYPE,
            )
        expected = event_to_dict(event)
        found = event_to_dict(envelopes[index].event)
        # A fact an old event left to the engine cannot be compared here; the
        # states are compared after its batch instead (``_replay``).
        for key in legacy.get(index, ()):
            expected[key] = DERIVED
        if expected != found:
            key = next(
                (k for k in sorted(set(expected) | set(found)) if expected.get(k) != found.get(k)),
                "e",
            )
            raise _fail(
                "replay",
                f"event {index + 1} is not what its command gives when replayed",
                version=index + 1,
                field=f"e.{key}",
                expected=expected.get(key),
                found=found.get(key),
            )
