"""What a creator may keep stored, and what Redis holds (issue 36, item 3).

Quotas (``service.application.quotas``) count *active* games only, so one address that
created and resigned 55 games a second kept every one of them: ~8.9 KB and
7 keys a game, with no end, until a full Redis (``noeviction``) refused every
append of every game. Three limits now bound what is stored:

* retention: a finished game's keys expire ``finished_game_days`` after it
  ends (``Lobby.move``), its record (``risk verify``-able JSON Lines) being
  the form to keep for longer;
* a budget per creator (address, and token where one is sent): at most
  ``limit`` games created within the retention horizon, tournament games
  counted one by one when the tournament is created (``StorageBudget``); the
  games of challenges and of the quick-pairing queue count against the
  challenger's account, and each seeker's account or address (``check`` when
  they ask, ``count`` when the game is made);
* a high-water mark for the whole store: no new game or tournament while
  Redis uses ``create_memory_percent`` of its ``maxmemory``, so the games
  already running keep the room they need to finish.

A creator's budget is a sorted set of creations by time (``service.store.quotas.Creations``):
what is older than the horizon no longer counts and is trimmed when the
budget is next asked. A game finishes by then at the latest (an idle one is
ended after ``idle_game_hours``), so a creation is counted at least as long
as its game is stored, whatever happened to it.

``render_metrics`` (``service.store.usage``) adds Redis's memory and its keys
by kind to ``/metrics``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from service.application.quotas import Creator
from service.store.keys import KeySpace
from service.store.quotas import Creations, memory
from service.store.usage import key_kind, render_metrics
from service.store.values import Client

__all__ = [
    "StorageBudget",
    "StorageFull",
    "StorageQuotaExceeded",
    "key_kind",
    "render_metrics",
    "stored_budget",
]

MEMORY_CACHE_SECONDS = 1.0


def stored_budget(creator: Creator, limits: Mapping[str, int]) -> Creator:
    """``creator`` (of a quota of active games) as its budget of stored games counts it:
    the limit of its scope in ``limits``. A scope whose active games are not counted
    (RISK_GAMES_PER_*=0: one address creates every game of a deployment, as the
    benchmarks' do) has no budget either."""
    return Creator(
        creator.scope, creator.ident, limits.get(creator.scope, 0) if creator.limit else 0
    )


class StorageQuotaExceeded(Exception):
    def __init__(self, scope: str, limit: int, days: float) -> None:
        super().__init__(
            f"this {scope} has created {limit} games in the last {days:g} days, what it may "
            "keep stored; finished games are kept that long"
        )
        self.scope = scope


class StorageFull(Exception):
    """Redis is past its high-water mark for new games."""


class Reservation(NamedTuple):
    keys: tuple[str, ...]
    members: tuple[str, ...]


class StorageBudget:
    """See the module docstring."""

    def __init__(
        self,
        client: Client,
        keys: KeySpace,
        *,
        horizon_seconds: float,
        memory_percent: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._creations = Creations(client, keys)
        self.horizon_ms = int(horizon_seconds * 1000)
        self.memory_percent = memory_percent
        self._clock = clock
        self._memory: tuple[float, bool] = (0.0, False)  # (when read, over the mark)
        self._lock = threading.Lock()

    def reserve(self, creators: Sequence[Creator], games: int = 1) -> Reservation:
        """Count ``games`` new games against each creator; StorageFull, StorageQuotaExceeded."""
        if self.over_high_water():
            raise StorageFull(
                f"the game store is past {self.memory_percent:g} % of its memory; "
                "running games go on, new ones wait until finished ones expire"
            )
        now = int(self._clock() * 1000)
        token = secrets.token_hex(6)
        members = tuple(f"{now}:{token}:{k}" for k in range(games))
        taken: list[str] = []
        for creator in (c for c in creators if c.limit > 0):
            key = self._creations.key(creator.scope, creator.ident)
            count = self._creations.count_with(key, members, now, self.horizon_ms)
            taken.append(key)
            if count > creator.limit:
                self.cancel(Reservation(tuple(taken), members))
                raise StorageQuotaExceeded(creator.scope, creator.limit, self.horizon_ms / 86.4e6)
        return Reservation(tuple(taken), members)

    def check(self, creators: Sequence[Creator]) -> None:
        """StorageFull or StorageQuotaExceeded unless each creator could create a game now:
        a game made later, once others answer a challenge or a pairing matches, is then
        ``count``-ed (``service.application.challenges``, ``service.application.pairing``)."""
        self.cancel(self.reserve(creators))

    def count(self, creators: Sequence[Creator], games: int = 1) -> None:
        """``games`` made now count against each creator, within its budget or not: a game
        several people agreed to is not refused for one of them (as ``GameQuota.count``).
        A creator named twice (two seekers of one address) counts the game once."""
        now = int(self._clock() * 1000)
        token = secrets.token_hex(6)
        members = tuple(f"{now}:{token}:{k}" for k in range(games))
        for creator in dict.fromkeys(c for c in creators if c.limit > 0):
            key = self._creations.key(creator.scope, creator.ident)
            self._creations.count_with(key, members, now, self.horizon_ms)

    def cancel(self, reservation: Reservation) -> None:
        """The creation failed: it does not count."""
        for key in reservation.keys:
            self._creations.remove(key, reservation.members)

    def over_high_water(self) -> bool:
        """Whether Redis uses ``memory_percent`` of its ``maxmemory`` (read once a second)."""
        if self.memory_percent <= 0:
            return False
        with self._lock:
            read_at, over = self._memory
            if time.monotonic() - read_at < MEMORY_CACHE_SECONDS:
                return over
        used, limit = memory(self._client)
        over = limit > 0 and used >= limit * self.memory_percent / 100
        with self._lock:
            self._memory = (time.monotonic(), over)
        return over
