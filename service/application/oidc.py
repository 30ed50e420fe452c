"""Bearer JWTs from the deployment's own login (issue 49, ``RISK_OIDC_ISSUER``).

A site that signs its users in itself may put this server behind that
login: a JWT its issuer signed (RS256/ES256 and the other asymmetric
algorithms; never ``none`` or a shared secret), for this server's audience
and not expired, acts for the account of its subject, which is made on first
use (``Accounts.of_subject``). The issuer's key set is fetched from
``RISK_OIDC_JWKS`` (a URL; default the issuer's ``/.well-known/jwks.json``)
and cached by PyJWT; the JSON key set itself may be given instead (tests,
air-gapped deployments). A JWT's scopes are its ``scope`` claim's known
scopes, or every scope when it has none.
"""

from __future__ import annotations

import json
from typing import Any

import jwt

from service.application.accounts import Accounts, Principal
from service.application.scopes import ALL_SCOPES, SCOPES

__all__ = ["InvalidJwt", "Oidc", "looks_like_jwt"]

ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "EdDSA"]


class InvalidJwt(Exception):
    """Expired, for another audience or issuer, or not signed by the issuer's keys."""


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and token.startswith("eyJ")


class Oidc:
    """Verifies JWTs of one issuer and maps their subjects to accounts."""

    def __init__(
        self, accounts: Accounts, issuer: str, audience: str | None, jwks: str | None
    ) -> None:
        self._accounts = accounts
        self._issuer = issuer
        self._audience = audience
        source = jwks or issuer.rstrip("/") + "/.well-known/jwks.json"
        self._keys = _key_source(source)

    def principal(self, token: str) -> Principal:
        claims = self.verify(token)
        subject = f"{self._issuer}|{claims['sub']}"
        account = self._accounts.of_subject(subject, claims.get("preferred_username"))
        if account.deleted_ms is not None:
            raise InvalidJwt("the account of this subject was deleted")
        return self._accounts.principal(account, _scopes(claims))

    def verify(self, token: str) -> dict[str, Any]:
        try:
            key = self._keys(token)
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=ALGORITHMS,
                issuer=self._issuer,
                audience=self._audience,
                options={"require": ["exp", "iss", "sub"], "verify_aud": bool(self._audience)},
            )
        except (jwt.PyJWTError, KeyError) as error:
            raise InvalidJwt(f"the JWT was refused: {error}") from None
        return claims


def _key_source(source: str) -> Any:
    """A function from a JWT to the key that should have signed it."""
    if source.lstrip().startswith("{"):
        keys = jwt.PyJWKSet.from_dict(json.loads(source))

        def from_set(token: str) -> Any:
            kid = jwt.get_unverified_header(token).get("kid")
            for key in keys.keys:
                if kid is None or key.key_id == kid:
                    return key.key
            raise jwt.InvalidKeyError(f"no key {kid!r} in the key set")

        return from_set
    client = jwt.PyJWKClient(source, cache_keys=True, lifespan=3600)
    return lambda token: client.get_signing_key_from_jwt(token).key


def _scopes(claims: dict[str, Any]) -> tuple[str, ...]:
    said = claims.get("scope")
    if not isinstance(said, str):
        return ALL_SCOPES
    return tuple(s for s in said.split() if s in SCOPES)
