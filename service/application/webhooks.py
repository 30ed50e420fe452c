"""Webhooks (issue 50): endpoints an account registers, and the deliveries made for them.

An endpoint is a URL, the event types it takes, and a signing secret
(``whsec_`` and base64, shown once). Rotating the secret keeps the previous
one signing for 24 hours, so a receiver can switch without losing a message.
Events become deliveries here (``emit``): one row per subscribed endpoint,
whose id is the ``webhook-id`` every attempt sends and is derived from what
happened, so the same event found twice is one delivery. The workers send
them (``workers.webhooks``); this module never talks to Redis or RQ.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from service.application.webhook_events import EVENT_TYPES, WebhookEvent, payload
from service.application.webhook_urls import Resolver, Target, check_url, resolve
from service.store.webhooks import DeliveryRow, EndpointRow, WebhookStore

__all__ = [
    "DISABLED_BY_OWNER",
    "ROTATION_MS",
    "EndpointChanges",
    "WebhookNotFound",
    "WebhookSettings",
    "Webhooks",
    "delivery_id",
    "new_secret",
]

ROTATION_MS = 24 * 3600 * 1000  # how long the previous secret still signs
MAX_ENDPOINTS = 20  # per account
# The retry schedule of the Standard Webhooks guidance: after 5 s, 5 min, 30 min,
# 2 h, 5 h, 10 h and 24 h; then the delivery has failed.
RETRY_SECONDS = (5, 300, 1800, 7200, 18000, 36000, 86400)


DISABLED_BY_OWNER = "disabled by its owner"


@dataclass(frozen=True, slots=True)
class EndpointChanges:
    """What ``PATCH /v1/webhooks/{id}`` asks to change (None: unchanged)."""

    url: str | None = None
    events: Sequence[str] | None = None
    description: str | None = None
    clear_description: bool = False  # the description becomes null
    enabled: bool | None = None


class WebhookNotFound(LookupError):
    """No such endpoint (or delivery) of the caller's account."""


class TooManyEndpoints(ValueError):
    """The account has ``MAX_ENDPOINTS`` endpoints already."""


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    """``RISK_WEBHOOK_*`` from the environment.

    ``retry_scale`` multiplies the retry schedule (tests run it in
    milliseconds); ``disable_after_s`` is how long an endpoint may fail
    before it is disabled (5 days).
    """

    allow_private: bool = False
    timeout_s: float = 10.0
    retry_scale: float = 1.0
    disable_after_s: float = 5 * 24 * 3600.0
    public_url: str = ""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> WebhookSettings:
        env = dict(os.environ) if env is None else env
        return cls(
            allow_private=env.get("RISK_WEBHOOK_ALLOW_PRIVATE", "0") == "1",
            timeout_s=float(env.get("RISK_WEBHOOK_TIMEOUT", "10")),
            retry_scale=float(env.get("RISK_WEBHOOK_RETRY_SCALE", "1")),
            disable_after_s=float(env.get("RISK_WEBHOOK_DISABLE_AFTER", str(5 * 24 * 3600))),
            public_url=env.get("RISK_PUBLIC_URL", ""),
        )

    def retry_delay_ms(self, attempts: int) -> int | None:
        """The wait before attempt ``attempts + 1``; None when the schedule is spent."""
        if attempts < 1 or attempts > len(RETRY_SECONDS):
            return None
        return round(RETRY_SECONDS[attempts - 1] * 1000 * self.retry_scale)


def new_secret() -> str:
    """``whsec_`` and 32 random bytes in base64, as Standard Webhooks writes secrets."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def delivery_id(endpoint_id: str, key: str) -> str:
    """The ``webhook-id`` of ``key``'s event at an endpoint: the same every time."""
    digest = hashlib.sha256(f"{endpoint_id}\n{key}".encode()).hexdigest()[:32]
    return f"msg_{digest}"


