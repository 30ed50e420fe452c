"""CPU-heavy work in a helper process, so a request worker stays responsive (issue 36, item 1).

A gevent worker runs every connection on one thread: a second of CPU spent
verifying an uploaded record or summarising a long game is a second in
which ``/healthz`` and every game of that worker wait. So those run in a
helper (``service.application.offload_child``), started by each server process on first
use, and the request waits for it on a pipe, which yields to the other
connections. The helper runs one task at a time (the machine's other cores
serve the other processes); ``max_waiting`` requests may wait for it, and a
request beyond that is refused at once (``Busy``: 503 with Retry-After)
rather than queued for longer than a client waits. A task that runs past
``timeout`` seconds kills the helper (a new one starts for the next task).

The helper reads the game from Redis itself: a task is a few ids, a reply
a small document (a summary, a verdict) or nothing (a record, which the
helper keeps in Redis, ``service.application.computed``, for the request to stream).
When its parent goes away the helper reads end-of-file and exits.

Frames, both ways: one JSON line, then ``size`` bytes. A reply is
``{"ok": true, "size": n}`` or ``{"ok": false, "code": ..., "detail": ...}``.
"""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from typing import IO, Any

from service.settings import Settings

__all__ = ["Busy", "Offload", "Payload", "TaskFailed"]

_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Payload:
    """A task's input read from a file in chunks (an uploaded record: ``size`` bytes of
    ``source``), so the request's process never holds it whole."""

    source: IO[bytes]
    size: int


class Busy(Exception):
    """Too many requests already wait for the helper."""


class TaskFailed(Exception):
    """The helper refused the task (``code``: ``game_not_found``, ...) or died."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass
class _Helper:
    process: subprocess.Popen[bytes]
    owner: int  # the pid that started it: a forked server process starts its own


class Offload:
    """One helper process per server process; see the module docstring."""

    def __init__(self, settings: Settings, *, max_waiting: int = 8, timeout: float = 60) -> None:
        self._config = json.dumps(
            {
                "redis_url": settings.redis_url,
                "redis_cluster": settings.redis_cluster,
                "key_prefix": settings.key_prefix,
                "database_url": settings.database_url,
                "offload_nice": settings.offload_nice,
            }
        )
        self.max_waiting = max_waiting
        self.timeout = timeout
        self._lock = threading.Lock()  # gevent's own lock once patched: waits cooperatively
        self._waiting = 0
        # In a list the finalizer holds too: an Offload dropped without close (an app
        # of a test) still ends its helper, and no pipe is left for the collector.
        self._held: list[_Helper] = []
        weakref.finalize(self, _end_all, self._held)

    def run(self, task: dict[str, Any], payload: bytes | Payload = b"") -> bytes:
        """The helper's answer to ``task``; Busy, TaskFailed."""
        if self._waiting >= self.max_waiting:
            raise Busy(f"{self._waiting} requests already wait for the helper process")
        self._waiting += 1
        try:
            with self._lock:
                return self._exchange(task, payload)
        finally:
            self._waiting -= 1

    def close(self) -> None:
        _end_all(self._held)

    def _exchange(self, task: dict[str, Any], payload: bytes | Payload) -> bytes:
        process = self._process()
        assert process.stdin is not None and process.stdout is not None
        deadline = time.monotonic() + self.timeout
        if isinstance(payload, bytes):
            payload = Payload(io.BytesIO(payload), len(payload))
        try:
            header = json.dumps({**task, "size": payload.size}).encode() + b"\n"
            _write(process.stdin.fileno(), header, deadline)
            _copy(payload, process.stdin.fileno(), deadline)
            line, rest = _read_line(process.stdout.fileno(), deadline)
            reply = json.loads(line)
            size = int(reply.get("size", 0))
            body = _read_exactly(process.stdout.fileno(), rest, size, deadline)
        except (OSError, ValueError, EOFError) as error:
            self.close()  # a helper that died or hangs is replaced by the next task
            raise TaskFailed("helper_failed", f"the helper process failed: {error!r}") from None
        if not reply.get("ok"):
            raise TaskFailed(str(reply.get("code")), str(reply.get("detail")))
        return body

    def _process(self) -> subprocess.Popen[bytes]:
        helper = self._held[0] if self._held else None
        if helper is None or helper.owner != os.getpid() or helper.process.poll() is not None:
            _end_all(self._held)
            process = subprocess.Popen(
                [sys.executable, "-m", "service.application.offload_child", self._config],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                close_fds=True,
            )
            assert process.stdin is not None and process.stdout is not None
            os.set_blocking(process.stdin.fileno(), False)
            os.set_blocking(process.stdout.fileno(), False)
            helper = _Helper(process, os.getpid())
            self._held.append(helper)
        return helper.process


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the helper took longer than its timeout")
    return left


def _write(fd: int, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        select.select([], [fd], [], _left(deadline))
        try:
            view = view[os.write(fd, view[:_CHUNK]) :]
        except BlockingIOError:
            continue


def _copy(payload: Payload, fd: int, deadline: float) -> None:
    """``payload.size`` bytes of its source to the helper, a chunk at a time."""
    left = payload.size
    while left > 0:
        chunk = payload.source.read(min(_CHUNK, left))
        if not chunk:
            raise EOFError(f"the payload ended {left} bytes short of its size")
        _write(fd, chunk, deadline)
        left -= len(chunk)


def _read_some(fd: int, size: int, deadline: float) -> bytes:
    while True:
        select.select([fd], [], [], _left(deadline))
        try:
            data = os.read(fd, size)
        except BlockingIOError:
            continue
        if not data:
            raise EOFError("the helper process exited")
        return data


def _read_line(fd: int, deadline: float) -> tuple[bytes, bytes]:
    """The reply's line, and what came after it in the same reads."""
    data = b""
    while b"\n" not in data:
        data += _read_some(fd, _CHUNK, deadline)
    line, _, rest = data.partition(b"\n")
    return line, rest


def _read_exactly(fd: int, start: bytes, size: int, deadline: float) -> bytes:
    parts = [start]
    got = len(start)
    while got < size:
        part = _read_some(fd, min(size - got, 1024 * 1024), deadline)
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _end_all(held: list[_Helper]) -> None:
    """End the helpers this process started (a forked child leaves its parent's alone)."""
    while held:
        helper = held.pop()
        process = helper.process
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        if helper.owner == os.getpid():
            process.kill()
            process.wait(5)
        else:
            process.returncode = 0  # not ours to wait for: silence its collector's warning
