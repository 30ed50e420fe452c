"""Request bodies read whole, under a size and a time limit, before Flask sees them.

Two ways a body used to slip past the limit: a chunked body has no
``Content-Length`` to check, and werkzeug read it only up to the limit, so
a 200 KB chunked ``POST`` was cut at 64 KB and, where that prefix parsed,
accepted; and a client that sends its body slowly (a byte now and then)
held a server worker for as long as it liked. This WSGI middleware reads
every body itself, at most ``limit + 1`` bytes, with one deadline for the
whole body (the socket's timeout is set to the time left before each
read), and answers before the app runs:

* 413 ``body_too_large`` for a declared length or a body (chunked or not)
  over the limit of the path (``limit_for``);
* 408 ``body_timeout`` when the body is not in by the deadline.

The app then gets the body as a file with its exact length, so nothing
below needs to care how it was sent. The file keeps up to ``SPOOL_BYTES``
in memory and the rest on disk: a 16 MB record to verify costs a server
process 1 MB however many such requests wait (the helper that verifies it
reads it from the file in chunks, ``service.application.offload``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable
from typing import IO, Any

from werkzeug.wsgi import ClosingIterator

from service.http.problems import problem_response

__all__ = ["SPOOLED", "BodyGuard"]

_CHUNK = 64 * 1024
SPOOLED = "risk.spooled_body"  # the environ key of the body's file
SPOOL_BYTES = 1024 * 1024  # a body's part kept in memory; the rest goes to a temporary file
Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]


class _TooLarge(Exception):
    pass


class BodyGuard:
    """Wraps a WSGI app; see the module docstring."""

    def __init__(self, app: WsgiApp, limit_for: Callable[[str], int], seconds: float) -> None:
        self._app = app
        self._limit_for = limit_for
        self._seconds = seconds

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        declared = _declared_length(environ)
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if not chunked and not declared:
            return self._app(environ, start_response)
        limit = self._limit_for(environ.get("PATH_INFO", ""))
        try:
            if declared is not None and declared > limit:
                raise _TooLarge
            body, size = self._read(environ, limit)
        except _TooLarge:
            return _too_large(limit)(environ, start_response)
        except TimeoutError:
            detail = f"the request body did not arrive within {self._seconds:g} s"
            return problem_response(408, "body_timeout", detail)(environ, start_response)
        environ["wsgi.input"] = body
        environ["CONTENT_LENGTH"] = str(size)
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = True
        environ[SPOOLED] = body  # closed by the app's teardown (service.http.app), or here
        return ClosingIterator(self._app(environ, start_response), body.close)

    def _read(self, environ: Environ, limit: int) -> tuple[IO[bytes], int]:
        """The whole body in a spooled file (at its start) and its size, or _TooLarge past
        ``limit`` bytes, or TimeoutError past the deadline."""
        stream = environ["wsgi.input"]
        sock = environ.get("gunicorn.socket")
        before = sock.gettimeout() if sock is not None else None
        deadline = time.monotonic() + self._seconds
        body: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115
        size = 0
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                if sock is not None:
                    sock.settimeout(left)
                part = stream.read(min(_CHUNK, limit + 1 - size))
                if not part:
                    body.seek(0)
                    return body, size
                size += len(part)
                if size > limit:
                    raise _TooLarge
                body.write(part)
        except BaseException:
            body.close()
            raise
        finally:
            if sock is not None:
                sock.settimeout(before)


def _declared_length(environ: Environ) -> int | None:
    text = environ.get("CONTENT_LENGTH") or ""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def _too_large(limit: int) -> Any:
    return problem_response(413, "body_too_large", f"the body is larger than {limit} bytes")
