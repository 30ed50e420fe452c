"""A game before and beside its events: its setup, its seats, its listing.

What a game is before its first event (``GameInfo``, ``SeatInfo``) and the
statuses it is listed under. They are stored by the lobby index,
``service.store.lobby_index`` (the one door to those records); this module
names them for the application and the HTTP edge, which never reach the
store's records themselves.
"""

from __future__ import annotations

from service.store.lobby_index import (
    FINISHED,
    FINISHED_SECONDS,
    OPEN,
    RUNNING,
    GameInfo,
    Lobby,
    SeatInfo,
)

__all__ = ["FINISHED", "FINISHED_SECONDS", "OPEN", "RUNNING", "GameInfo", "Lobby", "SeatInfo"]
