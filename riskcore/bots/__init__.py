"""Bots: each sees only its seat's view and legal actions.

A bot is handed a ``SeatView`` (what its seat may see), ``legal_actions(state, seat)`` and a
``random.Random`` fixed per game and turn, so bot play replays identically.
It returns one command body from the list (numeric fields within bounds).
"""

from __future__ import annotations

from riskcore.bots.base import Bot, bot_names, get_bot, register

__all__ = ["Bot", "bot_names", "get_bot", "register"]
