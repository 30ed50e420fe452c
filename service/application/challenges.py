"""Challenges (issue 49): one call makes a game against bots of chosen levels.

``POST /v1/challenges`` with ``{"bots": ["medium", "medium"]}`` seats the
caller's account first and a bot of each level after it. Each level plays
as its bot account (``bot-easy``, ``bot-medium``, ``bot-hard``), so a rated
challenge changes the bot account's rating as well as the person's: humans
and bots share one pool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.application.accounts import Accounts
from service.application.game_types import SeatPlan
from service.store.accounts import AccountRow

__all__ = ["challenge_mode", "challenge_seats"]


def challenge_seats(
    accounts: Accounts, challenger: AccountRow, levels: Sequence[str]
) -> list[SeatPlan]:
    """The seats of a challenge: the challenger, then each level's bot account."""
    seats = [SeatPlan("human", name=challenger.name, account=challenger.id)]
    for level in levels:
        bot = accounts.bot(level)
        seats.append(SeatPlan("bot", name=bot.name, level=level, account=bot.id))
    return seats


def challenge_mode(data: Mapping[str, Any]) -> str | None:
    """The mode asked for; against one bot, the two-player game (classic needs three)."""
    mode: str | None = data.get("mode")
    if mode is None and len(data["bots"]) == 1:
        return "two_player"
    return mode
