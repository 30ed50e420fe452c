"""Request bodies read under a limit into a spooled file (service/http/bodies.py, issue 36)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from service.http.bodies import SPOOL_BYTES, SPOOLED, BodyGuard


def run(body: bytes, limit: int) -> tuple[str, dict[str, Any], bytes]:
    """The guard around an app that reads the whole body; (status, environ seen, body read)."""
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        seen.update(environ)
        read = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"]))
        start_response("200 OK", [])
        return [read]

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
    }
    status: list[str] = []
    answer = BodyGuard(app, lambda _: limit, seconds=10)(environ, lambda s, h: status.append(s))
    read = b"".join(answer)
    answer.close()  # type: ignore[attr-defined]  (a WSGI server closes what it iterated)
    return status[0], seen, read


def test_a_body_past_the_spool_reaches_the_app_whole_and_its_file_is_closed() -> None:
    """A record to verify may be 16 MB: past ``SPOOL_BYTES`` it waits on disk, not in the
    server's memory; the app reads it whole, and the file goes with the response."""
    body = bytes(range(256)) * (3 * SPOOL_BYTES // 256 + 7)
    status, seen, read = run(body, limit=4 * SPOOL_BYTES)
    assert status.startswith("200") and read == body
    assert seen[SPOOLED].closed


def test_a_body_over_the_limit_is_a_413_and_the_app_never_runs() -> None:
    status, seen, _ = run(b"x" * 2000, limit=1000)
    assert status.startswith("413") and seen == {}
