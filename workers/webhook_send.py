"""One HTTP attempt of a webhook (issue 50): to the checked address, briefly, once.

``http.client`` rather than a client library: the connection must go to the
address the SSRF check approved (``Target.address``), not to whatever the
name resolves to a moment later, while the Host header and TLS (SNI and the
certificate) still name the host. Redirects are not followed (a 3xx is an
answer like any other), the whole attempt has a timeout, and at most 1 KB of
the answer is read.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any

from service.application.webhook_urls import Target

__all__ = ["Answer", "send"]

BODY_KEPT = 1024


@dataclass(frozen=True, slots=True)
class Answer:
    """The receiver's answer (``status`` None: no answer, ``error`` says why)."""

    status: int | None
    body: str = ""
    retry_after_s: float | None = None
    error: str | None = None


def send(target: Target, headers: dict[str, str], body: str, timeout_s: float) -> Answer:
    """POST ``body`` to ``target``; never raises for the network's or receiver's faults."""
    deadline = time.monotonic() + timeout_s
    connection = _connection(target, timeout_s)
    try:
        connection.request(
            "POST",
            target.path,
            body=body.encode(),
            headers=headers | {"content-type": "application/json", "user-agent": "risk-webhooks"},
        )
        response = connection.getresponse()
        kept = response.read(BODY_KEPT) if time.monotonic() < deadline else b""
        retry_after = _retry_after(response.getheader("retry-after"))
        return Answer(response.status, kept.decode("utf-8", "replace"), retry_after)
    except (OSError, http.client.HTTPException) as error:
        return Answer(None, error=f"{type(error).__name__}: {error}"[:255])
    finally:
        connection.close()


def _connection(target: Target, timeout_s: float) -> http.client.HTTPConnection:
    """A connection to ``target.host`` that opens its socket to ``target.address``."""
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        context = ssl.create_default_context()
        connection = http.client.HTTPSConnection(
            target.host, target.port, timeout=timeout_s, context=context
        )
    else:
        connection = http.client.HTTPConnection(target.host, target.port, timeout=timeout_s)

    def pinned(_address: Any, timeout: Any = None, source_address: Any = None) -> socket.socket:
        return socket.create_connection((target.address, target.port), timeout, source_address)

    connection._create_connection = pinned  # type: ignore[attr-defined]
    return connection


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (a number; an HTTP date is ignored)."""
    if value is None:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        return None
