"""Webhooks over the API (issue 50): register (secret shown once, SSRF refused), list,
rotate, delete, deliveries and redelivery, all under the scope `webhook:manage`; a
challenge makes its `challenge.accepted` delivery."""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import Flask

from service.application.webhooks import WebhookSettings
from tests.service.api_helpers import ApiClient, problem
from tests.service.http.test_api_accounts import account, scoped

HOOK = "http://127.0.0.1:9/hooks/risk"


@pytest.fixture(autouse=True)
def private_allowed(app: Flask) -> None:
    """What RISK_WEBHOOK_ALLOW_PRIVATE=1 sets: these tests' receivers are local."""
    webhooks = app.extensions["risk"].webhooks
    webhooks.settings = replace(webhooks.settings, allow_private=True)


def register(api: ApiClient, token: str, *events: str) -> dict[str, object]:
    body = {"url": HOOK, "events": list(events or ["game.finished"])}
    response = api.post("/v1/webhooks", json=body, token=token)
    assert response.status_code == 201, response.json
    document: dict[str, object] = response.json
    return document


def test_an_endpoint_is_registered_listed_rotated_and_deleted(api: ApiClient) -> None:
    owner = account(api)
    created = api.post(
        "/v1/webhooks",
        json={"url": HOOK, "events": ["game.finished", "turn.started"], "description": "bot"},
        token=owner,
    )
    assert created.status_code == 201
    hook = created.json
    assert hook["secret"].startswith("whsec_") and created.headers["Location"].endswith(hook["id"])
    assert hook["events"] == ["turn.started", "game.finished"] and hook["disabled"] is None
    [listed] = api.get("/v1/webhooks", token=owner).json["webhooks"]
    assert listed["id"] == hook["id"] and "secret" not in listed
    rotated = api.post(f"/v1/webhooks/{hook['id']}/rotate", token=owner)
    assert rotated.status_code == 200
    assert rotated.json["secret"].startswith("whsec_") and rotated.json["secret"] != hook["secret"]
    assert rotated.json["previous_expires"] > hook["created"]
    assert api.call("DELETE", f"/v1/webhooks/{hook['id']}", token=owner).status_code == 204
    gone = api.call("DELETE", f"/v1/webhooks/{hook['id']}", token=owner)
    assert problem(gone, 404, "webhook_not_found")
    assert api.get("/v1/webhooks", token=owner).json["webhooks"] == []


def test_the_scope_webhook_manage_is_needed(api: ApiClient) -> None:
    owner = account(api)
    _, reader = scoped(api, owner, "read", "game:create")
    refused = api.post(
        "/v1/webhooks", json={"url": HOOK, "events": ["game.finished"]}, token=reader
    )
    assert problem(refused, 403, "missing_scope")["scope"] == "webhook:manage"
    assert api.get("/v1/webhooks", token=reader).status_code == 403
    _, manager = scoped(api, owner, "webhook:manage")
    assert api.get("/v1/webhooks", token=manager).status_code == 200


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/h", "http://10.0.0.1/h", "http://169.254.169.254/latest/meta-data"]
)
def test_private_urls_are_refused_without_the_setting(api: ApiClient, app: Flask, url: str) -> None:
    app.extensions["risk"].webhooks.settings = WebhookSettings()
    refused = api.post(
        "/v1/webhooks", json={"url": url, "events": ["game.finished"]}, token=account(api)
    )
    assert problem(refused, 422, "unsafe_webhook_url")


def test_unknown_event_types_are_a_bad_body(api: ApiClient) -> None:
    refused = api.post(
        "/v1/webhooks", json={"url": HOOK, "events": ["game.exploded"]}, token=account(api)
    )
    assert problem(refused, 400, "invalid_body")


def test_another_accounts_endpoint_is_not_found(api: ApiClient) -> None:
    hook = register(api, account(api, "Ada"))
    other = account(api, "Bob")
    for method, path in [
        ("DELETE", f"/v1/webhooks/{hook['id']}"),
        ("POST", f"/v1/webhooks/{hook['id']}/rotate"),
        ("GET", f"/v1/webhooks/{hook['id']}/deliveries"),
    ]:
        assert problem(api.call(method, path, token=other), 404, "webhook_not_found")


def test_a_challenge_makes_a_delivery_that_can_be_redelivered(api: ApiClient) -> None:
    owner = account(api)
    hook = register(api, owner, "challenge.accepted")
    made = api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner)
    assert made.status_code == 201, made.json
    [delivery] = api.get(f"/v1/webhooks/{hook['id']}/deliveries", token=owner).json["deliveries"]
    assert (delivery["type"], delivery["status"], delivery["attempts"]) == (
        "challenge.accepted",
        "pending",
        0,
    )
    again = api.post(
        f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver", token=owner
    )
    assert again.status_code == 202 and again.json["id"] == delivery["id"]
    missing = api.post(f"/v1/webhooks/{hook['id']}/deliveries/msg_none/redeliver", token=owner)
    assert problem(missing, 404, "webhook_not_found")
