"""Game modes: one module each, registered by name (``riskcore.engine.registry``).

Importing this package registers the built-in modes. ``GameMode`` in
``base`` is the classic game and lists every hook; a mode overrides the few
that differ. ``docs/engine.md`` walks through adding one.
"""

from riskcore.engine.registry import mode_named, mode_names, register_mode
from riskcore.modes import classic, two_player
from riskcore.modes.base import GameMode, Outcome

__all__ = [
    "GameMode",
    "Outcome",
    "classic",
    "mode_named",
    "mode_names",
    "register_mode",
    "two_player",
]
