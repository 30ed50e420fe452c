"""Sending webhook deliveries (issue 50): the job of the ``webhooks`` queue.

Game workers never take this queue (``workers.queues``), so a slow receiver
costs a webhook worker at most its timeout and never a bot turn or a clock.
A delivery is sent at least once, with the same ``webhook-id`` every time:

* a webhook worker's senders (``RISK_WEBHOOK_SENDERS`` threads, 8) send
  deliveries side by side, so a slow receiver holds one sender, not the
  queue. Its feed hands the deliveries it makes to them directly while one is
  free (``hand_off``: RQ's bookkeeping, a dozen round trips a job, would be
  most of a message's latency on a busy machine); the rest, and the sweep's
  retries, go on the queue a job per batch (``deliver_many``), for whichever
  webhook worker is free;
* each send takes the delivery's lease in the database first (``claim``), so
  two copies of a job never send one attempt twice at the same moment;
* 2xx: delivered. 410: the receiver asked to stop; the endpoint is disabled.
  Anything else (429, 5xx, no answer, a refused address): tried again after
  the schedule's next wait (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h; longer
  if the receiver's Retry-After asks), then given up;
* an endpoint failing for ``disable_after_s`` (5 days) is disabled, and says so;
* a worker killed mid-send leaves a lease that runs out after the timeout;
  the sweep (``workers.webhook_feed``) then sends the delivery again.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from service.application.webhook_signing import signed_headers
from service.application.webhook_urls import UnsafeWebhookUrl
from service.application.webhooks import Webhooks, WebhookSettings
from service.settings import Settings
from service.store.database import create_engine
from service.store.webhooks import DeliveryRow, EndpointRow, Outcome, WebhookStore
from workers.webhook_send import Answer, send

__all__ = [
    "DELIVER",
    "DELIVER_MANY",
    "Courier",
    "deliver",
    "deliver_many",
    "finish_sends",
    "hand_off",
]

log = logging.getLogger(__name__)

DELIVER = "workers.webhooks.deliver"
DELIVER_MANY = "workers.webhooks.deliver_many"
LEASE_MARGIN_S = 5.0  # beyond the timeout: how long a sender holds a delivery
MAX_RETRY_AFTER_S = 24 * 3600.0
_couriers: dict[str, Courier] = {}
_senders: list[Senders] = []


def deliver(delivery_id: str) -> str:
    """The RQ job: one attempt of ``delivery_id`` if it is due (a copy of the job that
    finds it sent or held does nothing)."""
    return courier().deliver(delivery_id)


def deliver_many(delivery_ids: list[str]) -> str:
    """The RQ job of a batch (the feed's read, the sweep's due deliveries): each is
    handed to the process's senders, which send side by side; the job waits only
    for a free sender, never for a receiver, so a slow receiver holds one sender
    for at most its timeout and the next jobs go on. A worker that dies with sends
    in hand leaves their leases to run out; the sweep sends them again."""
    pool = senders()
    for delivery_id in delivery_ids:
        pool.submit(courier(), delivery_id)
    return f"{len(delivery_ids)} handed to the senders"


def hand_off(delivery_id: str) -> bool:
    """Give the delivery to this process's senders if one is free (the feed's fresh
    deliveries: no queue between them and the receiver); False when all are busy."""
    return senders().try_submit(courier(), delivery_id)


def senders() -> Senders:
    if not _senders:
        _senders.append(Senders(int(os.environ.get("RISK_WEBHOOK_SENDERS", "8"))))
    return _senders[0]


def finish_sends(timeout_s: float) -> None:
    """Wait (at most ``timeout_s``) for the sends in hand: a worker stopping."""
    if _senders:
        _senders[0].finish(timeout_s)


class Senders:
    """``size`` threads sending deliveries; ``submit`` waits while all are busy and
    ``size`` more wait (so a backlog stays in the queue, where the sweep sees it)."""

    def __init__(self, size: int) -> None:
        self._pool = ThreadPoolExecutor(max(1, size), thread_name_prefix="webhook-send")
        self._slots = threading.BoundedSemaphore(2 * max(1, size))
        self._idle = threading.Condition()
        self._busy = 0

    def submit(self, courier: Courier, delivery_id: str) -> None:
        self._slots.acquire()
        self._start(courier, delivery_id)

    def try_submit(self, courier: Courier, delivery_id: str) -> bool:
        """``submit`` unless that would wait."""
        if not self._slots.acquire(blocking=False):
            return False
        self._start(courier, delivery_id)
        return True

    def _start(self, courier: Courier, delivery_id: str) -> None:
        with self._idle:
            self._busy += 1
        self._pool.submit(self._send, courier, delivery_id)

    def _send(self, courier: Courier, delivery_id: str) -> None:
        try:
            courier.deliver(delivery_id)
        except Exception:  # its lease runs out and the sweep sends it again
            log.exception("webhook delivery %s failed", delivery_id)
        finally:
            self._slots.release()
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def finish(self, timeout_s: float) -> None:
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, timeout_s)


def courier() -> Courier:
    """The process's courier, on the database of the settings."""
    url = Settings.from_env().database_url
    if url not in _couriers:
        settings = WebhookSettings.from_env()
        _couriers[url] = Courier(Webhooks(WebhookStore(create_engine(url)), settings))
    return _couriers[url]


