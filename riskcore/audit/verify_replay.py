"""Check 8 of ``riskcore.audit.verify``: the record's games played again from its seed.

The opening events (``opening_events``) and every command, decided again
(``decide_again``) with the revealed seed and the players' seeds, must give
exactly the recorded events, so every die, draw and shuffle follows from the
committed seed. ``replay_texts`` compares bytes, for a finished game of
today's events in the server's layout; ``replay_events`` compares decoded
events, for any other record, old ones with facts left to the engine
included. Each raises ``Failed`` (``riskcore.audit.verdict``) naming the
first event that differs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from riskcore.audit import verify_checks as checks
from riskcore.audit.gamerecord import GameRecord, RecordEntry
from riskcore.audit.record import Envelope
from riskcore.audit.sealing import public_event
from riskcore.audit.verdict import Progress, fail
from riskcore.engine import fork
from riskcore.engine.decide import execute, new_game
from riskcore.engine.evolve import apply, fold
from riskcore.errors import RiskError
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.protocol import events as ev
from riskcore.protocol.codec import canonical_text, event_to_dict, event_to_wire
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.protocol.legacy import DERIVED

__all__ = ["decide_again", "opening_events", "replay_events", "replay_texts"]


def opening_events(created: ev.GameCreated, seed: bytes) -> list[ev.Event]:
    """The opening events the first event's facts and the seed give (a fork's:
    its first event and the draw pile shuffled again, ``riskcore.engine.fork``)."""
    try:
        if isinstance(created, ev.GameForked):
            return fork.opening(created, seed)
        return new_game(
            game_id=created.game_id,
            players=[s["name"] for s in created.seats if s["kind"] == "player"],
            seed=seed,
            board=created.board,
            mode=created.mode,
            rules=RuleSet.from_dict(created.rules),
            player_seeds=created.player_seeds,
            record_format=created.record_format,
        )
    except RiskError as error:
        raise fail("replay", f"cannot set the game up again: {error.message}", version=1) from None


def replay_texts(
    record: GameRecord, created: ev.GameCreated, seed_hex: str, progress: Progress | None
) -> State:
    """``replay_events`` for a record ``verify_checks.replayable`` chose: bytes, not objects.

    Each replayed event, in the envelope the record gives it, is encoded
    canonically and compared with the payload's own text (``_match``): equal
    bytes prove at once that the recorded event is the replayed one, that the
    text the chain hashed is canonical (``verify_checks.chain``), and that the payload
    decodes (``verify_checks.decode_ends``), so the recorded events are never decoded
    (nor folded: ``state`` has applied every one of them).
    """
    seed = bytes.fromhex(seed_hex)
    opening = opening_events(created, seed)
    entries = record.entries
    _match(opening, entries, 0)
    state = fold(opening)
    index = len(opening)
    while index < len(entries):
        payload = entries[index].payload
        actor = str(payload["a"])  # as ``envelope_from_dict`` reads it
        batch = decide_again(state, index + 1, payload.get("c"), actor, seed)
        _match(batch, entries, index)  # the next batch must start with a command
        index += len(batch)
        if progress is not None:
            progress(len(batch))
    return state


def _match(replayed: list[ev.Event], entries: list[RecordEntry], start: int) -> None:
    end = len(entries)
    for offset, event in enumerate(replayed):
        index = start + offset
        if index >= end:
            raise fail(
                "replay",
                "the record ends before the events its last command causes",
                version=index + 1,
                expected=event.TYPE,
            )
        entry = entries[index]
        if entry.text is None or _encoded(event, entry) != entry.text:
            _match_decoded(event, entry, index)


def _encoded(event: ev.Event, entry: RecordEntry) -> str | None:
    """The canonical text of ``event`` in ``entry``'s envelope, its secret fields
    hidden where the record commits to them; None when the secret values the
    record gives are not the event's."""
    cls = type(event)
    payload = entry.payload
    if cls.SECRET and "x" in payload:
        data = event_to_dict(event)
        secret = {name: data[name] for name in cls.SECRET if name in data}
        if secret != entry.secret:
            return None
        data = public_event(data, secret)
    else:
        data = event_to_wire(event)
    return canonical_text({**payload, "e": data})


