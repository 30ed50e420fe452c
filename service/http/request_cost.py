"""What a request costs against its client's rate limit: 0 for progress, else 1.

The rate limit is there to stop loops that make the server work for
nothing, not a client that plays fast. Counting every request stalled an
honest one: a client following the documented loop (legal actions, a
command, a long-poll when idle) against bots that answer in milliseconds
used up 600 requests a minute in seconds, because each long-poll came back
at once. So a request is free when it brings its client something new,
and costs 1 otherwise:

* an accepted command (not a replay of an idempotent one) is free: it
  moves the game on, and a game is only so long;
* reading the events (``GET .../events``, waiting or not) is free when it
  reaches a version this client has not been sent events up to yet, and
  when it waited (``wait`` > 0) and nothing happened: waiting costs a
  greenlet, which the per-address stream cap bounds, not the server's work;
* the view and the legal actions of a game are free once per step of the
  game this client saw (a new version, an accepted command or new events
  since its last such request), so "look, then act" at every step is free;
* everything else costs 1: the same read again with nothing new, a
  refused command, an event stream opened, creating, joining, listing,
  records, maps, odds, every error.

So a client polling ``wait=0`` in a loop, re-reading the same view, or
sending commands the engine refuses, meets the limit as before; one that
only follows the game does not. What each client saw is kept per process
(an LRU of ``MAX_CLIENTS`` client-game pairs): a client spread over P
processes gets at most P free repeats of a step, and one that is forgotten
gets one more.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from service.application.game_types import Lru

__all__ = ["Progress", "Seen"]

MAX_CLIENTS = 50_000
COMMAND, EVENTS = "play.send_command", "events.list_events"
LOOKS = ("lobby.get_game", "play.list_legal_actions")


@dataclass(slots=True)
class Seen:
    """What one client was given of one game, as this process knows it."""

    step: int = 0  # moves on with every accepted command and every new event sent
    events_version: int = -1  # the version its last new events reached
    looks: dict[str, tuple[int, int]] = field(default_factory=dict)  # view -> (version, step)


class Progress:
    """The memory behind the rule of the module docstring, one per process."""

    def __init__(self, size: int = MAX_CLIENTS) -> None:
        self._seen: Lru[Seen] = Lru(size)
        self._lock = threading.Lock()

    def cost(
        self,
        client: str,
        game: str | None,
        endpoint: str | None,
        status: int,
        version: int | None,
        *,
        replayed: bool = False,
        waited: bool = False,
    ) -> int:
        """1 unless the request brought ``client`` something new of ``game``."""
        if game is None or version is None or status >= 300 or endpoint is None:
            return 1
        key = f"{client}|{game}"
        with self._lock:
            seen = self._seen.get(key) or Seen()
            self._seen.put(key, seen)
            if endpoint == COMMAND:
                if replayed:
                    return 1
                seen.step += 1
                return 0
            if endpoint == EVENTS:
                if version > seen.events_version:
                    seen.events_version = version
                    seen.step += 1
                    return 0
                return 0 if waited else 1
            if endpoint in LOOKS:
                last_version, last_step = seen.looks.get(endpoint, (-1, -1))
                seen.looks[endpoint] = (version, seen.step)
                return 0 if version > last_version or seen.step > last_step else 1
        return 1
