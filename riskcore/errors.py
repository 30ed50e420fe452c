"""The engine's errors: one tree, each error with a stable machine code.

- ``RiskError`` (base; ``code`` and a message naming the offending value)
    - ``BoardError``: a board file is inconsistent.
    - ``RuleOptionError``: an unknown or out-of-range rule option.
    - ``MalformedCommand``: a command is not well formed (wrong type, missing
      field). Says nothing about the game position.
    - ``RuleViolation``: a well-formed command that the rules forbid now
      (``not_your_turn``, ``not_adjacent``, ``too_many_dice``, ...).
    - ``RecordError``: a stored event or record cannot be decoded.

Codes are part of the public API (the REST API returns them); never rename
one, only add.
"""

from __future__ import annotations


class RiskError(Exception):
    code = "risk_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class BoardError(RiskError):
    code = "invalid_board"


class RuleOptionError(RiskError):
    code = "invalid_rule_option"


class MalformedCommand(RiskError):
    code = "malformed_command"


class RuleViolation(RiskError):
    """A command the rules forbid in this position; ``code`` says which rule."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


class RecordError(RiskError):
    code = "invalid_record"
