"""A tiny JSON-over-HTTP client (standard library) for our own tools.

``risk dev``, the end-to-end tests and the benchmarks talk to a running
server with it. (``examples/http_bot.py`` has its own copy on purpose: it
is the template a bot author takes away, so it imports nothing of ours.)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def call(
    method: str, url: str, body: Any = None, token: str | None = None, timeout: float = 40
) -> tuple[int, Any]:
    """(status, decoded JSON body); HTTP errors are returned, not raised."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
