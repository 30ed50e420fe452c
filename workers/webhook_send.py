"""One HTTP attempt of a webhook (issue 50): to the checked address, briefly, once.

``http.client`` rather than a client library: the connection must go to the
address the SSRF check approved (``Target.address``), not to whatever the
name resolves to a moment later, while the Host header and TLS (SNI and the
certificate) still name the host. Redirects are not followed (a 3xx is an
answer like any other), the whole attempt has a timeout (a watchdog shuts
the socket when it is up, however slowly the receiver trickles its answer),
and at most 1 KB of the answer is read.
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from datetime import UTC
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
    """POST ``body`` to ``target``; never raises for the network's or receiver's faults.

    ``timeout_s`` bounds the whole attempt, not each read: a receiver that sends
    its answer a byte at a time has its connection shut when the time is up."""
    deadline = time.monotonic() + timeout_s
    connection = _connection(target, deadline)
    watchdog = _Watchdog(connection, timeout_s)
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
        if watchdog.fired:  # the answer was cut short: no answer in time
            raise TimeoutError("timed out")
        return Answer(response.status, kept.decode("utf-8", "replace"), retry_after)
    except (OSError, http.client.HTTPException) as error:
        if watchdog.fired:
            return Answer(None, error=f"timed out after {timeout_s:g} s (the whole attempt)")
        return Answer(None, error=f"{type(error).__name__}: {error}"[:255])
    finally:
        watchdog.cancel()
        connection.close()


class _Watchdog:
    """Shuts the connection's socket once ``timeout_s`` passed (a blocked read then
    returns at once)."""

    def __init__(self, connection: http.client.HTTPConnection, timeout_s: float) -> None:
        self.connection = connection
        self.fired = False
        self._timer = threading.Timer(timeout_s, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


def _connection(target: Target, deadline: float) -> http.client.HTTPConnection:
    """A connection to ``target.host`` that opens its socket to ``target.address``."""
    timeout_s = max(0.001, deadline - time.monotonic())
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        context = ssl.create_default_context()
        connection = http.client.HTTPSConnection(
            target.host, target.port, timeout=timeout_s, context=context
        )
    else:
        connection = http.client.HTTPConnection(target.host, target.port, timeout=timeout_s)

    def pinned(_address: Any, timeout: Any = None, source_address: Any = None) -> socket.socket:
        opened = socket.create_connection((target.address, target.port), timeout, source_address)
        if time.monotonic() >= deadline:  # the connection took the whole time
            opened.close()
            raise TimeoutError("timed out while connecting")
        return opened

    connection._create_connection = pinned  # type: ignore[attr-defined]
    return connection


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds from now: a number of seconds or an HTTP date (RFC 9110,
    10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is in GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - time.time())
