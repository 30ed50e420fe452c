"""Issue 50: sending webhooks. Each attempt is signed per Standard Webhooks (checked with
the library's own ``Webhook.verify``), carries the same ``webhook-id`` on every retry,
has two signatures while a rotated secret still signs; 410 disables the endpoint, 429
waits as long as Retry-After asks, redirects are not followed, an endpoint failing for
days is disabled and says so, and a URL that turned private is not called. A real local
receiver and a real (SQLite) database; the retry schedule scaled down to milliseconds."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy.engine import Engine
from standardwebhooks.webhooks import Webhook

from service.application.webhook_events import GAME_FINISHED, WebhookEvent
from service.application.webhooks import Webhooks, WebhookSettings
from service.store.accounts import AccountRow, AccountStore
from service.store.database import create_engine
from service.store.webhooks import WebhookStore
from tests.webhook_receiver import Received, receiver
from workers.webhooks import Courier, deliver_many, finish_sends

FAST = WebhookSettings(allow_private=True, timeout_s=2.0, retry_scale=0.0)


@pytest.fixture
def engine(sqlite_url: str) -> Engine:
    engine = create_engine(sqlite_url)
    yield engine
    engine.dispose()


@pytest.fixture
def account(engine: Engine) -> str:
    return new_account(engine)


@pytest.fixture
def either_engine(database_url: str) -> Iterator[Engine]:
    """SQLite, then PostgreSQL."""
    engine = create_engine(database_url)
    yield engine
    engine.dispose()


def new_account(engine: Engine) -> str:
    account_id = uuid.uuid4().hex[:16]
    row = AccountRow(account_id, f"ada{account_id[:6]}", "human", None, int(time.time() * 1000))
    AccountStore(engine).create(row)
    return account_id


def webhooks(engine: Engine, settings: WebhookSettings = FAST) -> Webhooks:
    return Webhooks(WebhookStore(engine), settings)


def finished(account: str, game: str = "g1") -> WebhookEvent:
    data = {"game_id": game, "seat": "p1", "won": True, "winners": ["p1"]}
    return WebhookEvent(GAME_FINISHED, account, f"{game}:finished", data)


def verified(got: Received, secret: str) -> dict[str, object]:
    payload: dict[str, object] = Webhook(secret).verify(got.body, got.headers)
    return payload


def test_a_delivery_is_signed_and_verifies_with_the_library(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    with receiver((200, {}, 0.0)) as hook:
        _, secret = service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert Courier(service).deliver(delivery) == "delivered"
        [got] = hook.wait_for(1)
    assert secret.startswith("whsec_")
    assert got.headers["webhook-id"] == delivery
    payload = verified(got, secret)
    assert payload["type"] == "game.finished"
    assert payload["data"] == {"game_id": "g1", "seat": "p1", "won": True, "winners": ["p1"]}
    row = service.store.delivery(delivery)
    assert row is not None and (row.status, row.attempts, row.last_status_code) == (
        "delivered",
        1,
        200,
    )


def test_a_retry_carries_the_same_webhook_id(either_engine: Engine) -> None:
    """The receiver fails with 500 first: the second attempt is the same message."""
    account = new_account(either_engine)
    service = webhooks(either_engine)
    courier = Courier(service)
    with receiver((500, {}, 0.0), (200, {}, 0.0)) as hook:
        _, secret = service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert courier.deliver(delivery) == "retry"
        assert courier.deliver(delivery) == "delivered"
        first, second = hook.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery
    assert first.body == second.body
    verified(first, secret)
    verified(second, secret)
    endpoint = service.endpoints(account)[0]
    assert endpoint.failing_since_ms is None  # it answered well again


def test_the_same_event_found_twice_is_one_delivery(either_engine: Engine) -> None:
    account = new_account(either_engine)
    service = webhooks(either_engine)
    service.register(account, "http://127.0.0.1:9/hook", [GAME_FINISHED], None)
    assert len(service.emit([finished(account)])) == 1
    assert service.emit([finished(account)]) == []
    [(made, _)] = service.emit([finished(account), finished(account, "g2")])  # one is new
    row = service.store.delivery(made)
    assert row is not None and json.loads(row.payload)["data"]["game_id"] == "g2"


def test_the_retry_schedule_waits_5_s_then_5_min_and_gives_up_after_24_h() -> None:
    schedule = WebhookSettings()
    waits = [schedule.retry_delay_ms(n) for n in range(1, 8)]
    assert waits == [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 86_400_000]
    assert schedule.retry_delay_ms(8) is None
    assert WebhookSettings(retry_scale=0.001).retry_delay_ms(1) == 5


def test_429_waits_as_long_as_retry_after_asks(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    with receiver((429, {"Retry-After": "120"}, 0.0)) as hook:
        service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        before = int(time.time() * 1000)
        assert Courier(service).deliver(delivery) == "retry"
    row = service.store.delivery(delivery)
    assert row is not None and row.next_attempt_ms is not None
    assert row.next_attempt_ms >= before + 120_000
    assert Courier(service).deliver(delivery) == "skipped"  # not due yet


def test_a_rotated_secret_gives_two_signatures(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    with receiver((200, {}, 0.0)) as hook:
        endpoint, old = service.register(account, hook.url, [GAME_FINISHED], None)
        _, new, _ = service.rotate(account, endpoint.id)
        [(delivery, _)] = service.emit([finished(account)])
        Courier(service).deliver(delivery)
        [got] = hook.wait_for(1)
    signatures = got.headers["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(s.startswith("v1,") for s in signatures)
    verified(got, old)  # a receiver still on the old secret accepts it
    verified(got, new)  # and one on the new secret


def test_410_disables_the_endpoint(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    with receiver((410, {}, 0.0)) as hook:
        endpoint, _ = service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert Courier(service).deliver(delivery) == "gone"
    found = service.owned(account, endpoint.id)
    assert found.disabled_ms is not None and "410" in (found.disabled_reason or "")
    assert service.emit([finished(account, "g2")]) == []  # a disabled endpoint gets nothing


def test_an_endpoint_failing_for_days_is_disabled_with_a_reason(
    engine: Engine, account: str
) -> None:
    service = webhooks(engine, replace(FAST, disable_after_s=0.0))
    courier = Courier(service)
    with receiver((503, {}, 0.0)) as hook:
        endpoint, _ = service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert courier.deliver(delivery) == "retry"  # failing since now
        assert courier.deliver(delivery) == "retry"  # failing "for days": disabled
    found = service.owned(account, endpoint.id)
    assert found.disabled_ms is not None
    assert (found.disabled_reason or "").startswith("failing since ")
    assert "HTTP 503" in (found.disabled_reason or "")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed(engine: Engine, account: str, status: int) -> None:
    """A redirect is an answer like any other, and not a success: tried again later."""
    service = webhooks(engine)
    with receiver((status, {"Location": "http://127.0.0.1:9/elsewhere"}, 0.0)) as hook:
        service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        assert Courier(service).deliver(delivery) == "retry"
        assert len(hook.wait_for(1)) == 1
    row = service.store.delivery(delivery)
    assert row is not None and row.last_status_code == status


def test_a_url_refused_at_send_time_is_not_called(engine: Engine, account: str) -> None:
    """Registered while private addresses were allowed; the sender, which no longer
    allows them, checks again and calls nothing (the DNS-rebinding defence)."""
    with receiver((200, {}, 0.0)) as hook:
        webhooks(engine).register(account, hook.url, [GAME_FINISHED], None)
        strict = webhooks(engine, replace(FAST, allow_private=False))
        [(delivery, _)] = strict.emit([finished(account)])
        assert Courier(strict).deliver(delivery) == "retry"
        time.sleep(0.2)
        assert hook.got == []
    row = strict.store.delivery(delivery)
    assert row is not None and (row.last_error or "").startswith("refused: ")


def test_a_slow_receiver_costs_at_most_the_timeout(engine: Engine, account: str) -> None:
    service = webhooks(engine, replace(FAST, timeout_s=0.5))
    with receiver((200, {}, 2.0)) as hook:
        service.register(account, hook.url, [GAME_FINISHED], None)
        [(delivery, _)] = service.emit([finished(account)])
        began = time.monotonic()
        assert Courier(service).deliver(delivery) == "retry"
        assert time.monotonic() - began < 1.5
    row = service.store.delivery(delivery)
    assert row is not None and "timed out" in (row.last_error or "")


def test_the_payload_is_small_json(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    service.register(account, "http://127.0.0.1:9/hook", [GAME_FINISHED], None)
    [(delivery, _)] = service.emit([finished(account)])
    row = service.store.delivery(delivery)
    assert row is not None and len(row.payload) < 300
    assert set(json.loads(row.payload)) == {"type", "timestamp", "data"}


def test_a_deleted_accounts_endpoints_get_nothing(engine: Engine, account: str) -> None:
    service = webhooks(engine)
    service.register(account, "http://127.0.0.1:9/hook", [GAME_FINISHED], None)
    AccountStore(engine).delete(account, "deleted-x", int(time.time() * 1000))
    assert service.emit([finished(account)]) == []
    assert service.store.accounts_subscribed() == set()


def test_a_batch_is_sent_side_by_side_and_a_slow_receiver_holds_no_other(
    engine: Engine, account: str, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The feed's job of a batch (``deliver_many``) hands each delivery to the worker's
    senders and returns: a receiver taking 2 s to answer delays neither the job nor
    the other endpoint's delivery; stopping the worker waits for the sends in hand.
    (The bounds are loose for a loaded machine: 4 s against the slow one's 4 s.)"""
    monkeypatch.setenv("RISK_DATABASE_URL", sqlite_url)
    monkeypatch.setenv("RISK_WEBHOOK_ALLOW_PRIVATE", "1")
    service = webhooks(engine)
    with receiver((200, {}, 4.0)) as slow, receiver((200, {}, 0.0)) as fast:
        service.register(account, slow.url, [GAME_FINISHED], None)
        service.register(account, fast.url, [GAME_FINISHED], None)
        made = [d for d, _ in service.emit([finished(account)])]
        began = time.monotonic()
        assert deliver_many(made) == "2 handed to the senders"
        assert time.monotonic() - began < 2.0
        fast.wait_for(1, timeout=3.5)
        assert time.monotonic() - began < 3.5  # not after the slow one's 4 s
        finish_sends(10)
        assert len(slow.got) == 1
    rows = [service.store.delivery(d) for d in made]
    assert [r.status if r else None for r in rows] == ["delivered", "delivered"]
