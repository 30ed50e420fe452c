"""Giving chosen missions to the seats of a position (the mission modes' tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from riskcore.engine.evolve import fold
from riskcore.modes.missions import MissionDealt, load_deck
from riskcore.protocol import events as ev
from tests.riskcore.helpers import Game


def with_missions(game: Game, deck: str, dealt: Mapping[str, Sequence[str]]) -> Game:
    """``game`` as if its setup had dealt these mission cards (ids) to these seats:
    the ``MissionDealt`` events go in just before the first turn starts."""
    cards = load_deck(deck)
    index = {card.id: i for i, card in enumerate(cards)}
    events = list(game.events)
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.TurnStarted))
    extra = [
        MissionDealt(seat=seat, grade=cards[index[card]].grade, mission=index[card])
        for seat, ids in dealt.items()
        for card in ids
    ]
    events[start:start] = extra
    return Game(fold(events), events, game.seed)