class Courier:
    """Sends deliveries and writes what came of them."""

    def __init__(
        self, webhooks: Webhooks, now_ms: Callable[[], int] = lambda: int(time.time() * 1000)
    ) -> None:
        self.webhooks = webhooks
        self.store = webhooks.store
        self.settings = webhooks.settings
        self._now_ms = now_ms

    def deliver(self, delivery_id: str) -> str:
        """One attempt; what came of it (``delivered``, ``retry``, ``failed``, ``gone``,
        or ``skipped`` when it was not due or another sender holds it)."""
        now = self._now_ms()
        lease = now + round((self.settings.timeout_s + LEASE_MARGIN_S) * 1000)
        if not self.store.claim(delivery_id, now, lease):
            return "skipped"
        delivery = self.store.delivery(delivery_id)
        assert delivery is not None  # just claimed
        endpoint = self.store.endpoint(delivery.endpoint_id)
        if endpoint is None or endpoint.disabled_ms is not None:
            self.store.record(
                delivery_id, Outcome(now, None, "endpoint disabled", None, False, None)
            )
            return "failed"
        return self._outcome(delivery, endpoint, self._attempt(delivery, endpoint, now))

    def _attempt(self, delivery: DeliveryRow, endpoint: EndpointRow, now: int) -> Answer:
        try:
            target = self.webhooks.check(endpoint.url)  # again: DNS may have changed
        except UnsafeWebhookUrl as error:
            return Answer(None, error=f"refused: {error}")
        headers = signed_headers(delivery.id, now // 1000, delivery.payload, endpoint.secrets(now))
        return send(target, headers, delivery.payload, self.settings.timeout_s)

    def _outcome(self, delivery: DeliveryRow, endpoint: EndpointRow, answer: Answer) -> str:
        at = self._now_ms()
        status = answer.status
        if status is not None and 200 <= status < 300:
            self.store.record(delivery.id, Outcome(at, status, None, answer.body, True, None))
            if endpoint.failing_since_ms is not None:
                self.store.mark_failing(endpoint.id, None)
            return "delivered"
        if status == 410:
            self.store.record(delivery.id, Outcome(at, status, None, answer.body, False, None))
            self.store.disable(endpoint.id, at, "the receiver answered 410 Gone")
            return "gone"
        retry_at = self._retry_at(delivery.attempts + 1, answer, at)
        outcome = Outcome(at, status, answer.error, answer.body, False, retry_at)
        self.store.record(delivery.id, outcome)
        self._failing(endpoint, at, answer)
        return "failed" if retry_at is None else "retry"

    def _retry_at(self, attempts: int, answer: Answer, at: int) -> int | None:
        """When to try again after ``attempts`` failed ones (None: give up)."""
        delay = self.settings.retry_delay_ms(attempts)
        if delay is None:
            return None
        if answer.retry_after_s is not None:
            delay = max(delay, round(min(answer.retry_after_s, MAX_RETRY_AFTER_S) * 1000))
        return at + delay

    def _failing(self, endpoint: EndpointRow, at: int, answer: Answer) -> None:
        """Note the endpoint failing; disable it once it has failed for days."""
        since = endpoint.failing_since_ms
        if since is None:
            self.store.mark_failing(endpoint.id, at)
            return
        if at - since >= self.settings.disable_after_s * 1000:
            began = datetime.fromtimestamp(since / 1000, UTC).isoformat(timespec="seconds")
            last = f"HTTP {answer.status}" if answer.status else (answer.error or "no answer")
            reason = f"failing since {began} (last: {last})"
            self.store.disable(endpoint.id, at, reason)
