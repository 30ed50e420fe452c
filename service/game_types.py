"""The values the application service hands out, and its small LRU.

Shared by the modules the service is built from (``service.games``
re-exports the public ones), so none of them imports another just for a
type. All are immutable, except that a ``Loaded.state`` must be treated as
such: it is shared through the cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, NamedTuple, Protocol, TypeVar

from riskcore.audit.record import Envelope
from riskcore.model.state import State
from service.lobby import GameInfo

__all__ = [
    "CommandResult",
    "Created",
    "EventPage",
    "Joined",
    "Loaded",
    "Lru",
    "Observer",
    "Quiet",
    "SeatPlan",
]

T = TypeVar("T")


class Observer(Protocol):
    """Hooks for metrics; ``service.metrics`` implements them for Prometheus."""

    def command(self, kind: str, outcome: str) -> None: ...
    def appended(self, events: int) -> None: ...
    def conflict(self) -> None: ...


class Quiet:
    def command(self, kind: str, outcome: str) -> None:
        pass

    def appended(self, events: int) -> None:
        pass

    def conflict(self) -> None:
        pass


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """A seat as asked for at creation: "human", "bot" (with ``bot``) or "open"."""

    kind: str
    name: str | None = None
    bot: str | None = None
    seed: str | None = None
    team: str | None = None  # the team game: which team the seat plays for


class Loaded(NamedTuple):
    """A game folded to ``version``; ``state`` is shared: never mutate it."""

    version: int
    hash: bytes
    state: State
    seed: bytes


@dataclass(frozen=True, slots=True)
class Created:
    info: GameInfo
    tokens: dict[str, str]


@dataclass(frozen=True, slots=True)
class Joined:
    info: GameInfo
    seat: str
    token: str


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The batch a command made (or made the first time, when ``replayed``)."""

    version: int
    envelopes: tuple[Envelope, ...]
    replayed: bool
    finished: bool


@dataclass(frozen=True, slots=True)
class EventPage:
    envelopes: tuple[Envelope, ...]
    version: int
    finished: bool


class Lru(Generic[T]):
    """A small thread-safe LRU map."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, item: T) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def drop(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)
