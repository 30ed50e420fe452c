"""The application service: every way a game changes or is read, behind one class.

The HTTP views and the workers (bot turns, clocks) call the same
``GameService`` methods, so a bot's command passes the same checks as a
person's. The class only wires the parts together and reads across them;
each concern has a module of its own:

* ``service.application.seating``: creating games, filling their seats, seat tokens;
* ``service.application.commands``: load → decide → append → notify, with retries
  (``GameService.execute`` and ``run`` are its own methods: ``GameService.commands``);
* ``service.application.game_states``: the per-process cache of folded games, and the
  state at any past version;
* ``service.application.game_log``: the stored stream as envelopes and states (the one
  place that knows the record formats, with ``service.store``).

None of them knows HTTP: they raise the plain errors of ``service.application.errors``
(and pass on the store's and the engine's), which ``service.http.problems`` maps
to problem responses.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from riskcore.audit.record import SYSTEM
from riskcore.errors import RuleViolation
from riskcore.model.state import FINISHED, State
from service.application.archived import ArchivedGames, ArchivingEventStore, ArchivingLobby
from service.application.commands import MAX_GAME_EVENTS, Commands, Opening
from service.application.errors import IdempotencyMismatch, VersionConflict
from service.application.game_log import GameLog
from service.application.game_states import GameStates
from service.application.game_types import (
    CommandResult,
    Created,
    EventPage,
    Joined,
    Loaded,
    Observer,
    Planned,
    Quiet,
    RunResult,
    SeatPlan,
    published_head,
)
from service.application.lobby import FINISHED as DONE
from service.application.lobby import FINISHED_SECONDS, OPEN, RUNNING, GameInfo, Lobby, SeatInfo
from service.application.seating import Seating, check_setup
from service.store.analyses import Analyses, PendingAnalyses
from service.store.clocks import Clocks
from service.store.computed import Computed
from service.store.connections import url_clients
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = [
    "CommandResult",
    "Created",
    "EventPage",
    "GameService",
    "Joined",
    "Loaded",
    "Observer",
    "Planned",
    "RunResult",
    "SeatPlan",
]


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
        finished_seconds: int = FINISHED_SECONDS,
        max_game_events: int = MAX_GAME_EVENTS,
        archived: ArchivedGames | None = None,
    ) -> None:
        """``new_seed`` makes server seeds; tests and benchmarks pass a seeded one.
        With ``archived``, finished games Redis no longer has are read from the
        archive (``service.application.archived``)."""
        self.keys = keys or KeySpace()
        self._client = client
        self._clock = clock
        if archived is None:
            self.store = EventStore(client, self.keys, snapshot_every=snapshot_every)
            self.lobby = Lobby(client, self.keys, finished_seconds)
        else:
            self.store = ArchivingEventStore(
                client, self.keys, archived, snapshot_every=snapshot_every
            )
            self.lobby = ArchivingLobby(client, self.keys, finished_seconds, archived)
        self.log = GameLog(self.store, EventStore(blocking_client or client, self.keys))
        self.analyses = Analyses(client, self.keys)
        self.pending_analyses = PendingAnalyses(client, self.keys)  # per address (issue 54)
        self.computed = Computed(client, self.keys)
        self.clocks = Clocks(client, self.keys)
        self._seating = Seating(
            self.lobby, cache_games=cache_games, now_ms=self._now_ms, new_seed=new_seed
        )
        self._states = GameStates(
            self.log, self.lobby, size=cache_games, forget_seats=self._seating.forget
        )
        self.commands = Commands(
            self.log,
            self._states,
            self._seating,
            observer=observer or Quiet(),
            now_ms=self._now_ms,
            max_game_events=max_game_events,
        )
        # A game's commands go straight to ``Commands``: the one door by which its
        # events grow, named here once (not repeated with its signatures).
        self.execute = self.commands.execute
        self.run = self.commands.run

    @classmethod
    def from_url(cls, url: str, prefix: str = "risk", **options: Any) -> GameService:
        """A service on its own clients; long-polls get a client with a long timeout."""
        client, waits = url_clients(url)
        return cls(client, KeySpace(prefix), blocking_client=waits, **options)

    # -- lobby -----------------------------------------------------------------

    def create(
        self,
        *,
        seats: Sequence[SeatPlan],
        board: str | None = None,
        mode: str | None = None,
        rules: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        tournament: str | None = None,
        seed: bytes | None = None,
        game_id: str | None = None,
        opening: Opening | None = None,
        rated: bool = False,
        creator: str | None = None,
    ) -> Created:
        """A new game; it starts at once unless some seats are left open.

        ``mode`` defaults to classic (or to ``rules["variant"]``, its old name);
        ``tournament`` names the tournament it is a game of, which draws ``seed``,
        the server seed (secret until the game ends), for it, and its ``game_id``
        (so that creating one fixture's game again finds the first one).
        ``opening`` makes its opening events instead of the mode's (a fork's).
        ``creator`` is the account whose token created it (its webhooks hear of it).
        """
        info, tokens = self._seating.open(
            seats, board, mode, rules, clock, tournament, seed, game_id, rated, creator
        )
        return Created(self.commands.start_if_full(info, opening), tokens)

    def check_setup(
        self, board: str, mode: str | None, rules: Mapping[str, Any] | None, players: int
    ) -> None:
        """Refuse now a setup that ``create`` would refuse for ``players`` seats
        (a tournament checks its games' setup before it stores anything)."""
        check_setup(board, mode, rules, players)

    def join(
        self,
        game_id: str,
        *,
        seat: str | None = None,
        name: str | None = None,
        seed: str | None = None,
        team: str | None = None,
        account: str | None = None,
    ) -> Joined:
        """Claim ``seat`` (or the first open one, of ``team`` if named) for a new human,
        bound to ``account`` if given; the token is shown once."""
        claimed, token = self._seating.join(
            game_id, seat=seat, name=name, seed=seed, team=team, account=account
        )
        info = self.commands.start_if_full(self.lobby.get(game_id))
        return Joined(info, claimed, token)

    def info(self, game_id: str) -> GameInfo:
        """Setup, seats and status (derived from the events once the game started)."""
        return self.current(game_id)[0]

    def current(self, game_id: str) -> tuple[GameInfo, Loaded | None]:
        """The game's info and, once it has started, its newest state (one load)."""
        info = self._seating.seated(game_id)
        if info.version == 0:
            info = self.commands.start_if_full(info)  # a join may have crashed before it
            if info.version == 0:
                return info, None
        loaded = self.load(game_id)
        status = DONE if loaded.state.phase == FINISHED else RUNNING
        if status != info.status:  # repair an index a crash left behind (idempotent)
            return self._seating.move(info, status, loaded.version), loaded
        return info.with_status(status, loaded.version), loaded

    def settle_finished(self, versions: Mapping[str, int]) -> None:
        """Finished games (id: final version) listed as finished, their retention set
        and the rated ones queued for rating, as their last append does: done again
        for any a crash left listed running, as ``current`` would (idempotent; one
        read for them all when nothing is missing). The archive's projector calls
        it for the games it sees finished."""
        for info in self.lobby.many(versions) if versions else ():
            if info.status != DONE:
                self._seating.move(info, DONE, versions[info.game_id])

    def seat_info(self, game_id: str) -> dict[str, SeatInfo]:
        """Every seat by id: workers use it to find the bot seats and their bots."""
        return self._seating.seat_info(game_id)

    def seat_for_token(self, game_id: str, token: str) -> str:
        """The seat ``token`` acts for in ``game_id``; InvalidSeatToken if none."""
        return self._seating.seat_for_token(game_id, token)

    def seat_for_account(self, game_id: str, account_id: str) -> str | None:
        """The seat of ``game_id`` bound to the account, if any (issue 49)."""
        return self._seating.seat_for_account(game_id, account_id)

    def list_games(
        self, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[GameInfo], str | None]:
        statuses = [status] if status else [OPEN, RUNNING, DONE]
        return self.lobby.page(statuses, limit, cursor)

    def archived_record(self, game_id: str) -> bytes | None:
        """A finished game's record (gzip) when it is read from the archive, else None."""
        store = self.store
        return store.archived_record(game_id) if isinstance(store, ArchivingEventStore) else None

    def delete(self, game_id: str) -> None:
        """Operator action: remove the game, its records and its cache entries."""
        info = self.lobby.get(game_id)
        self.log.delete(game_id)
        self.lobby.delete(info)
        self._states.forget(game_id)
        self._seating.forget(game_id)

    # -- play --------------------------------------------------------------------

    def load(self, game_id: str) -> Loaded:
        """The game at its newest version; GameNotStarted for a lobby, GameNotFound for none."""
        return self._states.load(game_id)

    def load_cached(self, game_id: str) -> Loaded:
        """The game as this process last saw it, without asking Redis (a ``load`` if it
        has not seen it). Current whenever this process made the game's last move;
        a command decided on it when another process moved the game meanwhile is
        refused by the append with VersionConflict, so nothing stale is ever stored."""
        return self._states.warm(game_id)[0]

    def abandon(self, game_id: str) -> bool:
        """End a game nobody plays any more (``service.application.quotas``): ``abandon``, the
        server's own command, in the record like any other, so the record is kept
        and verifies. False if it had ended meanwhile."""
        try:
            self.commands.execute(game_id, SYSTEM, {"type": "abandon"}, server_key="abandon")
        except (RuleViolation, VersionConflict, IdempotencyMismatch):
            return False  # it ended, or moved, meanwhile: nothing to do now
        return True

    # -- reading -----------------------------------------------------------------

    def events(self, game_id: str, since: int, limit: int, wait: float = 0) -> EventPage:
        """Events after ``since`` (at most ``limit``), waiting up to ``wait`` s for one.

        A lobby's events are waited for like any others: they come when its
        last seat is filled. A finished game has nothing more to wait for.
        """
        started = self.log.exists(game_id)
        if not started:
            self.lobby.get(game_id)  # GameNotFound unless it is a lobby
        batch = self.log.envelopes(game_id, since + 1, count=limit) if started else ()
        if not batch and wait > 0 and not (started and self._finished(game_id)):
            batch = self.log.wait(game_id, since, wait, count=limit)
        if not batch and not started:
            return EventPage(batch, 0, False)
        loaded = self.load(game_id)  # read after the events: never older than they are
        finished = loaded.state.phase == FINISHED
        return EventPage(batch, loaded.version, finished, published_head(loaded.hash, loaded.state))

    def state_at(self, game_id: str, version: int) -> State:
        """The game as it was after ``version`` events (1 = just created)."""
        return self._states.at(game_id, version)

    def _finished(self, game_id: str) -> bool:
        return self.load(game_id).state.phase == FINISHED

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)
