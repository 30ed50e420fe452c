"""The values the application service hands out, and its small LRU.

Shared by the modules the service is built from (``service.application.games``
re-exports the public ones), so none of them imports another just for a
type. All are immutable, except that a ``Loaded.state`` must be treated as
such: it is shared through the cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from riskcore.audit.record import Envelope
from riskcore.errors import RiskError
from riskcore.model.state import FINISHED, State
from service.application.lobby import GameInfo

__all__ = [
    "CommandResult",
    "Created",
    "EventPage",
    "Joined",
    "Loaded",
    "Lru",
    "Observer",
    "Planned",
    "Quiet",
    "RunResult",
    "SeatPlan",
    "published_head",
]

T = TypeVar("T")


class Observer(Protocol):
    """Hooks for metrics; ``service.http.metrics`` implements them for Prometheus."""

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
    level: str | None = None  # a bot seat's level (riskcore.bots.levels)
    # Tournaments: the entrant the seat is, and (an HTTP entrant) the hash of the
    # entrant's own token, which then acts for this seat: no seat token is made.
    entrant: str | None = None
    token_hash: str | None = None
    account: str | None = None  # the account the seat is bound to (issue 49)


class Planned(NamedTuple):
    """One command of a run (``GameService.run``), chosen by the server for ``seat``:
    the body, the server's own idempotency key for it, and which bot chose it."""

    seat: str
    body: dict[str, Any]
    server_key: str
    bot: dict[str, Any] | None = None


class RunResult(NamedTuple):
    """What a run appended (``appended`` None: nothing) and how many commands that
    was; ``refused``: the command the rules refused, which ended the run unstored."""

    appended: CommandResult | None
    commands: int
    refused: tuple[Planned, RiskError] | None


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
    """The batch a command made (or made the first time, when ``replayed``), and
    the hash of its last event: the head a client can later find in the record
    (None while it may not be published, see ``published_head``)."""

    version: int
    envelopes: tuple[Envelope, ...]
    replayed: bool
    finished: bool
    head: bytes | None


@dataclass(frozen=True, slots=True)
class EventPage:
    """Events after a version; ``head`` is the hash at ``version`` when it may be
    published (``published_head``)."""

    envelopes: tuple[Envelope, ...]
    version: int
    finished: bool
    head: bytes | None = None


def published_head(head: bytes, state: State) -> bytes | None:
    """``head`` if a client may hold it as an anchor: any head of a format-2 game
    (its hashes cover no secret), a format-1 game's only once it is over (its
    hashes cover the hidden cards, so they are withheld until then)."""
    return head if state.record_format >= 2 or state.phase == FINISHED else None


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
