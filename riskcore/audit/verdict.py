"""What a verification finds: a ``Verdict``, and the first ``Divergence`` it names.

``riskcore.audit.verify`` checks a record in the order of ``CHECKS``; a check
that fails raises ``Failed`` (made by ``fail``), which the verification turns
into the verdict's divergence. Nothing outside the verification raises it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "CHECKS",
    "FAILED",
    "NOT_FINAL",
    "VERIFIED",
    "Divergence",
    "Failed",
    "Progress",
    "Verdict",
    "fail",
]

CHECKS = ("structure", "chain", "anchor", "decode", "header", "commitment", "secrets", "replay")
VERIFIED, NOT_FINAL, FAILED = "verified", "not_final", "failed"
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Divergence:
    check: str
    message: str
    version: int | None = None
    field: str | None = None
    expected: Any = None
    found: Any = None


@dataclass
class Verdict:
    """``ok`` only when the whole record was checked (``status`` verified)."""

    ok: bool = False
    status: str = FAILED
    game_id: str | None = None
    events: int = 0
    head: str | None = None
    checks: dict[str, str] = field(default_factory=dict)
    divergence: Divergence | None = None
    winner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["divergence"] = asdict(self.divergence) if self.divergence else None
        return data


class Failed(Exception):
    def __init__(self, divergence: Divergence) -> None:
        self.divergence = divergence


def fail(check: str, message: str, **where: Any) -> Failed:
    return Failed(Divergence(check, message, **where))
