"""Request bodies and queries of challenges and the pairing queue (issue 49)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from riskcore.bots.levels import LEVELS
from riskcore.modes import BUILT_IN_MODES
from service.application.accounts import NAME as ACCOUNT_NAME
from service.http.schemas import NAME, StrictBool, WholeNumber

__all__ = ["AcceptChallenge", "ChallengesQuery", "CreateChallenge", "CreateSeek"]

MAX_OTHERS = 5  # seats besides the challenger's: the largest game has six
_LEVELS = validate.OneOf(list(LEVELS))
_MODES = validate.OneOf(BUILT_IN_MODES)


class CreateChallenge(Schema):
    """``bots`` alone: a game at once. ``opponents`` (account names) and ``open`` seats:
    a challenge that waits for its answers, ``expires_in`` seconds at most."""

    mode = fields.String(load_default=None, validate=_MODES)
    board = fields.String(load_default=None, validate=validate.Length(min=1, max=40))
    bots = fields.List(
        fields.String(validate=_LEVELS),
        load_default=list,
        validate=validate.Length(max=MAX_OTHERS),
    )
    opponents = fields.List(
        fields.String(
            validate=validate.Regexp(ACCOUNT_NAME.pattern + r"\Z", error="not an account name")
        ),
        load_default=list,
        validate=validate.Length(max=MAX_OTHERS),
    )
    open = StrictBool(load_default=False)
    open_seats = WholeNumber(load_default=None, validate=validate.Range(1, MAX_OTHERS))
    rated = StrictBool(load_default=True)
    expires_in = WholeNumber(load_default=None, validate=validate.Range(60, 7 * 86400))

    @validates_schema
    def _someone_to_play(self, data: dict[str, Any], **kwargs: Any) -> None:
        others = len(data["bots"]) + len(data["opponents"])
        if data["open"]:
            others += data["open_seats"] or 1
        elif data["open_seats"] is not None:
            raise ValidationError('open seats are asked for with "open": true', "open_seats")
        if others == 0:
            raise ValidationError('name opponents, bots, or "open": true', "bots")
        if others > MAX_OTHERS:
            raise ValidationError(f"at most {MAX_OTHERS} seats besides yours", "_schema")
        lowered = [name.lower() for name in data["opponents"]]
        if len(set(lowered)) != len(lowered):
            raise ValidationError("an opponent is named twice", "opponents")
        if data["expires_in"] is not None and not (data["opponents"] or data["open"]):
            raise ValidationError("a game of bots starts at once: it has no expiry", "expires_in")


class AcceptChallenge(Schema):
    """``name``: the seat's name in the game, for someone taking an open seat without
    an account (an account's seat has its name)."""

    name = fields.String(load_default=None, validate=NAME)


class ChallengesQuery(Schema):
    """``status``: the pending challenges only (the default), or every one kept."""

    status = fields.String(load_default="pending", validate=validate.OneOf(["pending", "all"]))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100))


class CreateSeek(Schema):
    """A seat in the quick-pairing queue: ``players`` seats of ``mode``, bots of
    ``level`` filling in after ``wait`` seconds."""

    mode = fields.String(load_default=None, validate=_MODES)
    players = WholeNumber(load_default=None, validate=validate.Range(2, 6))
    wait = WholeNumber(load_default=30, validate=validate.Range(0, 600))
    level = fields.String(load_default="medium", validate=_LEVELS)
    rated = StrictBool(load_default=None, allow_none=True)
    name = fields.String(load_default=None, validate=NAME)
