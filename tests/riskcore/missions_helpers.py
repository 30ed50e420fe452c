"""Giving chosen missions to the seats of a position (the mission modes' tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from riskcore.engine.evolve import fold
from riskcore.modes.missions import MissionClaimed, MissionDealt, load_deck
from riskcore.protocol import events as ev
from tests.riskcore.helpers import Game


def with_missions(
    game: Game,
    deck: str,
    dealt: Mapping[str, Sequence[str]],
    claimed: Mapping[str, Sequence[str]] | None = None,
) -> Game:
    """``game`` as if its setup had dealt these mission cards (ids) to these seats, and
    (``claimed``) some had been claimed in earlier turns: the ``MissionDealt`` and
    ``MissionClaimed`` events go in just before the first turn starts."""
    cards = load_deck(deck)
    index = {card.id: i for i, card in enumerate(cards)}
    events = list(game.events)
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.TurnStarted))
    extra = [
        MissionDealt(seat=seat, grade=cards[index[card]].grade, mission=index[card])
        for seat, ids in dealt.items()
        for card in ids
    ]
    extra += [
        MissionClaimed(seat=seat, card=card)
        for seat, ids in (claimed or {}).items()
        for card in ids
    ]
    events[start:start] = extra
    return Game(fold(events), events, game.seed)


def check_missions_stay_secret(mode: str, games: int = 50) -> None:
    """Seeded random games of ``mode``: no view, and no event as a seat or a spectator
    sees it, shows another seat's mission before it is claimed, revealed or the game
    is over; once it is over, every mission shows."""
    import random

    from riskcore.bots import get_bot
    from riskcore.engine.evolve import apply
    from riskcore.model.state import FINISHED
    from riskcore.simulate import play_game
    from riskcore.views.view import redact, view

    for seed in range(games):
        result = play_game(
            [get_bot("random")] * 3, seed=b"%s-%d" % (mode.encode(), seed), mode=mode
        )
        state = fold(result.events[:1])
        rnd = random.Random(seed)
        for event in result.events[1:]:
            apply(state, event)
            if state.phase == FINISHED:
                break
            for viewer in ("p1", "p2", "p3", None):
                shown = redact(event, viewer)
                if isinstance(shown, MissionDealt) and shown.seat != viewer:
                    assert shown.mission == -1
                if rnd.random() < 0.03:
                    for seat, entries in view(state, viewer)["mode_state"]["missions"].items():
                        for entry in entries:
                            if seat != viewer and not (entry["claimed"] or entry["revealed"]):
                                assert entry["card"] is None and entry["text"] is None
        final = view(state, None)["mode_state"]["missions"]
        assert all(e["card"] is not None for entries in final.values() for e in entries)
