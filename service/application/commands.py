"""Changing a game: load → decide → append → notify, with retries on version conflicts.

Every change of a game's events goes through here: a seat's command (from
a person through the API, or from a bot or a clock through the workers, so
both pass the same checks) and the opening events of a lobby whose seats
are filled. "Notify" is the outbox entry the append script writes: its
``kind`` names the seat that must act next, or is empty once the game is
over, so a relay can skip games that wait for a person without reading them.

A command is decided on the cached state without asking Redis first
(``GameStates.warm``): the append names the version it was decided at and
is refused if that is stale; then the missed events are read and it is
decided again. Without If-Match a lost race is decided again on the newer
state, up to ``RETRIES_WITHOUT_IF_MATCH`` times, instead of refused.

Retries are safe: ``execute`` passes a fingerprint of (seat, command) with
the idempotency key, so re-deciding a retry (new timestamps, new bytes) is
still recognised as the same request. Keys are scoped by seat, and the
server's own (bots, clocks) live apart from every client's
(``stored_idempotency_key``): a key one seat sends never touches another
seat's request, and no client can claim a key a bot or a clock will use.
When a retry can no longer be decided (the state moved on, or the If-Match
version is stale) the original result is looked up before the error is
reported.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from riskcore.audit.record import SYSTEM, Envelope, envelopes
from riskcore.audit.sealing import seal
from riskcore.engine.decide import execute
from riskcore.engine.evolve import fold
from riskcore.errors import RiskError, RuleViolation
from riskcore.model.state import FINISHED, State
from riskcore.protocol.codec import canonical
from riskcore.protocol.commands import Command, command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.protocol.events import Event
from riskcore.simulate import acting_seat
from service.application.errors import IdempotencyMismatch, VersionConflict
from service.application.game_log import NO_EVENTS, GameLog
from service.application.game_states import GameStates
from service.application.game_types import (
    CommandResult,
    Loaded,
    Observer,
    Planned,
    RunResult,
    published_head,
)
from service.application.lobby import RUNNING, GameInfo
from service.application.seating import Seating, opening_events
from service.store.values import AppendResult, Head

__all__ = [
    "MAX_RUN_EVENTS",
    "RETRIES_WITHOUT_IF_MATCH",
    "Chooser",
    "Commands",
    "Opening",
    "request_fingerprint",
    "stored_idempotency_key",
]

RETRIES_WITHOUT_IF_MATCH = 3
# A run's events, at most (the store takes up to 10,000 in one append; a command
# makes a few, so the run is cut well before that).
MAX_RUN_EVENTS = 500
# What a game starts with, from its lobby record and server seed.
Opening = Callable[[GameInfo, bytes], list[Event]]
# What the next command of a run is, given the run's state and version (None: stop).
Chooser = Callable[[State, int], Planned | None]


# A game ends (abandoned, no winner) once it has this many events (RISK_MAX_GAME_EVENTS):
# its record is then at most ~10 MB (~400 bytes an event), under RISK_MAX_RECORD_BYTES,
# so the server can still verify it; ordinary games end far below (random bots' longest
# seen: ~8,200 events with six players).
MAX_GAME_EVENTS = 25_000


class Commands:
    """Decide and append: the one path by which a game's events grow."""

    def __init__(
        self,
        log: GameLog,
        states: GameStates,
        seating: Seating,
        *,
        observer: Observer,
        now_ms: Callable[[], int],
        max_game_events: int = MAX_GAME_EVENTS,
    ) -> None:
        self.max_game_events = max_game_events  # 0: no ceiling
        self._log = log
        self._states = states
        self._seating = seating
        self._observer = observer
        self._now_ms = now_ms

    def execute(
        self,
        game_id: str,
        seat: str,
        body: Any,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        server_key: str | None = None,
        actor: str | None = None,
        bot: dict[str, Any] | None = None,
    ) -> CommandResult:
        """Decide and append one command of ``seat``; the heart of the API and the bots.

        ``expected_version`` is the If-Match: without it a lost race is
        decided again on the newer state (up to 3 times) instead of refused.
        ``idempotency_key`` is a client's (scoped by seat); ``server_key`` the
        server's own, for bots and clocks, in a namespace no client reaches.
        ``actor`` defaults to the seat ("system" for a clock's forfeit);
        ``bot`` records which bot chose the command.

        One loop, one reason to go round again: the state decided on was behind
        the stored game. A cached state (``fresh`` False) may be, so whatever it
        refuses is decided again on a fresh load; a fresh state is behind only
        when the append says so (a lost race), and ``fresh_left`` bounds how many
        fresh states a command is decided on.
        """
        key = stored_idempotency_key(seat, idempotency_key, server_key)
        command = command_from_dict(body, seat)
        request = command.to_dict()
        fingerprint = request_fingerprint(seat, request)
        fresh_left = 1 if expected_version is not None else RETRIES_WITHOUT_IF_MATCH
        try:
            loaded, fresh = self._states.warm(game_id)
            while True:
                fresh_left -= fresh
                try:
                    events, state = _decide(game_id, loaded, command, expected_version)
                except (VersionConflict, RuleViolation) as error:
                    if fresh:
                        return self._refuse(game_id, command.TYPE, error, key, fingerprint)
                    loaded, fresh = self._states.load(game_id), True
                    continue
                wrapped = envelopes(
                    events,
                    first_version=loaded.version + 1,
                    time_ms=self._now_ms(),
                    actor=actor or seat,
                    command=request,
                    bot=bot,
                )
                batch = _sealed(wrapped, game_id, loaded, state)
                try:
                    result = self._log.append(
                        game_id,
                        Head(loaded.version, loaded.hash),
                        batch,
                        idempotency_key=key,
                        fingerprint=fingerprint,
                        seed=loaded.seed if loaded.version == 0 else None,
                        kind=acting_seat(state) or "",  # the notification: who must act next
                        record_format=state.record_format,
                        state=state,
                    )
                except VersionConflict:
                    self._observer.conflict()
                    if fresh_left == 0:
                        self._observer.command(command.TYPE, "version_conflict")
                        raise
                    loaded, fresh = self._states.load(game_id), True
                    continue
                self._observer.command(command.TYPE, "replayed" if result.replayed else "accepted")
                return self._appended(game_id, loaded, state, batch, result)
        except IdempotencyMismatch:  # name the key the caller sent, not its stored form
            raise IdempotencyMismatch(game_id, idempotency_key or server_key or "") from None

    def run(
        self,
        game_id: str,
        loaded: Loaded,
        choose: Chooser,
        *,
        max_commands: int,
        max_events: int = MAX_RUN_EVENTS,
    ) -> RunResult:
        """Decide the server's commands (the bots') one after another on one working copy
        of ``loaded``, as ``choose`` names them (None: stop), and append them all at once.

        The stream holds exactly what one ``execute`` per command would have
        stored (each command's batch with its own envelope, command and bot), but
        a run costs one round trip to Redis instead of one per command. The
        append names ``loaded``'s version, so it is refused with VersionConflict
        if anyone moved the game meanwhile (a person's command, another job):
        nothing of the run is stored, and the caller decides again on the new
        state. Its idempotency key is the first command's, so a rival deciding
        the same version is refused; the store's own retry of a dropped call is
        recognised by the batch's digest. A command the rules
        refuse ends the run before it (``RunResult.refused``); those before it
        are appended.
        """
        state = loaded.state.copy()
        version = loaded.version
        batch: list[Envelope] = []
        fingerprint: bytes | None = None
        kinds: list[str] = []
        first: Planned | None = None
        refused: tuple[Planned, RiskError] | None = None
        now = self._now_ms()
        while len(kinds) < max_commands and len(batch) < max_events:
            planned = choose(state, version)
            if planned is None:
                break
            try:
                command = command_from_dict(planned.body, planned.seat)
                rng = GameRng(loaded.seed, game_id, version, state.player_seeds)
                events = execute(state, command, rng)  # in place; a refusal changes nothing
            except RiskError as error:
                refused = (planned, error)
                break
            if batch and len(batch) + len(events) > max_events:
                # Over the run's bound (a long blitz): the command waits for the next run,
                # which decides it again; the working copy goes back to before it.
                state = fold((envelope.event for envelope in batch), loaded.state)
                break
            request = command.to_dict()
            batch += envelopes(
                events,
                first_version=version + 1,
                time_ms=now,
                actor=planned.seat,
                command=request,
                bot=planned.bot,
            )
            if first is None:
                fingerprint = request_fingerprint(planned.seat, request)
            kinds.append(command.TYPE)
            if first is None:
                first = planned
            version += len(events)
            if state.phase == FINISHED:
                break
        if first is None:
            return RunResult(None, 0, refused)
        key = stored_idempotency_key(first.seat, None, first.server_key)
        # A run of one command is that command's request, as a lone ``execute`` of it
        # under the same key would be; a longer one is its batch (the store's digest).
        if len(kinds) > 1:
            fingerprint = None
        result = self._append(game_id, loaded, state, batch, key, fingerprint)
        for kind in kinds:
            self._observer.command(kind, "replayed" if result.replayed else "accepted")
        return RunResult(result, len(kinds), refused)

    def start_if_full(self, info: GameInfo, opening: Opening | None = None) -> GameInfo:
        """Append the opening events once every seat is filled (safe to race);
        ``opening`` makes them instead of the mode's (a fork's: ``service.application.forks``)."""
        if info.open_seats or info.version > 0:
            return info
        seed = self._seating.server_seed(info.game_id)
        events = (opening or opening_events)(info, seed)
        state = fold(events)
        batch = envelopes(events, first_version=1, time_ms=self._now_ms(), actor=SYSTEM)
        # A VersionConflict means another request started it first: its seed stands.
        with contextlib.suppress(VersionConflict):
            self._append(info.game_id, Loaded(*NO_EVENTS, state, seed), state, batch, None, None)
        self._seating.started(info)
        return info.with_status(RUNNING, self._log.version(info.game_id))

    def _refuse(
        self,
        game_id: str,
        kind: str,
        error: VersionConflict | RuleViolation,
        key: str | None,
        fingerprint: bytes,
    ) -> CommandResult:
        """A retried request gets its original result; anything else is refused."""
        replay = self._original(game_id, key, fingerprint)
        if replay is not None:
            return replay
        self._observer.command(kind, getattr(error, "code", "version_conflict"))
        raise error

    def _append(
        self,
        game_id: str,
        loaded: Loaded,
        state: State,
        batch: Sequence[Envelope],
        key: str | None,
        fingerprint: bytes | None,
    ) -> CommandResult:
        """Append the server's own ``batch`` (a run's, a game's opening), decided at
        ``loaded`` and leading to ``state``."""
        batch = _sealed(batch, game_id, loaded, state)
        result = self._log.append(
            game_id,
            Head(loaded.version, loaded.hash),
            batch,
            idempotency_key=key,
            fingerprint=fingerprint,
            seed=loaded.seed if loaded.version == 0 else None,
            kind=acting_seat(state) or "",  # the notification: who must act next, if anyone
            record_format=state.record_format,
            state=state,
        )
        return self._appended(game_id, loaded, state, batch, result)

    def _appended(
        self,
        game_id: str,
        loaded: Loaded,
        state: State,
        batch: Sequence[Envelope],
        result: AppendResult,
    ) -> CommandResult:
        """What an append of ``batch`` (from ``loaded`` to ``state``) made: remembered
        in the cache, the game's end noted, and the result the caller is given."""
        if result.replayed:
            return self._stored_result(game_id, result)
        self._observer.appended(len(batch))
        after = Loaded(result.last_version, result.head_hash, state, loaded.seed)
        self._states.appended(game_id, after)
        finished = state.phase == FINISHED
        if finished:
            self._seating.finished(game_id, result.last_version)
        elif 0 < self.max_game_events <= result.last_version:
            self._end_at_ceiling(game_id)
        head = published_head(result.head_hash, state)
        return CommandResult(result.last_version, tuple(batch), False, finished, head)

    def _end_at_ceiling(self, game_id: str) -> None:
        """A game that reached ``max_game_events`` ends as abandoned, no winner, by the
        server's own command (in its record, which verifies): a client pumping its
        game to any length made records too long to read or verify (issue 36)."""
        with contextlib.suppress(RuleViolation, VersionConflict, IdempotencyMismatch):
            self.execute(game_id, SYSTEM, {"type": "abandon"}, server_key="ceiling")

    def _original(self, game_id: str, key: str | None, fingerprint: bytes) -> CommandResult | None:
        """The original result of a retried request, if ``key`` already made one."""
        if key is None:
            return None
        original = self._log.original(game_id, key, fingerprint)
        if original is None:
            return None
        return self._stored_result(game_id, original)

    def _stored_result(self, game_id: str, original: AppendResult) -> CommandResult:
        last = original.last_version
        batch = self._log.envelopes(game_id, original.first_version, last)
        state = self._states.load(game_id).state
        head = published_head(original.head_hash, state)
        return CommandResult(last, batch, True, state.phase == FINISHED, head)