class Webhooks:
    """Registering endpoints and turning events into deliveries."""

    def __init__(
        self,
        store: WebhookStore,
        settings: WebhookSettings,
        *,
        resolver: Resolver = resolve,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        registered: Callable[[], None] = lambda: None,
    ) -> None:
        """``registered`` is called after each new endpoint: the feed's cue to reload
        the accounts with endpoints (``service.store.webhook_version``)."""
        self.store = store
        self.settings = settings
        self._resolver = resolver
        self._now_ms = now_ms
        self._registered = registered

    def check(self, url: str) -> Target:
        """The URL's target; ``UnsafeWebhookUrl`` if webhooks may not go there."""
        return check_url(url, allow_private=self.settings.allow_private, resolver=self._resolver)

    def register(
        self, account_id: str, url: str, events: Sequence[str], description: str | None
    ) -> tuple[EndpointRow, str]:
        """A new endpoint and its secret (shown once)."""
        self.check(url)
        if len(self.store.endpoints_of(account_id)) >= MAX_ENDPOINTS:
            raise TooManyEndpoints(f"an account has at most {MAX_ENDPOINTS} webhooks")
        secret = new_secret()
        wanted = tuple(t for t in EVENT_TYPES if t in set(events))
        row = EndpointRow(
            id="wh_" + secrets.token_hex(12),
            account_id=account_id,
            url=url,
            events=wanted,
            description=description,
            secret=secret,
            created_ms=self._now_ms(),
        )
        self.store.add_endpoint(row)
        self._registered()
        return row, secret

    def endpoints(self, account_id: str) -> list[EndpointRow]:
        return self.store.endpoints_of(account_id)

    def owned(self, account_id: str, endpoint_id: str) -> EndpointRow:
        found = self.store.endpoint(endpoint_id)
        if found is None or found.account_id != account_id:
            raise WebhookNotFound(endpoint_id)
        return found

    def delete(self, account_id: str, endpoint_id: str) -> None:
        self.owned(account_id, endpoint_id)
        self.store.delete_endpoint(endpoint_id)

    def update(
        self,
        account_id: str,
        endpoint_id: str,
        changes: EndpointChanges,
    ) -> EndpointRow:
        """Change an endpoint's URL, events or description, or disable or enable it.

        Enabling one that was disabled (by a 410, by failing for days, or by its
        owner) clears its failure too: it starts again as if new, and the feed
        learns of it at once (as of a new endpoint). Deliveries given up while it
        was disabled stay given up; ``redeliver`` sends one again."""
        endpoint = self.owned(account_id, endpoint_id)
        if changes.url is not None:
            self.check(changes.url)
        events = None
        if changes.events is not None:
            events = tuple(t for t in EVENT_TYPES if t in set(changes.events))
        self.store.update(
            endpoint_id,
            url=changes.url,
            events=events,
            description=changes.description,
            clear_description=changes.clear_description,
        )
        if changes.enabled is False and endpoint.disabled_ms is None:
            self.store.disable(endpoint_id, self._now_ms(), DISABLED_BY_OWNER)
        if changes.enabled is True and endpoint.disabled_ms is not None:
            self.store.enable(endpoint_id)
            self._registered()  # the feed reads the accounts with endpoints again
        return self.owned(account_id, endpoint_id)

    def rotate(self, account_id: str, endpoint_id: str) -> tuple[EndpointRow, str, int]:
        """A new secret; the current one keeps signing for 24 h: (endpoint, secret,
        when the previous one stops, unix ms)."""
        endpoint = self.owned(account_id, endpoint_id)
        secret = new_secret()
        expires_ms = self._now_ms() + ROTATION_MS
        self.store.rotate(endpoint_id, secret, endpoint.secret, expires_ms)
        return self.owned(account_id, endpoint_id), secret, expires_ms

    def deliveries(self, account_id: str, endpoint_id: str, limit: int) -> list[DeliveryRow]:
        self.owned(account_id, endpoint_id)
        return self.store.deliveries_of(endpoint_id, limit)

    def redeliver(self, account_id: str, endpoint_id: str, delivery: str) -> DeliveryRow:
        """Send ``delivery`` again (same id), whatever became of it; the workers' sweep
        takes it within a second."""
        self.owned(account_id, endpoint_id)
        found = self.store.delivery(delivery)
        if found is None or found.endpoint_id != endpoint_id:
            raise WebhookNotFound(delivery)
        self.store.redeliver(delivery, self._now_ms())
        again = self.store.delivery(delivery)
        assert again is not None
        return again

    def emit(self, events: Iterable[WebhookEvent]) -> list[tuple[str, int]]:
        """Deliveries for the endpoints subscribed to ``events``: the new ones' ids, and
        when they are due (now). One query for the endpoints and one transaction for
        the deliveries, however many events."""
        events = list(events)
        if not events:
            return []
        now = self._now_ms()
        endpoints: dict[str, list[EndpointRow]] = {}
        for endpoint in self.store.subscribed({e.account_id for e in events}):
            endpoints.setdefault(endpoint.account_id, []).append(endpoint)
        rows = [
            DeliveryRow(
                id=delivery_id(endpoint.id, event.key),
                endpoint_id=endpoint.id,
                event_type=event.type,
                payload=payload(event, now),
                created_ms=now,
            )
            for event in events
            for endpoint in endpoints.get(event.account_id, [])
            if event.type in endpoint.events
        ]
        return [(made, now) for made in self.store.add_deliveries(rows)]
