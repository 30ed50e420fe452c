"""Each process's folded games: what keeps a load's latency flat however long the game.

A process keeps the folded state of recent games (an LRU of ``size``). A
load checks the game's head (one ``HMGET``) and, only when another process
moved the game, reads the events after the cached version. A cold load is
the newest snapshot plus at most ``snapshot_every`` events. After each
append the new state is remembered; the append itself kept the snapshot and
replay checkpoint it made due (``GameLog.append``), so cold loads and looks
back stay bounded too.
"""

from __future__ import annotations

from collections.abc import Callable

from riskcore.engine.evolve import fold
from riskcore.model.state import State
from service.application.errors import GameNotFound, GameNotStarted, VersionNotFound
from service.application.game_log import GameLog
from service.application.game_types import Loaded, Lru
from service.application.lobby import Lobby
from service.store.values import Head

__all__ = ["GameStates"]


class GameStates:
    """Load games through a per-process cache of their folded states."""

    def __init__(
        self, log: GameLog, lobby: Lobby, *, size: int, forget_seats: Callable[[str], None]
    ) -> None:
        """``forget_seats`` is told of every cold load: the game may have been re-created."""
        self._log = log
        self._lobby = lobby
        self._cache: Lru[Loaded] = Lru(size)
        self._forget_seats = forget_seats

    def load(self, game_id: str) -> Loaded:
        """The game at its newest version; GameNotStarted for a lobby, GameNotFound for none."""
        head = self._head(game_id)
        cached = self._cache.get(game_id)
        if cached is not None and (cached.version, cached.hash) == tuple(head):
            return cached
        if cached is not None and cached.version < head.version:
            caught_up = self._catch_up(game_id, cached)
            if caught_up is not None:
                return self._remember(game_id, caught_up)
        self._forget_seats(game_id)  # unknown or re-created game: forget its seats too
        return self._remember(game_id, self._load_cold(game_id))

    def warm(self, game_id: str) -> tuple[Loaded, bool]:
        """The cached game without asking Redis (False: it may be behind), else a load.

        A command decided on a stale cache is refused by the append (the
        version does not match) and decided again, so trusting the cache
        costs nothing when it is current, which it is whenever this process
        made the game's last move: one round trip per command instead of two.
        """
        cached = self._cache.get(game_id)
        return (cached, False) if cached is not None else (self.load(game_id), True)

    def appended(self, game_id: str, loaded: Loaded) -> None:
        """Remember the state an append of this process made."""
        self._remember(game_id, loaded)

    def at(self, game_id: str, version: int) -> State:
        """The game as it was after ``version`` events (1 = just created)."""
        loaded = self.load(game_id)
        if not 1 <= version <= loaded.version:
            raise VersionNotFound(game_id, version, loaded.version)
        if version == loaded.version:
            return loaded.state
        return self._log.state_at(game_id, version)

    def forget(self, game_id: str) -> None:
        self._cache.drop(game_id)

    def _head(self, game_id: str) -> Head:
        try:
            return self._log.head(game_id)
        except GameNotFound:
            self._lobby.get(game_id)  # raises GameNotFound when there is no lobby either
            raise GameNotStarted(game_id) from None

    def _catch_up(self, game_id: str, cached: Loaded) -> Loaded | None:
        """The cached game advanced by the events it missed; None if they do not follow it."""
        newer = self._log.after(game_id, Head(cached.version, cached.hash))
        if newer is None:
            return None
        events, head = newer
        return Loaded(head.version, head.hash, fold(events, cached.state), cached.seed)

    def _load_cold(self, game_id: str) -> Loaded:
        snapshot, events, head_hash = self._log.since_snapshot(game_id)
        state = fold(events, snapshot)  # from the start when there is no snapshot
        seed = self._log.seed(game_id)
        if seed is None:
            raise GameNotFound(game_id)
        return Loaded(state.version, head_hash, state, seed)

    def _remember(self, game_id: str, loaded: Loaded) -> Loaded:
        self._cache.put(game_id, loaded)
        return loaded
