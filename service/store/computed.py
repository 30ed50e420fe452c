"""Where results that cost CPU are kept, per game head: summaries and records (issue 36, item 1).

A summary or a record of a 16,000-event game takes a second of CPU to
build; built inside a request worker, four clients asking for it in a loop
froze every other connection of that worker (``/healthz`` p50 14 s). So
each is built once per game version, by the helper process
(``service.application.offload``), and kept compressed in Redis; a request then only
reads it back, in chunks (``chunks``), whatever its size.

A kept result is a string key, the version it was built at (8 bytes) and
then the zlib-compressed bytes, so it is found stale with one ``GETRANGE``
of 8 bytes and streamed without ever being held whole. One key per game,
kind and reader (``summary``, ``record:<seat>`` or ``record:public``): a new
version overwrites the old result, so a game keeps at most a few. Results
of a running game live ``RUNNING_SECONDS``; a finished game's record is
the long-lived ``record_export`` (``service.application.records``), zlib without the
version, kept as long as the game (``Settings.finished_seconds``, docs/operations.md).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["CHUNK", "RUNNING_SECONDS", "Computed", "chunks"]

RUNNING_SECONDS = 600
CHUNK = 64 * 1024  # compressed bytes read at a time; a chunk sent is at most 4x that
_VERSION = struct.Struct(">Q")


@door
class Computed:
    """The kept results of one deployment, on the game store's client."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self.client = client
        self.keys = keys

    def key(self, game_id: str, kind: str) -> str:
        return self.keys.computed(game_id, kind)

    def version_of(self, key: str) -> int | None:
        """The version the result under ``key`` was built at; None if there is none."""
        head = self.client.getrange(key, 0, _VERSION.size - 1)
        return _VERSION.unpack(head)[0] if len(head) == _VERSION.size else None

    def put(self, key: str, version: int, data: bytes, seconds: int = RUNNING_SECONDS) -> None:
        self.client.set(key, _VERSION.pack(version) + zlib.compress(data, 6), ex=seconds)

    def read(self, key: str) -> bytes | None:
        """A small result whole (a summary); None if there is none."""
        kept = self.client.get(key)
        return None if kept is None else zlib.decompress(kept[_VERSION.size :])

    def chunks(self, key: str, versioned: bool = True) -> Iterator[bytes]:
        """The result's bytes, decompressed a chunk at a time (``versioned``: skip the
        version in front; a finished game's export has none)."""
        return chunks(self.client, key, _VERSION.size if versioned else 0)

    def export(self, game_id: str) -> bytes | None:
        """A finished game's complete record as kept (zlib-compressed), if it is."""
        kept = self.client.get(self.keys.record_export(game_id))
        return kept if isinstance(kept, bytes) else None

    def has_export(self, game_id: str) -> bool:
        return bool(self.client.exists(self.keys.record_export(game_id)))

    def keep_export(self, game_id: str, text: str, seconds: int) -> None:
        """Keep a finished game's record, compressed, ``seconds`` (0: for ever)."""
        data = zlib.compress(text.encode(), 6)
        self.client.set(self.keys.record_export(game_id), data, ex=seconds or None)

    def export_chunks(self, game_id: str) -> Iterator[bytes]:
        """A kept export's text, a chunk at a time (it holds no version in front)."""
        return chunks(self.client, self.keys.record_export(game_id))


def chunks(client: Client, key: str, offset: int = 0) -> Iterator[bytes]:
    """A zlib-compressed string key read ``CHUNK`` bytes at a time and decompressed:
    what a reader holds is a chunk, never the whole result."""
    inflate = zlib.decompressobj()
    while True:
        part = client.getrange(key, offset, offset + CHUNK - 1)
        if not part:
            break
        offset += len(part)
        data = inflate.decompress(part, 4 * CHUNK)
        while data:
            yield data
            data = inflate.decompress(inflate.unconsumed_tail, 4 * CHUNK)
        if len(part) < CHUNK:
            break
    rest = inflate.flush()
    if rest:
        yield rest
