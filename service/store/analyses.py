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
(JSON, once done), ``error`` (once failed), ``job`` (the attempt's job id: a
job of an earlier attempt leaves it alone) and ``lease`` (unix ms, issue 54).

Leases (issue 54): a worker killed in the middle of an analysis left it
"running" for 30 days, and asking again queued nothing. Now a queued
analysis holds a lease of ``QUEUED_LEASE_MS`` and a running one of
``RUNNING_LEASE_MS``, renewed by the job's heartbeat while it runs; one whose
lease ran out reads as failed (``worker_lost``), and asking again starts it
again. While queued or running the hash lives its lease plus
``LOST_KEPT_SECONDS`` (so a lost job's status is gone within the hour); a
done or failed one lives ``KEEP_SECONDS``.

What one address has queued or running is kept beside them
(``PendingAnalyses``), so the application can bound it by weight.
"""

from __future__ import annotations

import json
import time
from typing import Any

from service.store.errors import door
from service.store.keys import KeySpace
from service.store.values import Client

__all__ = [
    "KEEP_SECONDS",
    "QUEUED_LEASE_MS",
    "RUNNING_LEASE_MS",
    "WORKER_LOST",
    "Analyses",
    "PendingAnalyses",
]

KEEP_SECONDS = 30 * 86_400
RUNNING_LEASE_MS = 30_000  # a running job renews it every third of it (workers.analysis)
QUEUED_LEASE_MS = 3_600_000  # a queued job waits behind others for at most this long
LOST_KEPT_SECONDS = 3_600  # a queued or running status outlives its lease by this much
WORKER_LOST = "worker_lost: the worker running this analysis stopped; POST again to start it again"


def _now_ms() -> int:
    return int(time.time() * 1000)


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
        status = found["status"]
        if status in ("queued", "running") and int(found.get("lease", 0)) < _now_ms():
            status, found["error"] = "failed", WORKER_LOST  # its worker died: ask again
        document: dict[str, Any] = {
            "game_id": game_id,
            "depth": depth,
            "head": head,
            "status": status,
            "done": int(found.get("done", 0)),
            "total": int(found.get("total", 0)),
        }
        if "report" in found:
            document["report"] = json.loads(found["report"])
        if "error" in found:
            document["error"] = found["error"]
        return document

    def listed(self, game_id: str, depths: range, head: str) -> list[dict[str, Any]]:
        """The analyses of the game at ``head`` kept at any of ``depths``, shallowest
        first, each without its report: what a page may then read without asking for
        one that is not there (issue 51). One round trip (the keys share the game's slot)."""
        fields = ("head", "status", "done", "total", "lease")
        pipe = self._client.pipeline(transaction=False)
        for depth in depths:
            pipe.hmget(self.key(game_id, depth), fields)
        found = []
        for depth, values in zip(depths, pipe.execute(), strict=True):
            decoded = (v.decode() if v is not None else None for v in values)
            kept = dict(zip(fields, decoded, strict=True))
            if kept["head"] != head or kept["status"] is None:
                continue
            status = kept["status"]
            if status in ("queued", "running") and int(kept["lease"] or 0) < _now_ms():
                status = "failed"  # its worker died (``read`` says why)
            done, total = int(kept["done"] or 0), int(kept["total"] or 0)
            found.append({"depth": depth, "status": status, "done": done, "total": total})
        return found

    def pending(self, game_id: str, depth: int, head: str) -> bool:
        """Whether a job of this analysis is queued or running, its lease not run out."""
        found = self.read(game_id, depth, head)
        return found is not None and found["status"] in ("queued", "running")

    def queued(self, game_id: str, depth: int, head: str, job: str = "") -> None:
        key = self.key(game_id, depth)
        lease = _now_ms() + QUEUED_LEASE_MS
        mapping = {"head": head, "status": "queued", "done": 0, "total": 0, "job": job}
        pipe = self._client.pipeline(transaction=True)
        pipe.delete(key)
        pipe.hset(key, mapping=mapping | {"lease": lease})
        pipe.expire(key, QUEUED_LEASE_MS // 1000 + LOST_KEPT_SECONDS)
        pipe.execute()

    def current_job(self, game_id: str, depth: int) -> str | None:
        """The job id of the analysis's latest attempt (None: no status kept)."""
        job = self._client.hget(self.key(game_id, depth), "job")
        return None if job is None else job.decode()

    def progress(self, game_id: str, depth: int, done: int, total: int) -> None:
        mapping = {"status": "running", "done": done, "total": total}
        self._client.hset(self.key(game_id, depth), mapping=mapping)

    def renew(self, game_id: str, depth: int, lease_ms: int = RUNNING_LEASE_MS) -> None:
        """The running job's heartbeat: its lease, and the status's life, extended."""
        key = self.key(game_id, depth)
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(key, mapping={"status": "running", "lease": _now_ms() + lease_ms})
        pipe.expire(key, lease_ms // 1000 + LOST_KEPT_SECONDS)
        pipe.execute()

    def finished(self, game_id: str, depth: int, report: dict[str, Any]) -> None:
        text = json.dumps(report, separators=(",", ":"))
        self._settled(game_id, depth, {"status": "done", "report": text})

    def failed(self, game_id: str, depth: int, error: str) -> None:
        self._settled(game_id, depth, {"status": "failed", "error": error})

    def _settled(self, game_id: str, depth: int, mapping: dict[str, str]) -> None:
        key = self.key(game_id, depth)
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(key, mapping=mapping)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()


@door
class PendingAnalyses:
    """What one address has queued or running, each with its weight (issue 54, item 1).

    Counting analyses let one address queue 57 cheap ones in 0.7 s; the
    application bounds their summed weight instead
    (``service.application.analysis.pending_weight``). An entry leaves when its
    analysis is done, failed or lost (read from its status on each request: a
    handful of entries at most).
    """

    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._keys = keys
        self._analyses = Analyses(client, keys)

    def weight(self, address: str) -> int:
        """The summed weight of the address's analyses still queued or running."""
        key = self._keys.analyses_pending(address)
        total = 0
        for member, weight in self._client.zrange(key, 0, -1, withscores=True):
            game_id, depth, head = member.decode().split("|", 2)
            if self._analyses.pending(game_id, int(depth), head):
                total += int(weight)
            else:
                self._client.zrem(key, member)
        return total

    def add(self, address: str, game_id: str, depth: int, head: str, weight: int) -> None:
        """Count the analysis of ``game_id`` at ``depth`` (for ``head``) against ``address``."""
        key = self._keys.analyses_pending(address)
        pipe = self._client.pipeline(transaction=False)
        pipe.zadd(key, {f"{game_id}|{depth}|{head}": weight})
        pipe.expire(key, QUEUED_LEASE_MS // 1000 + LOST_KEPT_SECONDS)
        pipe.execute()
