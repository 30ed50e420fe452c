"""The steps every rule area may lead to: a new turn, and the end of the game.

They sit below the rule areas (setup, battle and turns all call them) so
that those import each other in one direction only. What a turn starts with
and how a game is decided are the mode's hooks (``GameMode.opening_phase``,
``GameMode.outcome``); these functions only emit what the mode decides.
"""

from __future__ import annotations

from riskcore.engine.decision import Decision
from riskcore.model.state import FINISHED
from riskcore.protocol import events as ev

# docs/rules.md: with 5 or more cards at the start of a turn, a set must be traded.
FORCED_TRADE_AT = 5


def start_turn(d: Decision, seat: str) -> None:
    """Reinforcements counted now, with the forced trade at 5+ cards (docs/rules.md)."""
    s = d.state
    mode = s.mode
    held = len(s.hand(seat))
    forced = held >= FORCED_TRADE_AT
    d.emit(
        ev.TurnStarted(
            seat=seat,
            turn=s.turn + 1,
            reinforcements=mode.reinforcements(s, seat),
            must_trade=forced,
            phase=mode.opening_phase(s, seat),
            # One set: after it the hand is three cards smaller.
            trade_down_to=held - 3 if forced else None,
        )
    )


def finish_if_decided(d: Decision) -> bool:
    """End the game if the mode's outcome says it is decided; True if it has ended."""
    s = d.state
    if s.phase == FINISHED:
        return True
    outcome = s.mode.outcome(s)
    if outcome is None:
        return False
    d.emit(
        ev.GameFinished(
            winner=outcome.winner,
            reason=outcome.reason,
            seed=d.rng.seed_hex(),
            winners=outcome.winners,
        )
    )
    return True
