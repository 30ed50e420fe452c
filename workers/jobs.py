"""RQ jobs: bot turns and turn clocks. Each takes ids and versions only.

A job reads the game as it is when it runs, so running one twice (a
re-delivered notification, a retry after a worker died) is harmless. Every
command a job makes goes through ``GameService`` (``run`` for the bots'
runs, ``execute`` for a clock's), the path the API's commands take, with the
version it was decided at and a server key derived from seat and version (in
the server's own namespace, which no client's Idempotency-Key reaches): if
two jobs race, one append wins and the other reads the game again.

A game deleted while a job works on it ends the job as ``gone``, quietly.
A job that meets an idempotency mismatch while the game has not moved (its
key taken by another command that did not move the game: a bug, since
only the server makes these keys; a rival job that chose otherwise at the
same version and won is a mere race) gives up for good:
it logs the error, writes the game to the jobs' dead letters
(``KeySpace.job_dead_letters``, counted in ``/metrics``), drops the game's
lease so the relay's watchdog does not retry it, lets go of the game's
claim, and fails in RQ.

* ``advance_game(game_id, version, claimed, continued)``: the relay enqueues
  one per game at a time (``workers.claims``), holding the game's claim. It
  plays the bot seats (``GameRun``: runs of commands appended at once, on
  through one bot seat after another, for a time slice, then a job of its
  own in the ``continued`` queue carries on); when a person must act and the
  game has a clock, it sets the deadline and schedules ``enforce_deadline``
  (and keeps the game's lease until 10 s after the deadline: if that job is
  lost with a killed worker, the relay's watchdog wakes the game and the
  job is made again).
* ``enforce_deadline(game_id, clock_key)`` applies the game's timeout
  policy when a deadline passes with the same seat still to act: ``bot``
  (the heuristic bot plays for the absent seat) or ``forfeit``.
* ``advance_tournament(tournament_id)`` runs when a game of a tournament
  finishes: it records the game and starts the tournament's next ones.
* ``export_record(game_id)`` builds a finished game's record once, so its
  download (``service.application.records``) is instant even for a long game. It waits
  in the ``exports`` queue, which only costly workers take (``workers.queues``,
  issue 54): building a record costs about as much as playing the game did,
  and a download that comes first builds the record itself.

A bot that raises or picks an illegal command is logged, and the seat falls
back to the random bot (or resigns, when the game's clock forfeits or the
random bot was what failed), so one broken bot cannot stall a game.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ParamSpec

from rq import Retry, get_current_job
from rq.exceptions import DuplicateJobError

from riskcore.bots.levels import bot_for
from riskcore.engine.legal import legal_actions
from riskcore.errors import RiskError
from riskcore.model.state import DEFEND, FINISHED, State
from riskcore.simulate import acting_seat, bot_rng
from riskcore.views.seatview import SeatView
from service import logs
from service.application.archived import ArchivedGames, archive_for
from service.application.clocks import clock_key_of
from service.application.errors import GameNotFound, IdempotencyMismatch, VersionConflict
from service.application.games import CommandResult, GameService, Loaded, Planned
from service.application.lobby import SeatInfo
from service.application.tournaments import Tournaments
from service.settings import Settings
from service.store.connections import store_client
from service.store.keys import KeySpace
from workers import clock
from workers.claims import MOVED, Claims, new_job_id
from workers.queues import (
    CLOCKS_QUEUE,
    CONTINUED_QUEUE,
    EXPORTS_QUEUE,
    deadline_job_id,
    export_job_id,
    queue,
    tournament_job_id,
)

log = logging.getLogger(__name__)
P = ParamSpec("P")
MAX_COMMANDS_PER_JOB = 200
# A run (commands appended at once) doubles from 1 up to this many commands, and
# ends once its bots have thought this long: batching pays for bots quicker than a
# round trip, while a slow bot's every move is appended (and watched) as it comes.
MAX_RUN_COMMANDS = 256
RUN_SECONDS = 0.05
FORFEIT_FOR_BROKEN_BOT = {"name": "clock", "policy": "bot_failed"}
# How long one job plays a game before it lets the other games' jobs have a turn.
SLICE_SECONDS = 0.25
# The lease a job holding a game renews each slice (the relay's is as long).
LEASE_MS = 5_000
TIMEOUT_BOT = "heuristic"
FALLBACK_BOT = "random"
_services: dict[tuple[int, str], GameService] = {}


def advance_game(
    game_id: str, version: int | None = None, claimed: bool = False, continued: bool = False
) -> str:
    """Play the game's bot seats, or start a person's clock, holding the game's claim.

    ``claimed``: the relay (or the job before this one) gave this job the
    game's claim (``workers.claims``). A job without it (made by an older
    relay, or by hand) first takes the claim if it is free, and does
    nothing if the game moved past ``version`` (None: "as it is now").
    ``continued``: made by the job before this one when its slice ended.
    """
    service = job_service()
    job = get_current_job()
    assert job is not None, "jobs run inside an RQ worker"
    claims = Claims(job_store(), service.keys)
    with logs.context(game_id=game_id, version=version), _giving_up(service, game_id, claims):
        outcome = _start(service, claims, game_id, version, claimed, job.id, continued)
        log.info("advance_game: %s", outcome, extra={"outcome": outcome})
    return outcome


def advance_tournament(tournament_id: str) -> str:
    """A game of the tournament finished: record it and start the next ones
    (``service.application.tournaments``); safe to run twice."""
    service = job_service()
    with logs.context(game_id=None):
        outcome = Tournaments(service, job_store(), service.keys).advance(tournament_id)
        log.info("advance_tournament %s: %s", tournament_id, outcome)
    return outcome


def _enqueue_tournament(service: GameService, game_id: str) -> None:
    tournament = service.lobby.get(game_id).tournament
    if tournament is None:
        return
    with contextlib.suppress(DuplicateJobError):
        queue(_queue_connection(), service.keys).enqueue(
            advance_tournament,
            tournament,
            job_id=tournament_job_id(tournament, game_id),
            unique=True,
            result_ttl=60,
            failure_ttl=3600,
            retry=Retry(max=3),  # a lost lock or a Redis blip must not stall the tournament
        )


def sweep_games() -> str:
    """End abandoned games and wake bot games no job holds (``workers.sweep``)."""
    from workers.sweep import Sweep

    service = job_service()
    settings = Settings.from_env()
    claims = Claims(job_store(), service.keys)

    def enqueue(game_id: str, job_id: str) -> None:
        queue(_queue_connection(), service.keys).enqueue(
            advance_game, game_id, None, True, job_id=job_id, result_ttl=60, failure_ttl=3600
        )

    with logs.context(game_id=None):
        counts = Sweep(
            service,
            claims,
            enqueue,
            open_ms=int(settings.open_game_hours * 3_600_000),
            idle_ms=int(settings.idle_game_hours * 3_600_000),
            now_ms=clock.now_ms(),
        ).run()
        log.info("sweep_games: %s", counts, extra={"outcome": "swept"})
    return " ".join(f"{k}={v}" for k, v in counts.items())


def export_record(game_id: str) -> str:
    """Build and keep a finished game's record, so its first download is instant."""
    from service.application.records import export

    with logs.context(game_id=game_id):
        size = len(export(job_service(), game_id))
        log.info("export_record: %d bytes", size)
    return f"{size} bytes"


