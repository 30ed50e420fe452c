"""Request bodies of the players' endpoints (issue 49): accounts and tokens (challenges:
``service.http.challenge_schemas``)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.application.accounts import NAME
from service.application.scopes import ALL_SCOPES

__all__ = ["CreateAccount", "CreateToken", "LeaderboardQuery"]

_ACCOUNT_NAME = validate.Regexp(
    NAME.pattern + r"\Z",
    error="2 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit",
)


class CreateAccount(Schema):
    name = fields.String(required=True, validate=_ACCOUNT_NAME)


class CreateToken(Schema):
    scopes = fields.List(
        fields.String(validate=validate.OneOf(ALL_SCOPES)),
        required=True,
        validate=validate.Length(min=1, max=len(ALL_SCOPES)),
    )
    name = fields.String(load_default=None, validate=validate.Length(min=1, max=64))


class LeaderboardQuery(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