def stored_idempotency_key(
    seat: str, client_key: str | None, server_key: str | None = None
) -> str | None:
    """The store's name for a request's key: ``seat:<seat>:<key>`` for a client's,
    ``server:<seat>:<key>`` for the server's own. Seat ids hold no ``:``, so the
    names of two seats, or of a client and the server, can never meet."""
    if client_key is not None and server_key is not None:
        raise ValueError("a request has a client's idempotency key or the server's, not both")
    if client_key is not None:
        return f"seat:{seat}:{client_key}"
    if server_key is not None:
        return f"server:{seat}:{server_key}"
    return None


def request_fingerprint(seat: str, command: dict[str, Any]) -> bytes:
    """What makes two requests the same for an idempotency key: the seat and the command,
    not the events (a retry decided again has new timestamps, so new bytes)."""
    return hashlib.sha256(canonical({"seat": seat, "command": command})).digest()


def _sealed(
    batch: Sequence[Envelope], game_id: str, loaded: Loaded, state: State
) -> Sequence[Envelope]:
    """A format-2 game's batch is sealed with its seed (``riskcore.audit.sealing``)."""
    return seal(batch, loaded.seed, game_id) if state.record_format >= 2 else batch


def _decide(
    game_id: str, loaded: Loaded, command: Command, expected_version: int | None
) -> tuple[list[Event], State]:
    """The events and the state they lead to (a copy: the cached state is shared)."""
    if expected_version is not None and expected_version != loaded.version:
        raise VersionConflict(game_id, expected_version, loaded.version)
    rng = GameRng(loaded.seed, game_id, loaded.version, loaded.state.player_seeds)
    state = loaded.state.copy()
    return execute(state, command, rng), state