def _enqueue_export(service: GameService, game_id: str) -> None:
    with contextlib.suppress(DuplicateJobError):
        queue(_queue_connection(), service.keys, EXPORTS_QUEUE).enqueue(
            export_record, game_id, job_id=export_job_id(game_id), unique=True, result_ttl=60
        )


# Outcomes after which no worker has anything to do until the next append.
# (A running clock keeps its lease, see ``start_clock``.)
SETTLED = frozenset({"gone", "finished", "waiting"})
# A running clock's game keeps a lease until this long after its deadline: if the
# deadline job was lost (its worker killed while running it), the relay's watchdog
# wakes the game and ``start_clock`` makes the job again, due at once.
LOST_DEADLINE_MS = 10_000


@contextlib.contextmanager
def _giving_up(service: GameService, game_id: str, claims: Claims | None = None) -> Iterator[None]:
    """An idempotency mismatch cannot heal by retrying: record it and fail loudly
    (and let go of the game, so that someone's next move makes a job again)."""
    try:
        yield
    except IdempotencyMismatch as error:
        job = get_current_job()
        log.error("game %s: giving up, %s", game_id, error, extra={"outcome": "dead_letter"})
        store = job_store()
        entry = {"game": game_id, "job": job.id if job else "", "error": str(error)}
        store.xadd(service.keys.job_dead_letters(), entry, maxlen=10_000, approximate=True)
        store.zrem(service.keys.worker_leases(), game_id)
        if claims is not None and job is not None:
            claims.drop(game_id, job.id)
        raise


