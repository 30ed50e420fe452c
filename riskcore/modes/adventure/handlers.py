"""The command handlers of adventure cards, by command type (``GameMode.command_handlers``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from riskcore.engine.decision import Decision
from riskcore.modes.adventure.event_cards import discard
from riskcore.modes.adventure.missions import claim
from riskcore.modes.adventure.powers import play
from riskcore.modes.adventure.protocol import (
    ClaimAdventure,
    DiscardAdventure,
    PassAdventure,
    PlayAdventure,
)
from riskcore.modes.adventure.windows import pass_window
from riskcore.protocol import commands as cmd

HANDLERS: dict[type[cmd.Command], Callable[[Decision, Any], None]] = {
    PlayAdventure: play,
    ClaimAdventure: claim,
    DiscardAdventure: discard,
    PassAdventure: pass_window,
}
