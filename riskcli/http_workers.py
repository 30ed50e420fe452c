"""gunicorn worker classes for ``risk serve``: gevent by default, gthread on request.

Why gevent: a long-poll or an event stream waits for minutes and costs
nothing but its socket while it does, but a ``gthread`` worker gives each
one a thread of a fixed pool; forty idle streams took every thread and
``/healthz`` timed out. A gevent worker serves each connection in a
greenlet (kilobytes), and redis-py's blocking reads (``XREAD BLOCK``) yield
to the others once gevent has patched the socket module, which the worker
does before the app is imported (``riskcli.serve`` loads it after the fork).
The CPU-bound part of a command runs as before, one at a time per process
under the GIL, so commands keep their latency (``bench/streams.py``).

Both classes answer gunicorn's own errors (a request line over the limit:
414, too many or too large header fields: 431, a malformed request: 400)
as ``application/problem+json`` with the codes of ``service.http.problems``,
instead of gunicorn's HTML page: ``_problem_error`` replaces gunicorn's
writer of those answers in the worker process.
"""

from __future__ import annotations

import json
import warnings
from http import HTTPStatus
from typing import Any

from gunicorn import util  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker as _GeventBase  # type: ignore[import-untyped]
from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]

from service.http.problems import PROBLEM_JSON, http_code

__all__ = ["GeventWorker", "ThreadedWorker", "problem_bytes"]


def problem_bytes(status: int, detail: str) -> bytes:
    """A whole HTTP/1.1 answer with a problem body; the connection closes after it."""
    phrase = HTTPStatus(status).phrase
    code = http_code(status)
    body = json.dumps(
        {
            "type": f"/docs#problem-{code}",
            "title": phrase,
            "status": status,
            "detail": detail or phrase,
            "code": code,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {phrase}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def _problem_error(sock: Any, status: int, reason: str, message: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json (same signature)."""
    util.write_nonblock(sock, problem_bytes(status, message))


def _answer_errors_as_problems() -> None:
    util.write_error = _problem_error


class ThreadedWorker(ThreadWorker):  # type: ignore[misc]
    """gunicorn's gthread worker, answering its own errors as problems."""

    def init_process(self) -> None:
        _answer_errors_as_problems()
        super().init_process()


class GeventWorker(_GeventBase):  # type: ignore[misc]
    """gunicorn's gevent worker, answering its own errors as problems."""

    def init_process(self) -> None:
        _answer_errors_as_problems()
        super().init_process()

    def patch(self) -> None:
        """Patch as gunicorn does, without gevent's warning that ``ssl`` came first:
        gunicorn imports it before any worker forks, and ``risk serve`` speaks plain
        HTTP (TLS ends at the proxy in front)."""
        from gevent.monkey import MonkeyPatchWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MonkeyPatchWarning)
            super().patch()