def _gone_quietly(step: Callable[P, str]) -> Callable[P, str]:
    """A game an operator deleted while a job worked on it: nothing to do, no error."""

    @functools.wraps(step)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return step(*args, **kwargs)
        except GameNotFound:
            return "gone"

    return wrapper


@_gone_quietly
def _start(
    service: GameService,
    claims: Claims,
    game_id: str,
    version: int | None,
    claimed: bool,
    job_id: str,
    continued: bool = False,
) -> str:
    if not claimed:
        if version is not None and service.log.version(game_id) != version:
            return "moved_on"
        if not claims.acquire(game_id, job_id):
            return "coalesced"  # the job holding the game will see what this one was for
    elif not claims.refresh(game_id, job_id):
        return "handed_over"  # the watchdog gave the game to another job meanwhile
    return GameRun(service, claims, game_id, job_id, continued=continued).run()


@dataclass
class GameRun:
    """What one bot job does while it holds a game (``workers.claims``).

    It plays on through the bot seats, one after another (setup claims,
    a bot's whole turn, the next bot's), on its process's cache of the
    game, until a person must act, the game ends, or its time slice
    (``SLICE_SECONDS``) is used up; then it hands the claim to a job of its
    own in the ``continued`` queue, so games share the workers fairly and a
    job for a game a person just moved in comes first. When the game waits
    for a person (whose clock it starts) or is over, it lets go of the claim
    unless the game moved meanwhile: a notification coalesced into this job
    is never lost, the job plays on instead.
    """

    service: GameService
    claims: Claims
    game_id: str
    job_id: str
    # A job that continues one whose slice ended plays no first move a person may be
    # waiting to see: its runs start long.
    continued: bool = False

    def run(self) -> str:
        until = time.monotonic() + SLICE_SECONDS
        self._lease()
        while True:
            outcome, version = self._play(until)
            if outcome == "sliced":
                return self._continue_later()
            if outcome == "finished":
                _enqueue_export(self.service, self.game_id)
                _enqueue_tournament(self.service, self.game_id)
            if outcome in SETTLED:  # before letting go: a crash in between keeps the claim
                job_store().zrem(self.service.keys.worker_leases(), self.game_id)
            if outcome == "gone":
                # Whatever the stream's version says: a game without its lobby record
                # (expired, deleted halfway) read as gone at version 0, the release
                # saw it "moved", and the job played on until its timeout (issue 36).
                self.claims.drop(self.game_id, self.job_id)
                return outcome
            if self.claims.release(self.game_id, self.job_id, version) != MOVED:
                return outcome
            if time.monotonic() >= until:  # moved again and again: share the worker
                return self._continue_later()
            self._lease()  # someone moved meanwhile: play on

    def _play(self, until: float) -> tuple[str, int]:
        """Play bot seats until a person must act, the game is over or ``until``
        passes; the outcome, and the version it was decided at."""
        try:
            return self._play_seats(until)
        except GameNotFound:  # deleted meanwhile (by an operator)
            return "gone", 0

    def _play_seats(self, until: float) -> tuple[str, int]:
        service, game_id = self.service, self.game_id
        fresh = True
        # Commands in the next run: the first at once (a person may be watching), then
        # twice as many each time.
        size = MAX_RUN_COMMANDS if self.continued else 1
        bots: BotSeats | None = None
        while True:
            loaded = service.load(game_id) if fresh else service.load_cached(game_id)
            if loaded.state.phase == FINISHED:
                return "finished", loaded.version
            seat = acting_seat(loaded.state)
            assert seat is not None
            seats = service.seat_info(game_id)
            if seats[seat].kind != "bot":
                if not fresh:  # a person's turn: be sure of it before starting their clock
                    fresh = True
                    continue
                settings = service.lobby.get(game_id).clock
                if settings:
                    return start_clock(service, game_id, loaded, seat, settings), loaded.version
                return "waiting", loaded.version
            if bots is not None and time.monotonic() >= until:  # after one run at least
                return "sliced", loaded.version
            if bots is None:
                bots = BotSeats(service, game_id, loaded.seed, seats)
            bots.start(size, until)
            try:
                run = service.run(game_id, loaded, bots, max_commands=size)
            except VersionConflict:
                if not service.log.exists(game_id):
                    return "gone", 0
                fresh, size = True, 1  # someone else moved the game: decide again on it
                continue
            except IdempotencyMismatch:
                if service.log.version(game_id) <= loaded.version:
                    raise  # the key is taken but the game did not move: it never will
                fresh, size = True, 1  # a job at the same version chose otherwise, and won
                continue
            if run.refused is not None:
                bots.refused(*run.refused)
            # After its own append this process holds the newest state.
            fresh = run.appended is None or run.appended.replayed
            size = min(2 * size, MAX_RUN_COMMANDS)

    def _continue_later(self) -> str:
        successor = new_job_id(self.game_id)
        self._lease()
        if not self.claims.hand_over(self.game_id, self.job_id, successor):
            return "handed_over"
        queue(_queue_connection(), self.service.keys, CONTINUED_QUEUE).enqueue(
            advance_game,
            self.game_id,
            None,
            True,
            True,
            job_id=successor,
            result_ttl=60,
            failure_ttl=3600,
        )
        return "sliced"

    def _lease(self) -> None:
        """Tell the relay's watchdog this game is in hand (for ``LEASE_MS``)."""
        leases = self.service.keys.worker_leases()
        job_store().zadd(leases, {self.game_id: clock.now_ms() + LEASE_MS})


