"""Where a webhook may point (issue 50): the SSRF check.

A URL is refused unless it is http(s) on a standard port and every address
its host resolves to is a public one: loopback, private, link-local (the
cloud metadata address 169.254.169.254 among them), multicast, reserved and
unspecified addresses are refused. The check runs when an endpoint is
registered and again before each attempt, and the sender connects to the
address this check returned (``Target.address``), so a name that resolved to
a public address at registration and to 127.0.0.1 later (DNS rebinding)
reaches nothing private. ``allow_private`` (``RISK_WEBHOOK_ALLOW_PRIVATE=1``:
tests, a private deployment) lifts both the address and the port rule.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["Resolver", "Target", "UnsafeWebhookUrl", "check_url"]

DEFAULT_PORTS = {"http": 80, "https": 443}
Resolver = Callable[[str, int], list[str]]


class UnsafeWebhookUrl(ValueError):
    """The URL may not receive webhooks; the message says why."""


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: connect to ``address``, name ``host`` (Host header, TLS SNI)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_url(url: str, *, allow_private: bool = False, resolver: Resolver = resolve) -> Target:
    """The URL's target if webhooks may go there; ``UnsafeWebhookUrl`` if not."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UnsafeWebhookUrl("only http and https URLs receive webhooks")
    if parts.username is not None or parts.password is not None:
        raise UnsafeWebhookUrl("a webhook URL may not carry credentials")
    host = parts.hostname
    if not host:
        raise UnsafeWebhookUrl("the URL names no host")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise UnsafeWebhookUrl("the URL's port is not a number from 1 to 65535") from None
    if port not in DEFAULT_PORTS.values() and not allow_private:
        raise UnsafeWebhookUrl(f"port {port} is not a standard port (80, 443)")
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError):
        raise UnsafeWebhookUrl(f"the host {host!r} does not resolve") from None
    if not addresses:
        raise UnsafeWebhookUrl(f"the host {host!r} does not resolve")
    if not allow_private:
        for address in addresses:
            if not _public(address):
                raise UnsafeWebhookUrl(f"the host {host!r} resolves to a non-public address")
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(scheme, host, port, path, addresses[0])


def _public(address: str) -> bool:
    """A globally routable unicast address (an IPv4-mapped IPv6 one judged as IPv4)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    refused = (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )
    return ip.is_global and not refused
