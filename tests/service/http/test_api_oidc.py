"""Bearer JWTs of a deployment's own login (issue 49, RISK_OIDC_ISSUER): a JWT the
issuer's key set signed, for this audience and not expired, acts for the account of
its subject (made on first use); expired, another audience, another key: 401."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from service.http.app import create_app
from service.settings import Settings
from tests.service.api_helpers import ApiClient, problem

ISSUER, AUDIENCE = "https://login.example", "risk-server"


def _key() -> Any:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


KEY, OTHER_KEY = _key(), _key()


def _jwks(key: Any) -> str:
    public = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    return json.dumps({"keys": [public | {"kid": "k1", "use": "sig", "alg": "RS256"}]})


def signed(key: Any = KEY, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "exp": now + 300, "iat": now}
    return jwt.encode(body | claims, key, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture
def login(settings: Settings) -> Iterator[ApiClient]:
    changed = dataclasses.replace(
        settings, oidc_issuer=ISSUER, oidc_audience=AUDIENCE, oidc_jwks=_jwks(KEY)
    )
    app = create_app(changed)
    yield ApiClient(app.test_client())
    app.extensions["risk"].archive.engine.dispose()


def test_a_jwt_of_the_issuer_maps_to_an_account_made_on_first_use(login: ApiClient) -> None:
    first = login.get("/v1/account", token=signed(preferred_username="Ada"))
    assert first.status_code == 200
    assert first.json["account"]["name"] == "Ada" and first.json["token_id"] is None
    again = login.get("/v1/account", token=signed(preferred_username="Renamed")).json
    assert again["account"]["id"] == first.json["account"]["id"]  # the subject, not the name
    other = login.get("/v1/account", token=signed(sub="user-2", preferred_username="Ada")).json
    assert other["account"]["name"] != "Ada"  # taken: a made-up name instead
    limited = login.get("/v1/account", token=signed(scope="read")).json
    assert limited["scopes"] == ["read"]
    refused = login.post("/v1/challenges", json={"bots": ["easy"]}, token=signed(scope="read"))
    assert problem(refused, 403, "missing_scope")["scope"] == "game:create"


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(lambda: signed(exp=int(time.time()) - 60), id="expired"),
        pytest.param(lambda: signed(aud="another-server"), id="wrong-audience"),
        pytest.param(lambda: signed(iss="https://elsewhere.example"), id="wrong-issuer"),
        pytest.param(lambda: signed(OTHER_KEY), id="wrong-key"),
    ],
)
def test_a_jwt_that_is_expired_for_another_audience_or_signed_by_another_key_is_401(
    login: ApiClient, token: Any
) -> None:
    problem(login.get("/v1/account", token=token()), 401, "invalid_token")


def test_without_an_issuer_a_jwt_is_no_account(api: ApiClient) -> None:
    problem(api.get("/v1/account", token=signed()), 401, "account_token_required")
