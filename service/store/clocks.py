"""Where turn clocks are kept: one hash per game, the deadline that runs now.

The workers set it when a person must act in a game with a clock
(``workers.jobs``): ``key`` names the span the deadline covers
(``service.application.clocks.clock_key_of``) and ``deadline_ms`` when it
ends. This module reads it for the API; the hash is deleted with the game
(``service.store.lobby_index``) and expires with it (``KeySpace.retained``).
"""

from __future__ import annotations

from typing import NamedTuple

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["Clocks", "Deadline"]


class Deadline(NamedTuple):
    """A running deadline: the span it covers (its clock key) and its end, unix ms."""

    key: str
    at_ms: int


@door
class Clocks:
    """Reads the hashes of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def running(self, game_id: str) -> Deadline | None:
        """The deadline that runs in ``game_id``, if one does."""
        key, at_ms = self._client.hmget(self._keys.clock(game_id), ["key", "deadline_ms"])
        if key is None or at_ms is None:
            return None
        return Deadline(key.decode(), int(at_ms))