def _match_decoded(event: ev.Event, entry: RecordEntry, index: int) -> None:
    """An event whose text is not the replayed one's canonical encoding: checked as
    ``replay_events`` checks every event (a record in another layout, a payload with a
    key the codec ignores...), after the chain's rule for its canonical bytes."""
    checks.hashed_canonically(entry)
    _differ(event, checks.envelope(entry).event, index, ())


def replay_events(
    record: GameRecord, envelopes: list[Envelope], seed_hex: str, progress: Progress | None
) -> State:
    created = envelopes[0].event
    assert isinstance(created, ev.GameCreated)
    seed = bytes.fromhex(seed_hex)
    opening = opening_events(created, seed)
    legacy = _legacy_facts(record, envelopes)
    _compare(opening, envelopes, 0, legacy)
    state = fold(opening)
    # An old record left some facts to the engine: fold it beside the replay and
    # compare the two states after every batch that has one, so the derivation
    # (riskcore.protocol.legacy) is checked, not only the final state.
    shadow = _recorded_fold(envelopes[: len(opening)]) if legacy else None
    index = len(opening)
    while index < len(envelopes):
        envelope = envelopes[index]
        batch = decide_again(state, envelope.version, envelope.command, envelope.actor, seed)
        _compare(batch, envelopes, index, legacy)  # the next batch must start with a command
        if shadow is not None:
            _follow_record(shadow, envelopes, index, len(batch))
            if any(i in legacy for i in range(index, index + len(batch))) and shadow != state:
                raise fail(
                    "replay",
                    f"the state after event {index + len(batch)} differs from the replayed one",
                    version=index + len(batch),
                )
        index += len(batch)
        if progress is not None:
            progress(len(batch))
    # Every recorded event was compared equal to a replayed one, which ``state`` has
    # applied: folding them again can only differ where an old record left facts to
    # the engine (the comparison skipped those).
    if legacy and _recorded_fold(envelopes) != state:
        raise fail("replay", "the record's final state differs from the replayed one")
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
        raise fail("replay", f"the record's events do not fold: {error!r}") from None


def _follow_record(shadow: State, envelopes: list[Envelope], start: int, count: int) -> None:
    try:
        for envelope in envelopes[start : start + count]:
            apply(shadow, envelope.event)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as error:
        raise fail(
            "replay", f"event {start + 1} does not apply: {error!r}", version=start + 1
        ) from None


def decide_again(
    state: State, version: int, command: Any, actor: str, seed: bytes
) -> list[ev.Event]:
    """The events event ``version``'s command gives, applied to ``state`` as they are made.

    ``execute`` rather than ``decide`` and ``apply``: the replay owns its
    state, so it need not be copied for every command; a refused command
    changes nothing, and the replay stops there anyway.
    """
    if command is None:
        raise fail(
            "replay",
            f"event {version} starts a batch but records no command",
            version=version,
            field="c",
        )
    rng = GameRng(seed, state.game_id, state.version, state.player_seeds)
    try:
        return execute(state, command_from_dict(command, actor), rng)
    except RiskError as error:
        raise fail(
            "replay",
            f"the command of event {version} is refused when replayed: {error.message}",
            version=version,
            field="c",
            found=command,
        ) from None


def _compare(
    replayed: list[ev.Event], envelopes: list[Envelope], start: int, legacy: dict[int, set[str]]
) -> None:
    for offset, event in enumerate(replayed):
        index = start + offset
        if index >= len(envelopes):
            raise fail(
                "replay",
                "the record ends before the events its last command causes",
                version=index + 1,
                expected=event.TYPE,
            )
        recorded = envelopes[index].event
        if event == recorded and index not in legacy:
            continue  # equal events have equal fields: the comparison below would pass
        _differ(event, recorded, index, legacy.get(index, ()))


def _differ(event: ev.Event, recorded: ev.Event, index: int, derived: Iterable[str]) -> None:
    """Fail, naming the first field that differs, unless the two are the same event."""
    expected = event_to_dict(event)
    found = event_to_dict(recorded)
    # A fact an old event left to the engine cannot be compared here; the
    # states are compared after its batch instead (``replay_events``).
    for key in derived:
        expected[key] = DERIVED
    if expected != found:
        key = next(
            (k for k in sorted(set(expected) | set(found)) if expected.get(k) != found.get(k)), "e"
        )
        raise fail(
            "replay",
            f"event {index + 1} is not what its command gives when replayed",
            version=index + 1,
            field=f"e.{key}",
            expected=expected.get(key),
            found=found.get(key),
        )
