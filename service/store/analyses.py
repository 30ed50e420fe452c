"""Where game analyses are kept, per game head (issue 37): a derived artifact, never events.

An analysis of a finished game (``riskcore.analysis``) is asked for once per
depth (``service.application.analysis``); a worker runs it
(``workers.analysis``) and writes its progress and then its report into one
hash, keyed by the game and the depth, holding the head hash it was made
for. A game's events never change once it is over, so a kept report stays
right for as long as the game keeps that head (a game deleted and created
again under the same id has another head: its old report is treated as
absent).

The hash: ``head``, ``status`` (queued, running, done, failed), ``done`` and
``total`` (units of work: turn starts, then judged decisions), ``report``
(JSON, once done) and ``error`` (once failed). It lives ``KEEP_SECONDS``.
"""

from __future__ import annotations

import json
from typing import Any

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["KEEP_SECONDS", "Analyses"]

KEEP_SECONDS = 30 * 86_400


@door
class Analyses:
    """Reads and writes the hashes of the module docstring."""

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self.keys = keys

    def key(self, game_id: str, depth: int) -> str:
        return self.keys.computed(game_id, f"analysis:{depth}")

    def read(self, game_id: str, depth: int, head: str) -> dict[str, Any] | None:
        """The analysis of the game at ``head`` (None: never asked, or of another head)."""
        raw = self._client.hgetall(self.key(game_id, depth))
        found = {k.decode(): v.decode() for k, v in raw.items()}
        if found.get("head") != head:
            return None
        document: dict[str, Any] = {
            "game_id": game_id,
            "depth": depth,
            "head": head,
            "status": found["status"],
            "done": int(found.get("done", 0)),
            "total": int(found.get("total", 0)),
        }
        if "report" in found:
            document["report"] = json.loads(found["report"])
        if "error" in found:
            document["error"] = found["error"]
        return document

    def queued(self, game_id: str, depth: int, head: str) -> None:
        key = self.key(game_id, depth)
        pipe = self._client.pipeline(transaction=True)
        pipe.delete(key)
        pipe.hset(key, mapping={"head": head, "status": "queued", "done": 0, "total": 0})
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()

    def progress(self, game_id: str, depth: int, done: int, total: int) -> None:
        mapping = {"status": "running", "done": done, "total": total}
        self._client.hset(self.key(game_id, depth), mapping=mapping)

    def finished(self, game_id: str, depth: int, report: dict[str, Any]) -> None:
        text = json.dumps(report, separators=(",", ":"))
        mapping = {"status": "done", "report": text}
        self._client.hset(self.key(game_id, depth), mapping=mapping)

    def failed(self, game_id: str, depth: int, error: str) -> None:
        self._client.hset(self.key(game_id, depth), mapping={"status": "failed", "error": error})
