"""The classic game (docs/rules.md): every hook keeps its default."""

from __future__ import annotations

from riskcore.engine.registry import register_mode
from riskcore.modes.base import GameMode


class Classic(GameMode):
    """3-6 players; the last one standing wins."""


register_mode(Classic)
