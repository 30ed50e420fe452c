"""Issue 50, end to end: `risk serve`, a game worker and a webhook worker
(`risk worker --webhooks`) with a real local receiver. A rated challenge's
game.finished arrives signed (checked with the library's `Webhook.verify`); the
receiver's first answer is 500 and the retry carries the same `webhook-id`; after a
rotation a redelivery has two signatures; a webhook worker killed while the receiver
holds its request leaves the delivery to a new worker, which sends it again with the
same id. The retry schedule is scaled down (RISK_WEBHOOK_RETRY_SCALE)."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis as redis_lib
from standardwebhooks.webhooks import Webhook

from service.store.keys import KeySpace
from tests.e2e.conftest import Stack, free_port, wait_ready
from tests.webhook_receiver import receiver

pytestmark = pytest.mark.e2e


def call(stack: Stack, method: str, path: str, body: Any = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(stack.url + path, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def wait_for_feed(client: redis_lib.Redis, keys: KeySpace, timeout: float = 30) -> None:
    """Until the webhook worker made its consumer group (it starts at the outboxes' end)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            groups = client.xinfo_groups(keys.outboxes()[0])
        except redis_lib.ResponseError:
            groups = []
        if any(g["name"] in (b"webhooks", "webhooks") for g in groups):
            return
        time.sleep(0.1)
    raise AssertionError("the webhook worker never started its feed")


def test_game_finished_arrives_signed_retried_rotated_and_survives_a_killed_worker(
    stack_env: dict[str, str], redis: redis_lib.Redis, tmp_path: Path
) -> None:
    env = stack_env | {
        "RISK_WEBHOOK_ALLOW_PRIVATE": "1",
        "RISK_WEBHOOK_RETRY_SCALE": "0.0002",  # 5 s -> 1 ms, 5 min -> 60 ms
        "RISK_WEBHOOK_TIMEOUT": "1",  # a sender holds a delivery 6 s
    }
    port = free_port()
    stack = Stack(env, url=f"http://127.0.0.1:{port}", logs=tmp_path)
    answers = [(500, {}, 0.0), (200, {}, 0.0), (200, {}, 8.0), (200, {}, 0.0)]
    with receiver(*answers) as hook:
        try:
            stack.start("api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1")
            stack.start("worker", "worker", "--log-level", "WARNING")
            stack.start("webhooks", "worker", "--webhooks", "--log-level", "WARNING")
            wait_ready(stack.url)
            wait_for_feed(redis, KeySpace(env["RISK_KEY_PREFIX"]))
            token = call(stack, "POST", "/v1/accounts", {"name": "Ada"})["token"]
            body = {"url": hook.url, "events": ["game.finished"]}
            endpoint = call(stack, "POST", "/v1/webhooks", body, token)
            challenge = {"bots": ["easy"], "rated": True}
            game = call(stack, "POST", "/v1/challenges", challenge, token)["game"]["game_id"]
            call(stack, "POST", f"/v1/games/{game}/commands", {"type": "resign"}, token)

            failed, retried = hook.wait_for(2, timeout=30)
            message = failed.headers["webhook-id"]
            assert retried.headers["webhook-id"] == message
            for got in (failed, retried):
                payload = Webhook(endpoint["secret"]).verify(got.body, got.headers)
                assert payload["type"] == "game.finished"
                assert payload["data"]["game_id"] == game and payload["data"]["won"] is False
                assert payload["data"]["record_url"].endswith(f"/v1/games/{game}/record")

            rotated = call(stack, "POST", f"/v1/webhooks/{endpoint['id']}/rotate", None, token)
            again = f"/v1/webhooks/{endpoint['id']}/deliveries/{message}/redeliver"
            call(stack, "POST", again, None, token)
            held = hook.wait_for(3, timeout=30)[2]  # the receiver holds this one 8 s
            stack.kill("webhooks")
            stack.start("webhooks", "worker", "--webhooks", "--log-level", "WARNING")
            resent = hook.wait_for(4, timeout=40)[3]
        finally:
            stack.stop_all()
    assert held.headers["webhook-id"] == resent.headers["webhook-id"] == message
    assert len(resent.headers["webhook-signature"].split(" ")) == 2
    Webhook(endpoint["secret"]).verify(resent.body, resent.headers)
    Webhook(rotated["secret"]).verify(resent.body, resent.headers)