def enforce_deadline(game_id: str, clock_key: str) -> str:
    """The deadline for ``clock_key`` passed: apply the timeout policy if still due."""
    service = job_service()
    with logs.context(game_id=game_id), _giving_up(service, game_id):
        outcome = _enforce(service, game_id, clock_key)
        log.info("enforce_deadline %s: %s", clock_key, outcome, extra={"outcome": outcome})
    return outcome


@_gone_quietly
def _enforce(service: GameService, game_id: str, clock_key: str) -> str:
    loaded = service.load(game_id)
    state = loaded.state
    seat = acting_seat(state)
    if state.phase == FINISHED or seat is None or clock_key_of(state, seat) != clock_key:
        return "moved_on"
    stored = job_store().hgetall(service.keys.clock(game_id))
    deadline = int(stored.get(b"deadline_ms", 0))
    if clock.now_ms() < deadline:  # run early (a clock moved back?): come back when due
        _schedule_deadline(service, game_id, clock_key, deadline, loaded.version, again=True)
        return "not_yet"
    policy = (service.lobby.get(game_id).clock or {}).get("on_timeout", "bot")
    log.info("game %s: %s ran out of time (%s)", game_id, seat, policy)
    return Turn(service, game_id, seat).time_out(policy)


def start_clock(
    service: GameService, game_id: str, loaded: Loaded, seat: str, settings: dict[str, Any]
) -> str:
    key = clock_key_of(loaded.state, seat)
    clock_hash = service.keys.clock(game_id)
    store = job_store()
    running, running_deadline = store.hmget(clock_hash, ["key", "deadline_ms"])
    if running == key.encode():
        deadline = int(running_deadline or 0)
        outcome = "clock_running"
        if clock.now_ms() >= deadline + LOST_DEADLINE_MS:  # woken by the watchdog
            log.warning("game %s: the deadline job of %s was lost; enforcing now", game_id, key)
            _enqueue_overdue_deadline(service, game_id, key, loaded.version)
            deadline, outcome = clock.now_ms(), "clock_overdue"
    else:
        deadline = clock.now_ms() + int(settings["turn_seconds"]) * 1000
        # The deadline job first, the clock second: if the job cannot be scheduled
        # the clock is not recorded either, so the retry of this job starts both.
        _schedule_deadline(service, game_id, key, deadline, loaded.version)
        store.hset(clock_hash, mapping={"key": key, "seat": seat, "deadline_ms": deadline})
        outcome = "clock_started"
    store.zadd(service.keys.worker_leases(), {game_id: deadline + LOST_DEADLINE_MS})
    return outcome


