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

# The modes this package ships (a test may register more).
BUILT_IN_MODES: tuple[str, ...] = (
    classic.Classic.name,
    two_player.TwoPlayer.name,
    team.TeamGame.name,
    secret_missions.SecretMissions.name,
    mission_game.MissionGame.name,
    middle_earth.MiddleEarth.name,
    lotr.LordOfTheRings.name,
    active_neutrals.ActiveNeutrals.name,
)

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
