"""Where replay checkpoints are kept: one hash per game, version -> encoded state.

A cache beside the game (``service.application.replays`` decides when one is
written and folds from the nearest): each field holds the state after that
version, encoded by the engine, and the field ``stamp`` names the encoding, so
a codec change finds them stale and they are rebuilt. The hash lives
``CHECKPOINT_SECONDS`` after its last write.
"""

from __future__ import annotations

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["CHECKPOINT_SECONDS", "Checkpoints"]

CHECKPOINT_SECONDS = 7 * 24 * 3600
_STAMP_FIELD = "stamp"


@door
class Checkpoints:
    """Reads and writes the hashes of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys

    def write(self, game_id: str, stamp: str, checkpoints: dict[str, bytes]) -> None:
        """Keep ``checkpoints`` (version -> encoded state) under the encoding ``stamp``."""
        key = self._keys.replay_checkpoints(game_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.hset(key, mapping={_STAMP_FIELD: stamp, **checkpoints})
        pipe.expire(key, CHECKPOINT_SECONDS)
        pipe.execute()

    def nearest(self, game_id: str, version: int, stamp: str) -> bytes | None:
        """The newest checkpoint at or below ``version`` with ``stamp``, encoded; None if
        there is none. Checkpoints of another stamp are dropped (they are rebuilt)."""
        key = self._keys.replay_checkpoints(game_id)
        fields = {f.decode() for f in self._client.hkeys(key)}
        stored = self._client.hget(key, _STAMP_FIELD) if fields else None
        if stored is not None and stored.decode() != stamp:
            self._client.delete(key)  # written by other code: rebuild
            return None
        below = [int(f) for f in fields if f.isdigit() and int(f) <= version]
        if not below:
            return None
        data = self._client.hget(key, str(max(below)))
        return data if isinstance(data, bytes) else None