def _enqueue_overdue_deadline(
    service: GameService, game_id: str, clock_key: str, version: int
) -> None:
    """The deadline passed long ago and its job is gone: run it now, scheduler or not."""
    queue(_queue_connection(), service.keys, CLOCKS_QUEUE).enqueue(
        enforce_deadline,
        game_id,
        clock_key,
        job_id=deadline_job_id(game_id, version, clock.now_ms()),
        result_ttl=60,
        failure_ttl=3600,
    )


def _schedule_deadline(
    service: GameService,
    game_id: str,
    clock_key: str,
    deadline_ms: int,
    version: int,
    *,
    again: bool = False,
) -> None:
    """``enforce_deadline`` once ``deadline_ms`` has passed (never before: ``clock.due_at``)."""
    clocks = queue(_queue_connection(), service.keys, CLOCKS_QUEUE)
    clocks.enqueue_at(
        clock.due_at(deadline_ms),
        enforce_deadline,
        game_id,
        clock_key,
        job_id=deadline_job_id(game_id, version, clock.now_ms() if again else None),
        result_ttl=60,
        failure_ttl=3600,
    )


@dataclass
class BotSeats:
    """Chooses the bot seats' commands of a run (``GameService.run``).

    Called with the run's state and version, it names the next command: the
    acting seat's bot's choice, or None to end the run (a person must act,
    the game is over, the run holds ``limit`` commands, or the slice ended).
    A bot that raises or picks an illegal command is logged and its seat
    falls back for the rest of the job: to the random bot, or to resigning
    when the game's clock forfeits or the random bot was the one that failed.
    """

    service: GameService
    game_id: str
    seed: bytes
    seats: dict[str, SeatInfo]
    limit: int = 1
    until: float = 0.0
    chosen: int = 0
    # seat -> (the name it was made by, the bot or None for "resign", provenance extras)
    _bots: dict[str, tuple[str, Any, dict[str, Any]]] = field(default_factory=dict)
    _rng: random.Random = field(default_factory=random.Random)  # seeded again per command

    def start(self, limit: int, until: float) -> None:
        """A new run: at most ``limit`` commands, and none chosen after ``until`` or
        after ``RUN_SECONDS`` of choosing (a bot that thinks long is seen move by move)."""
        self.limit, self.chosen = limit, 0
        self.until = min(until, time.monotonic() + RUN_SECONDS)

    def __call__(self, state: State, version: int) -> Planned | None:
        if self.chosen >= self.limit or (self.chosen and time.monotonic() >= self.until):
            return None
        if state.phase == FINISHED:
            return None
        seat = acting_seat(state)
        if seat is None or self.seats[seat].kind != "bot":
            return None
        self.chosen += 1
        return self._choose(seat, state, version)

    def refused(self, planned: Planned, error: Exception) -> None:
        """The rules refused what the seat's bot chose: fall back."""
        name, bot, _ = self._bot(planned.seat)
        if bot is None:  # even resigning was refused: nothing else to try
            raise BotCommandRefused(f"{planned.body!r} refused: {error}")
        log.error(
            "game %s: bot %r chose an illegal command for %s: %s",
            self.game_id,
            name,
            planned.seat,
            error,
        )
        self._fall_back(planned.seat, name)

    def _choose(self, seat: str, state: State, version: int) -> Planned:
        while True:
            name, bot, extras = self._bot(seat)
            if bot is None:
                resign = {"type": "resign"}
                return Planned(seat, resign, server_key(version), FORFEIT_FOR_BROKEN_BOT)
            rng = bot_rng(self.seed, self.game_id, seat, version, reuse=self._rng)
            started = time.perf_counter()
            try:
                body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
            except Exception:  # any bug in a bot: its seat must not stall the game
                log.exception("game %s: bot %r raised for %s", self.game_id, name, seat)
                self._fall_back(seat, name)
                continue
            thought = round((time.perf_counter() - started) * 1000, 1)
            provenance = {"name": bot.name, "version": bot.version, "ms": thought, **extras}
            return Planned(seat, body, server_key(version), provenance)

    def _bot(self, seat: str) -> tuple[str, Any, dict[str, Any]]:
        made = self._bots.get(seat)
        if made is None:
            info = self.seats[seat]
            name = info.bot or FALLBACK_BOT
            try:
                bot = bot_for(name, info.level)
            except ValueError:
                log.error("game %s: seat %s has unknown bot %r", self.game_id, seat, name)
                self._fall_back(seat, name)
                return self._bots[seat]
            made = self._bots[seat] = (name, bot, {"level": info.level} if info.level else {})
        return made

    def _fall_back(self, seat: str, failed: str) -> None:
        policy = (self.service.lobby.get(self.game_id).clock or {}).get("on_timeout")
        if policy == "forfeit" or failed == FALLBACK_BOT:
            self._bots[seat] = (failed, None, {})
        else:
            fallback = bot_for(FALLBACK_BOT, None)
            self._bots[seat] = (FALLBACK_BOT, fallback, {"reason": f"fallback for {failed}"})


