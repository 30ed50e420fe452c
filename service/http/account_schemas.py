"""Request bodies of the players' endpoints (issue 49): accounts, tokens, challenges."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from riskcore.bots.levels import LEVELS
from riskcore.modes import BUILT_IN_MODES
from service.application.accounts import NAME
from service.application.scopes import ALL_SCOPES

__all__ = ["CreateAccount", "CreateChallenge", "CreateToken", "LeaderboardQuery"]

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


class CreateChallenge(Schema):
    mode = fields.String(load_default=None, validate=validate.OneOf(BUILT_IN_MODES))
    board = fields.String(load_default=None, validate=validate.Length(min=1, max=40))
    bots = fields.List(
        fields.String(validate=validate.OneOf(list(LEVELS))),
        required=True,
        validate=validate.Length(min=1, max=5),
    )
    rated = fields.Boolean(load_default=True)


class LeaderboardQuery(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
