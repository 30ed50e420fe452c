"""Issue 50, delivery over time: retries after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
and 24 h with the same `webhook-id`; 429 and 5xx wait as long as Retry-After asks (in
seconds or as an HTTP date); the whole attempt times out after 10 s however slowly a
receiver answers; an endpoint failing for days is disabled and says so, and comes back
when enabled. The clock is freezegun's; the receiver and the database are real."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from freezegun import freeze_time
from sqlalchemy.engine import Engine
from standardwebhooks.webhooks import Webhook

from service.application.webhook_events import GAME_FINISHED, WebhookEvent
from service.application.webhooks import EndpointChanges, Webhooks, WebhookSettings
from service.store.accounts import AccountRow, AccountStore
from service.store.database import create_engine
from service.store.webhooks import WebhookStore
from tests.webhook_receiver import receiver
from workers.webhooks import Courier

REAL = WebhookSettings(allow_private=True)  # the real schedule, timeout and 5 days
SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 86400]
START = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def engine(sqlite_url: str) -> Iterator[Engine]:
    engine = create_engine(sqlite_url)
    yield engine
    engine.dispose()


@pytest.fixture
def account(engine: Engine) -> str:
    account_id = uuid.uuid4().hex[:16]
    row = AccountRow(account_id, f"ada{account_id[:6]}", "human", None, int(time.time() * 1000))
    AccountStore(engine).create(row)
    return account_id


def finished(account: str, game: str = "g1") -> WebhookEvent:
    return WebhookEvent(GAME_FINISHED, account, f"{game}:finished", {"game_id": game})


def now_ms() -> int:
    return int(time.time() * 1000)


def test_retries_follow_the_schedule_with_the_same_webhook_id(engine: Engine, account: str) -> None:
    """A receiver that always answers 500: eight attempts in all, each one due exactly
    the schedule's wait after the one before (not earlier: the sweep does not find it,
    a copy of the job skips it), each signed afresh for its own time, every one the
    same message; then the delivery has failed."""
    service = Webhooks(WebhookStore(engine), REAL)
    courier = Courier(service)
    with receiver((500, {}, 0.0)) as hook, freeze_time(START) as clock:
        _, secret = service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert courier.deliver(delivery) == "retry"
        for attempt, wait_s in enumerate(SCHEDULE_S, start=2):
            row = service.store.delivery(delivery)
            assert row is not None and row.last_attempt_ms is not None
            assert row.next_attempt_ms == row.last_attempt_ms + wait_s * 1000
            clock.tick(timedelta(seconds=wait_s - 1))
            assert delivery not in dict(service.store.due(now_ms()))
            assert courier.deliver(delivery) == "skipped"
            clock.tick(timedelta(seconds=1))
            assert delivery in dict(service.store.due(now_ms()))  # the sweep sends it now
            expected = "failed" if attempt == len(SCHEDULE_S) + 1 else "retry"
            assert courier.deliver(delivery) == expected
            got = hook.got[-1]
            assert int(got.headers["webhook-timestamp"]) == now_ms() // 1000
            Webhook(secret).verify(got.body, got.headers)  # signed for this attempt's time
        row = service.store.delivery(delivery)
    assert row is not None and (row.status, row.attempts, row.next_attempt_ms) == (
        "failed",
        8,
        None,
    )
    assert len(hook.got) == 8
    assert {g.headers["webhook-id"] for g in hook.got} == {delivery}
    assert {g.body for g in hook.got} == {hook.got[0].body}


@pytest.mark.parametrize(
    ("status", "asked_s", "waited_s"),
    [
        (429, "120", 120),  # longer than the schedule's 5 s: as asked
        (503, "3600", 3600),
        (500, "1", 5),  # shorter than the schedule: the schedule's
        (503, "http-date", 7200),  # an HTTP date two hours ahead
        (503, "soon", 5),  # unreadable: the schedule's
    ],
)
def test_429_and_5xx_wait_as_long_as_retry_after_asks(
    engine: Engine, account: str, status: int, asked_s: str, waited_s: int
) -> None:
    service = Webhooks(WebhookStore(engine), REAL)
    with freeze_time(START):
        asked = format_datetime(START + timedelta(hours=2), usegmt=True)
        header = {"Retry-After": asked if asked_s == "http-date" else asked_s}
        with receiver((status, header, 0.0)) as hook:
            service.register(account, hook.url, [GAME_FINISHED], None)
            [(delivery, _)] = service.emit([finished(account)])
            assert Courier(service).deliver(delivery) == "retry"
        row = service.store.delivery(delivery)
    assert row is not None and row.last_status_code == status
    assert row.next_attempt_ms == int(START.timestamp() * 1000) + waited_s * 1000


def test_the_timeout_is_10_s_by_default_and_bounds_the_whole_attempt(
    engine: Engine, account: str
) -> None:
    """A receiver that answers a header line every 0.2 s never lets a read wait
    long, but the attempt still ends at its timeout (1 s here; 10 s by default)."""
    assert WebhookSettings.from_env({}).timeout_s == 10.0
    with trickling_receiver(every_s=0.2, lines=50) as url:
        service = Webhooks(WebhookStore(engine), replace(REAL, timeout_s=1.0))
        service.register(account, url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        began = time.monotonic()
        assert Courier(service).deliver(delivery) == "retry"
        took = time.monotonic() - began
    assert 0.9 <= took < 3.0  # not the 10 s the receiver would take
    row = service.store.delivery(delivery)
    assert row is not None and row.last_status_code is None
    assert row.last_error == "timed out after 1 s (the whole attempt)"


def test_an_endpoint_failing_for_days_is_disabled_says_why_and_can_be_enabled(
    engine: Engine, account: str
) -> None:
    """A new event a day, every attempt answered 503: five days after its first
    failure the endpoint is disabled with the reason; its pending retries are given
    up and new events make nothing, until its owner enables it again."""
    service = Webhooks(WebhookStore(engine), REAL)
    courier = Courier(service)
    with receiver((503, {}, 0.0)) as hook, freeze_time(START) as clock:
        endpoint, _ = service.register(account, hook.url, [GAME_FINISHED], None)
        for day in range(6):
            [(delivery, _)] = service.emit([finished(account, f"day{day}")])
            assert courier.deliver(delivery) == "retry"
            found = service.owned(account, endpoint.id)
            assert found.failing_since_ms == int(START.timestamp() * 1000)
            assert (found.disabled_ms is None) == (day < 5)
            clock.tick(timedelta(days=1))
        assert found.disabled_reason == "failing since 2026-12-01T10:00:00+00:00 (last: HTTP 503)"
        assert service.emit([finished(account, "later")]) == []
        assert courier.deliver(delivery) == "failed"  # the last day's retry: given up
        service.update(account, endpoint.id, EndpointChanges(enabled=True))
        back = service.owned(account, endpoint.id)
        assert (back.disabled_ms, back.disabled_reason, back.failing_since_ms) == (None, None, None)
        hook.answers[:] = [(200, {}, 0.0)]
        [(delivery, _)] = service.emit([finished(account, "again")])
        assert courier.deliver(delivery) == "delivered"


@contextmanager
def trickling_receiver(every_s: float, lines: int) -> Iterator[str]:
    """A server that answers a connection with ``HTTP/1.1 200`` and then one header
    line every ``every_s`` seconds, ``lines`` of them: a receiver slow on purpose."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        try:
            client, _ = server.accept()
        except OSError:
            return
        with client:
            client.recv(65536)
            try:
                client.sendall(b"HTTP/1.1 200 OK\r\n")
                for n in range(lines):
                    if stop.wait(every_s):
                        return
                    client.sendall(f"x-slow-{n}: 1\r\n".encode())
            except OSError:
                return  # the sender hung up: what the test wants

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/hooks/slow"
    finally:
        stop.set()
        server.close()
