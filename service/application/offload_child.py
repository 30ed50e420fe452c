"""The helper process of ``service.application.offload``: summaries, records, verdicts.

One task at a time.

Run as ``python -m service.application.offload_child '<settings JSON>'`` by a server
process, which it serves until its stdin ends (the parent went away). Each
task reads what it needs from Redis itself; see ``service.application.offload`` for
the frames.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import IO, Any

from service.application.archived import ArchivedGames, archive_for
from service.application.computed import Computed
from service.application.costly import parent_fetcher, record_task, summary_task, verify_task
from service.application.errors import GameNotStarted
from service.application.games import GameService
from service.settings import Settings
from service.store.connections import store_client
from service.store.errors import GameNotFound, StoreUnavailable
from service.store.keys import KeySpace

log = logging.getLogger(__name__)


def main(config: str) -> None:
    options = json.loads(config)
    settings = Settings(**options)
    # Below the request workers: on a machine whose cores are all busy, /healthz and the
    # games' commands get the CPU first and the costly task waits, not the reverse.
    os.nice(max(0, settings.offload_nice))
    client = store_client(settings, socket_timeout=30, socket_connect_timeout=5)
    keys = KeySpace(settings.key_prefix)
    archived = ArchivedGames(archive_for(settings, pool_size=1), size=4)
    service = GameService(client, keys, cache_games=16, archived=archived)
    computed = service.computed
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = source.readline()
        if not line:
            return
        task = json.loads(line)
        payload = _read(source, int(task.get("size", 0)))
        try:
            reply, body = {"ok": True}, _run(service, computed, task, payload)
        except GameNotFound as error:
            reply, body = _refused("game_not_found", f"no game {error.game_id!r}")
        except GameNotStarted as error:
            reply, body = _refused("game_not_started", str(error))
        except StoreUnavailable as error:
            reply, body = _refused("store_unavailable", str(error))
        except Exception as error:
            log.exception("offloaded task failed: %s", task.get("kind"))
            reply, body = _refused("internal_error", type(error).__name__)
        sink.write(json.dumps({**reply, "size": len(body)}).encode() + b"\n" + body)
        sink.flush()


def _refused(code: str, detail: str) -> tuple[dict[str, Any], bytes]:
    return {"ok": False, "code": code, "detail": detail}, b""


def _read(source: IO[bytes], size: int) -> bytes:
    parts, got = [], 0
    while got < size:
        part = source.read(size - got)
        if not part:
            raise SystemExit(0)
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _run(service: GameService, computed: Computed, task: dict[str, Any], payload: bytes) -> bytes:
    kind = task["kind"]
    if kind == "verify":
        fetch = parent_fetcher(service) if task.get("fetch_parent") else None
        heads = task.get("expect_heads") or []
        return verify_task(payload, heads, task.get("record_size"), fetch)
    if kind == "summary":
        return summary_task(service, computed, task["game"])
    if kind == "record":
        record_task(service, computed, task["game"], task.get("viewer"))
        return b""
    raise ValueError(f"unknown task {kind!r}")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    main(sys.argv[1])