@dataclass
class Turn:
    """The moves one job makes for one seat."""

    service: GameService
    game_id: str
    seat: str

    def play(self, bot_name: str, reason: str | None = None, level: str | None = None) -> str:
        """Let ``bot_name`` (at ``level``, if any) choose until the seat is no longer
        the one to act."""
        try:
            bot = bot_for(bot_name, level)
        except ValueError:
            log.error("game %s: seat %s has unknown bot %r", self.game_id, self.seat, bot_name)
            return self.fall_back(bot_name)
        # The first move reads the game's head; after a move of its own this process
        # holds the newest state, so the next is decided on it without a round trip
        # (if anyone else moved the game meanwhile, the append refuses: "raced").
        fresh = True
        for _ in range(MAX_COMMANDS_PER_JOB):
            service = self.service
            loaded = service.load(self.game_id) if fresh else service.load_cached(self.game_id)
            if loaded.state.phase == FINISHED or acting_seat(loaded.state) != self.seat:
                return "played"
            try:
                body, provenance = self._choose(bot, loaded, reason, level)
            except Exception:  # any bug in a bot: its seat must not stall the game
                log.exception("game %s: bot %r raised for %s", self.game_id, bot_name, self.seat)
                return self.fall_back(bot_name)
            try:
                fresh = self._send(loaded, body, provenance).replayed
            except VersionConflict:
                if not self.service.log.exists(self.game_id):
                    return "gone"  # deleted meanwhile, not moved on
                return "raced"  # another job moved the game; its notification continues it
            except IdempotencyMismatch:
                if self.service.log.version(self.game_id) > loaded.version:
                    return "raced"  # a job at the same version chose otherwise, and won
                raise  # the key is taken but the game did not move: it never will
            except BotCommandRefused:
                log.exception("game %s: bot %r chose an illegal command", self.game_id, bot_name)
                return self.fall_back(bot_name)
        return "paused"  # the next notification's job carries on

    def time_out(self, policy: str) -> str:
        loaded = self.service.load(self.game_id)
        if loaded.state.phase == DEFEND:  # a late defender rolls the most dice allowed
            return self.play(TIMEOUT_BOT, reason="timeout")
        if policy == "forfeit":
            self._send(loaded, {"type": "resign"}, {"name": "clock", "policy": "forfeit"})
            return "forfeited"
        return self.play(TIMEOUT_BOT, reason="timeout")

    def fall_back(self, failed: str) -> str:
        """A broken bot's seat: the game's timeout policy, else the random bot."""
        policy = (self.service.lobby.get(self.game_id).clock or {}).get("on_timeout")
        if policy == "forfeit" or failed == FALLBACK_BOT:
            loaded = self.service.load(self.game_id)
            self._send(loaded, {"type": "resign"}, {"name": "clock", "policy": "bot_failed"})
            return "forfeited"
        return self.play(FALLBACK_BOT, reason=f"fallback for {failed}")

    def _choose(
        self, bot: Any, loaded: Loaded, reason: str | None, level: str | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        state = loaded.state
        rng = bot_rng(loaded.seed, self.game_id, self.seat, state.version)
        started = time.perf_counter()
        body = bot.choose(SeatView(state, self.seat), legal_actions(state, self.seat), rng)
        thought = round((time.perf_counter() - started) * 1000, 1)
        provenance: dict[str, Any] = {"name": bot.name, "version": bot.version, "ms": thought}
        if level:
            provenance["level"] = level
        if reason:
            provenance["reason"] = reason
        return body, provenance

    def _send(
        self, loaded: Loaded, body: dict[str, Any], provenance: dict[str, Any]
    ) -> CommandResult:
        try:
            return self.service.execute(
                self.game_id,
                self.seat,
                body,
                expected_version=loaded.version,
                server_key=server_key(loaded.version),
                bot=provenance,
            )
        except RiskError as error:
            raise BotCommandRefused(f"{body!r} refused: {error.code}") from error


def server_key(version: int) -> str:
    """The key of the command a job sends for the seat to act at ``version`` (scoped to
    that seat and the server's namespace by ``GameService.execute``): two jobs that
    decide the same move at the same version make one append."""
    return f"turn:{version}"


class BotCommandRefused(Exception):
    """A bot chose a command the rules refuse: a bug in the bot, handled by falling back."""


def use_store(client: Any) -> None:
    """Where this worker's jobs find the game store, when it is not RQ's Redis
    (a Redis Cluster, say: ``service.store.connections``). Set once, before work starts;
    ``None`` goes back to finding it from the settings."""
    global _store_client, _store_looked_up
    _store_client = client
    _store_looked_up = client is not None


_store_client: Any = None
_store_looked_up = False


def _queue_connection() -> Any:
    """RQ's Redis: the connection the job came from."""
    job = get_current_job()
    assert job is not None, "jobs run inside an RQ worker"
    return job.connection


def job_store() -> Any:
    """The game store: as set by ``use_store``; else from the settings when they name
    a store apart from RQ's Redis (jobs run by RQ's own ``rq worker``); else RQ's Redis."""
    global _store_client, _store_looked_up
    if not _store_looked_up:
        _store_looked_up = True
        settings = Settings.from_env()
        if settings.redis_cluster or settings.queue_redis_url != settings.redis_url:
            _store_client = store_client(settings)
    return _store_client if _store_client is not None else _queue_connection()


def job_service() -> GameService:
    """The process's service for the queue this job came from (prefix from its name).

    Kept per process: its cache of folded games is what makes a bot's next
    move cost one head check instead of a load.
    """
    job = get_current_job()
    assert job is not None, "jobs run inside an RQ worker"
    prefix = job.origin.rsplit(".", 1)[0]
    store = job_store()
    key = (id(store), prefix)
    if key not in _services:
        settings = Settings.from_env()  # retention and the ceiling, as the API's
        _services[key] = GameService(
            store,
            KeySpace(prefix),
            finished_seconds=settings.finished_seconds,
            max_game_events=settings.max_game_events,
            # An analysis of a finished game Redis no longer has reads it from the archive.
            archived=ArchivedGames(archive_for(settings, pool_size=1), size=8),
        )
    return _services[key]
