"""Game modes: one module each, registered by name (``riskcore.engine.registry``).

Importing this package registers the built-in modes. ``GameMode`` in
``base`` is the classic game and lists every hook; a mode overrides the few
that differ. ``docs/engine.md`` walks through adding one.
"""

from riskcore.engine.registry import mode_named, mode_names, register_mode
from riskcore.modes import (
    active_neutrals,
    classic,
    lotr,
    middle_earth,
    mission_game,
    secret_missions,
    team,
    two_player,
)
from riskcore.modes.base import GameMode, Outcome

# The modes this package ships (a test may register more). Named through the
# base class: mypyc cannot infer a mode's own ``name`` inside this import cycle.
_SHIPPED: tuple[type[GameMode], ...] = (
    classic.Classic,
    two_player.TwoPlayer,
    team.TeamGame,
    secret_missions.SecretMissions,
    mission_game.MissionGame,
    middle_earth.MiddleEarth,
    lotr.LordOfTheRings,
    active_neutrals.ActiveNeutrals,
)
BUILT_IN_MODES: tuple[str, ...] = tuple(mode.name for mode in _SHIPPED)

__all__ = [
    "BUILT_IN_MODES",
    "GameMode",
    "Outcome",
    "active_neutrals",
    "classic",
    "lotr",
    "middle_earth",
    "mission_game",
    "mode_named",
    "mode_names",
    "register_mode",
    "secret_missions",
    "team",
    "two_player",
]
