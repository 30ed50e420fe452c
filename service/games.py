"""The application service: every way a game changes or is read, behind one class.

The HTTP views and the workers (bot turns, clocks) call the same
``GameService`` methods, so a bot's command passes the same checks as a
person's. A command is: load → decide → append → notify, where "notify" is
the outbox entry the append script writes (its ``kind`` names the seat that
must act next, or is empty once the game is over, so a relay can skip games
that wait for a human without reading them).

Loading is what keeps a command's latency flat however long the game: each
process keeps the folded state of recent games (an LRU of ``cache_games``).
A read checks the game's head (one ``HMGET``) and, only when another
process moved the game, reads the events after the cached version. A
command does not even check: it is decided on the cached state and the
append, which names the version it was decided at, refuses it if that is
stale (then the missed events are read and it is decided again). A cold
load is the newest snapshot plus at most ``snapshot_every`` events.

Retries are safe: ``execute`` passes a fingerprint of (seat, command) with
the idempotency key, so re-deciding a retry (new timestamps, new bytes) is
still recognised as the same request. When a retry can no longer be
decided (the state moved on, or the If-Match version is stale) the
original result is looked up before the error is reported.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis

from riskcore.audit.chain import GENESIS
from riskcore.audit.record import SYSTEM, Envelope, decode_envelope, envelopes
from riskcore.boards.board import board_names
from riskcore.bots import bot_names
from riskcore.engine.decide import execute, new_game
from riskcore.engine.evolve import fold
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import FINISHED, State
from riskcore.protocol.codec import canonical
from riskcore.protocol.commands import Command, command_from_dict
from riskcore.protocol.events import Event
from riskcore.protocol.snapshot import SNAPSHOT_STAMP, decode_state, encode_state
from riskcore.rules.dice import GameRng, commitment
from riskcore.simulate import acting_seat
from service import auth, replays
from service.game_types import (
    CommandResult,
    Created,
    EventPage,
    Joined,
    Loaded,
    Lru,
    Observer,
    Quiet,
    SeatPlan,
)
from service.keys import KeySpace
from service.lobby import FINISHED as DONE
from service.lobby import OPEN, RUNNING, GameInfo, Lobby, SeatInfo
from service.problems import ApiProblem
from service.store import Client, EventStore, StoredEvent, new_events
from service.store_errors import GameNotFound, IdempotencyMismatch, VersionConflict

__all__ = [
    "CommandResult",
    "Created",
    "EventPage",
    "GameService",
    "Joined",
    "Loaded",
    "Observer",
    "SeatPlan",
]

RETRIES_WITHOUT_IF_MATCH = 3


class GameService:
    """Create, join, load, command and read games (see the module docstring)."""

    def __init__(
        self,
        client: Client,
        keys: KeySpace | None = None,
        *,
        blocking_client: Client | None = None,
        snapshot_every: int = 100,
        cache_games: int = 1024,
        observer: Observer | None = None,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
    ) -> None:
        """``new_seed`` makes server seeds; tests and benchmarks pass a seeded one."""
        self.keys = keys or KeySpace()
        self._client = client
        self.store = EventStore(client, self.keys, snapshot_every=snapshot_every)
        self._waiting = EventStore(blocking_client or client, self.keys)
        self.lobby = Lobby(client, self.keys)
        self._cache: Lru[Loaded] = Lru(cache_games)
        # Seats never change once a game has started: keep them for token checks.
        self._seats: Lru[GameInfo] = Lru(cache_games)
        self._observer: Observer = observer or Quiet()
        self._clock = clock
        self._new_seed = new_seed

    @classmethod
    def from_url(cls, url: str, prefix: str = "risk", **options: Any) -> GameService:
        """A service on its own clients; long-polls get a client with a long timeout."""
        client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        waits = redis.Redis.from_url(url, socket_timeout=60, socket_connect_timeout=5)
        return cls(client, KeySpace(prefix), blocking_client=waits, **options)

    # -- lobby -----------------------------------------------------------------

    def create(
        self,
        *,
        seats: Sequence[SeatPlan],
        board: str = "classic",
        rules: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
    ) -> Created:
        """A new game; it starts at once unless some seats are left open."""
        ruleset = RuleSet.from_dict(dict(rules or {}))
        _check_setup(board, ruleset, seats)
        game_id = "g" + secrets.token_hex(8)
        seed = self._new_seed()
        tokens = {f"p{i}": auth.new_token() for i, s in enumerate(seats, 1) if s.kind == "human"}
        info = GameInfo(
            game_id=game_id,
            status=OPEN,
            board=board,
            rules=ruleset.to_dict(),
            clock=dict(clock) if clock else None,
            created_ms=self._now_ms(),
            seats=tuple(_seat(f"p{i}", plan, tokens) for i, plan in enumerate(seats, 1)),
            seed_commitment=commitment(seed),
        )
        self.lobby.create(info, seed)
        return Created(self._start_if_full(info), tokens)

    def join(
        self,
        game_id: str,
        *,
        seat: str | None = None,
        name: str | None = None,
        seed: str | None = None,
    ) -> Joined:
        """Claim ``seat`` (or the first open one) for a new human; the token is shown once."""
        info = self.lobby.get(game_id)
        if seat is not None and info.seat(seat) is None:
            raise ApiProblem(404, "unknown_seat", f"game {game_id!r} has no seat {seat!r}")
        token = auth.new_token()
        for candidate in [seat] if seat is not None else info.open_seats:
            claimed = SeatInfo(candidate, "human", name, None, seed, auth.hash_token(token))
            if info.version == 0 and self.lobby.claim(game_id, claimed):
                return Joined(self._start_if_full(self.lobby.get(game_id)), candidate, token)
        if seat is not None:
            raise ApiProblem(409, "seat_taken", f"seat {seat!r} is already taken")
        raise ApiProblem(409, "game_full", f"game {game_id!r} has no open seat")

    def info(self, game_id: str) -> GameInfo:
        """Setup, seats and status (derived from the events once the game started)."""
        return self.current(game_id)[0]

    def current(self, game_id: str) -> tuple[GameInfo, Loaded | None]:
        """The game's info and, once it has started, its newest state (one load)."""
        info = self._seated(game_id)
        if info.version == 0:
            info = self._start_if_full(info)
            if info.version == 0:
                return info, None
        loaded = self.load(game_id)
        status = DONE if loaded.state.phase == FINISHED else RUNNING
        if status != info.status:
            self.lobby.move(info, status)  # repair an index a crash left behind (idempotent)
            self._seats.put(game_id, info.with_status(status, loaded.version))
        return info.with_status(status, loaded.version), loaded

    def seat_info(self, game_id: str) -> dict[str, SeatInfo]:
        """Every seat by id: workers use it to find the bot seats and their bots."""
        return {s.seat: s for s in self._seated(game_id).seats}

    def seat_for_token(self, game_id: str, token: str) -> str:
        """The seat ``token`` acts for in ``game_id``; 401 if none."""
        seats = self._seated(game_id).seats
        return auth.match_seat(token, [(s.seat, s.token_hash) for s in seats])

    def _seated(self, game_id: str) -> GameInfo:
        """The game's seats, from memory once it has started (they are fixed then)."""
        info = self._seats.get(game_id)
        if info is None:
            info = self.lobby.get(game_id)
            if info.version > 0:
                self._seats.put(game_id, info)
        return info

    def list_games(
        self, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[GameInfo], str | None]:
        statuses = [status] if status else [OPEN, RUNNING, DONE]
        return self.lobby.page(statuses, limit, cursor)

    def delete(self, game_id: str) -> None:
        """Operator action: remove the game, its records and its cache entry."""
        info = self.lobby.get(game_id)
        self.store.delete_game(game_id)
        self.lobby.delete(info)
        keys = self.keys  # what the workers and replays keep beside the game
        self._client.delete(
            keys.clock(game_id), keys.replay_checkpoints(game_id), keys.record_export(game_id)
        )
        self._cache.drop(game_id)
        self._seats.drop(game_id)

    def _start_if_full(self, info: GameInfo) -> GameInfo:
        """Append the opening events once every seat is filled (safe to race)."""
        if info.open_seats or info.version > 0:
            return info
        # The seed committed to at creation; gone if another request started the game.
        seed = self.lobby.seed(info.game_id) or self._new_seed()
        player_seeds = {s.seat: s.seed for s in info.seats if s.seed}
        events = new_game(
            game_id=info.game_id,
            players=[s.name or _default_name(s) for s in info.seats],
            seed=seed,
            board=info.board,
            rules=RuleSet.from_dict(info.rules),
            player_seeds=player_seeds,
        )
        state = fold(events)
        batch = envelopes(events, first_version=1, time_ms=self._now_ms(), actor=SYSTEM)
        # A VersionConflict means another request started it first: its seed stands.
        with contextlib.suppress(VersionConflict):
            self._append(info.game_id, Loaded(0, GENESIS, state, seed), state, batch, None, None)
        self.lobby.move(info, RUNNING)
        self.lobby.forget_seed(info.game_id)
        return info.with_status(RUNNING, self.store.version(info.game_id))

    # -- play --------------------------------------------------------------------

    def load(self, game_id: str) -> Loaded:
        """The game at its newest version; 409 for a lobby, GameNotFound for no game."""
        try:
            head = self.store.head(game_id)
        except GameNotFound:
            self.lobby.get(game_id)  # raises GameNotFound when there is no lobby either
            raise ApiProblem(
                409, "game_not_started", f"game {game_id!r} waits for its open seats"
            ) from None
        cached = self._cache.get(game_id)
        if cached is not None and (cached.version, cached.hash) == tuple(head):
            return cached
        if cached is not None and cached.version < head.version:
            newer = self.store.read(game_id, cached.version + 1)
            if newer and newer[0].prev == cached.hash:
                return self._remember(game_id, _advance(cached, newer))
        self._seats.drop(game_id)  # unknown or re-created game: forget its seats too
        return self._remember(game_id, self._load_cold(game_id))

    def _load_cold(self, game_id: str) -> Loaded:
        snapshot, stored, head_hash = self.store.events_after_snapshot(game_id, SNAPSHOT_STAMP)
        events = [decode_envelope(e.payload).event for e in stored]
        state = fold(events, decode_state(snapshot.data)) if snapshot else fold(events)
        seed = self.store.seed(game_id)
        if seed is None:
            raise GameNotFound(game_id)
        return Loaded(state.version, head_hash, state, seed)

    def _remember(self, game_id: str, loaded: Loaded) -> Loaded:
        self._cache.put(game_id, loaded)
        return loaded

    def execute(
        self,
        game_id: str,
        seat: str,
        body: Any,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        actor: str | None = None,
        bot: dict[str, Any] | None = None,
    ) -> CommandResult:
        """Decide and append one command of ``seat``; the heart of the API and the bots.

        ``expected_version`` is the If-Match: without it a lost race is
        decided again on the newer state (up to 3 times) instead of refused.
        ``actor`` defaults to the seat ("system" for a clock's forfeit);
        ``bot`` records which bot chose the command.
        """
        command = command_from_dict(body, seat)
        request = command.to_dict()
        fingerprint = hashlib.sha256(canonical({"seat": seat, "command": request})).digest()
        races_left = 0 if expected_version is not None else RETRIES_WITHOUT_IF_MATCH - 1
        loaded, verified = self._warm(game_id)
        while True:
            try:
                events, state = self._decide(game_id, loaded, command, expected_version)
            except (VersionConflict, RuleViolation) as error:
                if not verified:  # the cache may be behind: look at the head before refusing
                    loaded, verified = self.load(game_id), True
                    continue
                return self._refuse(game_id, command.TYPE, error, idempotency_key, fingerprint)
            batch = envelopes(
                events,
                first_version=loaded.version + 1,
                time_ms=self._now_ms(),
                actor=actor or seat,
                command=request,
                bot=bot,
            )
            try:
                result = self._append(game_id, loaded, state, batch, idempotency_key, fingerprint)
            except VersionConflict:
                self._observer.conflict()
                if verified or expected_version is not None:  # a race lost, not a stale cache
                    if races_left == 0:
                        self._observer.command(command.TYPE, "version_conflict")
                        raise
                    races_left -= 1
                loaded, verified = self.load(game_id), True
                continue
            self._observer.command(command.TYPE, "replayed" if result.replayed else "accepted")
            return result

    def _warm(self, game_id: str) -> tuple[Loaded, bool]:
        """The cached game without asking Redis (False: it may be behind), else a load.

        A command decided on a stale cache is refused by the append (the
        version does not match) and decided again, so trusting the cache
        costs nothing when it is current, which it is whenever this process
        made the game's last move: one round trip per command instead of two.
        """
        cached = self._cache.get(game_id)
        return (cached, False) if cached is not None else (self.load(game_id), True)

    def _decide(
        self, game_id: str, loaded: Loaded, command: Command, expected_version: int | None
    ) -> tuple[list[Event], State]:
        """The events and the state they lead to (a copy: the cached state is shared)."""
        if expected_version is not None and expected_version != loaded.version:
            raise VersionConflict(game_id, expected_version, loaded.version)
        rng = GameRng(loaded.seed, game_id, loaded.version, loaded.state.player_seeds)
        state = loaded.state.copy()
        return execute(state, command, rng), state

    def _refuse(
        self,
        game_id: str,
        kind: str,
        error: VersionConflict | RuleViolation,
        key: str | None,
        fingerprint: bytes,
    ) -> CommandResult:
        """A retried request gets its original result; anything else is refused."""
        replay = self._replay(game_id, key, fingerprint)
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
        payloads = [e.encode() for e in batch]
        result = self.store.append(
            game_id,
            loaded.version,
            new_events(loaded.hash, payloads),
            prev=loaded.hash,
            idempotency_key=key,
            fingerprint=fingerprint,
            seed=loaded.seed if loaded.version == 0 else None,
            kind=acting_seat(state) or "",
        )
        if result.replayed:
            return self._stored_result(game_id, result.first_version, result.last_version)
        self._observer.appended(len(batch))
        self._remember(game_id, Loaded(result.last_version, result.head_hash, state, loaded.seed))
        if self.store.should_snapshot(loaded.version, result.last_version):
            encoded = encode_state(state)
            self.store.save_snapshot(game_id, result.last_version, encoded, SNAPSHOT_STAMP)
            if replays.crossed_checkpoint(loaded.version, result.last_version):
                replays.save_checkpoint(
                    self._client, self.keys.replay_checkpoints(game_id), state.version, encoded
                )
        finished = state.phase == FINISHED
        if finished:
            info = self.lobby.get(game_id).with_status(DONE, result.last_version)
            self.lobby.move(info, DONE)
            self._seats.put(game_id, info)
        return CommandResult(result.last_version, tuple(batch), False, finished)

    def _replay(self, game_id: str, key: str | None, fingerprint: bytes) -> CommandResult | None:
        """The original result of a retried request, if ``key`` already made one.

        Reads the store's idempotency record (fields as append.lua writes
        them: r = fingerprint, e = game epoch, f/l = versions) without
        writing anything.
        """
        if key is None:
            return None
        keys = self.keys.game(game_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.hmget(keys.idempotency(key), ["r", "e", "f", "l"])
        pipe.hget(keys.meta, "e")
        (stored, epoch, first, last), current_epoch = pipe.execute()
        if stored is None or epoch != current_epoch:
            return None
        if stored != fingerprint:
            raise IdempotencyMismatch(game_id, key)
        return self._stored_result(game_id, int(first), int(last))

    def _stored_result(self, game_id: str, first: int, last: int) -> CommandResult:
        batch = tuple(decode_envelope(e.payload) for e in self.store.read(game_id, first, last))
        finished = self.load(game_id).state.phase == FINISHED
        return CommandResult(last, batch, True, finished)

    # -- reading -----------------------------------------------------------------

    def events(self, game_id: str, since: int, limit: int, wait: float = 0) -> EventPage:
        """Events after ``since`` (at most ``limit``), waiting up to ``wait`` s for one.

        A lobby's events are waited for like any others: they come when its
        last seat is filled. A finished game has nothing more to wait for.
        """
        started = self.store.exists(game_id)
        if not started:
            self.lobby.get(game_id)  # GameNotFound unless it is a lobby
        stored = self.store.read(game_id, since + 1, count=limit) if started else []
        if not stored and wait > 0 and not (started and self._finished(game_id)):
            stored = self._waiting.wait(game_id, since, wait, count=limit)
        batch = tuple(decode_envelope(e.payload) for e in stored)
        if not stored and not started:
            return EventPage(batch, 0, False)
        loaded = self.load(game_id)  # read after the events: never older than they are
        return EventPage(batch, loaded.version, loaded.state.phase == FINISHED)

    def _finished(self, game_id: str) -> bool:
        return self.load(game_id).state.phase == FINISHED

    def state_at(self, game_id: str, version: int) -> State:
        """The game as it was after ``version`` events (1 = just created)."""
        loaded = self.load(game_id)
        if not 1 <= version <= loaded.version:
            raise ApiProblem(
                404,
                "version_not_found",
                f"game {game_id!r} has versions 1..{loaded.version}, not {version}",
            )
        if version == loaded.version:
            return loaded.state
        checkpoints = self.keys.replay_checkpoints(game_id)
        return replays.state_at(self.store, self._client, checkpoints, game_id, version)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


def _advance(cached: Loaded, newer: list[StoredEvent]) -> Loaded:
    state = fold([decode_envelope(e.payload).event for e in newer], cached.state)
    return Loaded(newer[-1].version, newer[-1].hash, state, cached.seed)


def _check_setup(board: str, rules: RuleSet, seats: Sequence[SeatPlan]) -> None:
    """Refuse at creation what would fail when the game starts."""
    if board not in board_names():  # checked first: the name becomes a file name
        raise ApiProblem(400, "unknown_board", f"no board {board!r}; one of {board_names()}")
    known = bot_names()
    for index, plan in enumerate(seats, 1):
        if plan.kind == "bot" and plan.bot not in known:
            raise ApiProblem(400, "unknown_bot", f"seat p{index}: no bot {plan.bot!r}; {known}")
    names = [f"p{i}" for i in range(1, len(seats) + 1)]
    new_game(game_id="check", players=names, seed=b"check", board=board, rules=rules)


def _seat(seat: str, plan: SeatPlan, tokens: Mapping[str, str]) -> SeatInfo:
    if plan.kind == "open":
        return SeatInfo(seat, "open")
    token = tokens.get(seat)
    token_hash = auth.hash_token(token) if token else None
    return SeatInfo(seat, plan.kind, plan.name, plan.bot, plan.seed, token_hash)


def _default_name(seat: SeatInfo) -> str:
    return f"{seat.bot} bot ({seat.seat})" if seat.kind == "bot" else f"Player {seat.seat[1:]}"
