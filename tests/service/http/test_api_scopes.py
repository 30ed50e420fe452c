"""The scope matrix (issue 49): every endpoint declares the scope an account token
needs, openapi.yaml says the same, and every endpoint × every scope is tried: a
token with only that scope is refused with 403 `missing_scope` naming the endpoint's
scope exactly when it lacks it."""

from __future__ import annotations

import re

import pytest
from flask import Flask

from service.application.scopes import ALL_SCOPES, PUBLIC
from service.http.api.guard import ENDPOINT_SCOPES
from tests.service.api_helpers import SPEC, ApiClient

# Path parameters that name nothing: a request that passes the scope check then
# answers 404 (or 400) at once, never a stream that waits.
VALUES = {"game": "g0000000000000000", "tournament": "t0000000000000000", "name": "nobody"}
VALUES |= {"token_id": "t0", "mode": "classic", "path": "index.html", "filename": "x"}
VALUES |= {"webhook_id": "wh0", "delivery_id": "d0"}
VALUES |= {"challenge_id": "ch_none", "seek_id": "pk_none"}  # issue 49


def _routes(app: Flask) -> list[tuple[str, str, str]]:
    """(endpoint, method, URL) of every route, its parameters filled in."""
    found = []
    for rule in app.url_map.iter_rules():
        url = re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: VALUES[m.group(1)], rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((rule.endpoint, method, url))
    return found


def test_every_endpoint_declares_its_scope(app: Flask) -> None:
    assert {endpoint for endpoint, _, _ in _routes(app)} == set(ENDPOINT_SCOPES)
    assert set(ENDPOINT_SCOPES.values()) <= {*ALL_SCOPES, PUBLIC}


def test_openapi_declares_the_same_scopes(app: Flask) -> None:
    """`x-scope` of each operation is its endpoint's scope, and an operation that needs
    one lists the account token with that scope in `security`."""
    declared = {}
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                flask_path = re.sub(r"\{([^}]+)\}", r"<\1>", path)
                declared[method.upper(), flask_path] = operation
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"<\1>", rule.rule)
        path = path.replace("<game>", "<game_id>").replace("<tournament>", "<tournament_id>")
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
            operation = declared[method, path]
            scope = ENDPOINT_SCOPES[rule.endpoint]
            assert operation.get("x-scope", PUBLIC) == scope, (rule.endpoint, scope)
            if scope != PUBLIC:
                assert {"accountToken": [scope]} in operation["security"], rule.endpoint


@pytest.mark.parametrize("scope", ALL_SCOPES)
def test_every_endpoint_with_every_scope(app: Flask, api: ApiClient, scope: str) -> None:
    owner = api.post("/v1/accounts", json={"name": "Ada"}).json["token"]
    token = api.post("/v1/tokens", json={"scopes": [scope]}, token=owner).json["token"]
    client = app.test_client()
    for endpoint, method, url in _routes(app):
        if endpoint == "accounts.delete_account" and scope == "account:manage":
            continue  # it would work, and end the account the loop uses
        needed = ENDPOINT_SCOPES[endpoint]
        response = client.open(url, method=method, headers={"Authorization": f"Bearer {token}"})
        refused = response.status_code == 403 and response.json["code"] == "missing_scope"
        assert refused == (needed not in (PUBLIC, scope)), (endpoint, scope, response.status_code)
        if refused:
            assert response.json["scope"] == needed
        response.close()
