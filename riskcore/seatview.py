"""``SeatView``: a read-only window on a game, limited to what one seat may see.

Bots are handed this rather than the state. It answers the public questions
(owners, armies, card counts, phase) and the seat's private ones (its own
hand) without copying the whole board into a dictionary each move, which
matters when a bot is asked thousands of times per second. It exposes
nothing a seat could not read from ``riskcore.views.view``.
"""

from __future__ import annotations

from typing import Any

from riskcore.board import Board
from riskcore.rules import RuleSet
from riskcore.state import State


class SeatView:
    __slots__ = ("_dict", "_state", "seat")

    def __init__(self, state: State, seat: str) -> None:
        self._state = state
        self.seat = seat
        self._dict: dict[str, Any] | None = None

    @property
    def board(self) -> Board:
        return self._state.board

    @property
    def rules(self) -> RuleSet:
        return self._state.rules

    @property
    def phase(self) -> str:
        return self._state.phase

    @property
    def version(self) -> int:
        return self._state.version

    @property
    def turn(self) -> int:
        return self._state.turn

    def owner(self, territory: str) -> str | None:
        return self._state.owner.get(territory)

    def troops(self, territory: str) -> int:
        return self._state.troops(territory)

    def territories_of(self, player: str) -> list[str]:
        return self._state.territories_of(player)

    def players(self) -> list[str]:
        """Players still in the game, in turn order."""
        return self._state.active_players()

    def card_count(self, seat: str) -> int:
        return len(self._state.hand(seat))

    def my_hand(self) -> list[int]:
        return list(self._state.hand(self.seat))

    def reserve(self) -> int:
        return self._state.reserve.get(self.seat, 0)

    def sets_traded(self) -> int:
        return self._state.sets_traded

    def as_dict(self) -> dict[str, Any]:
        """The full JSON view, as the API would serve it to this seat."""
        if self._dict is None:
            from riskcore.views import view

            self._dict = view(self._state, self.seat)
        return self._dict
