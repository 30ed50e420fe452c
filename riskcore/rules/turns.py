"""Starting and ending turns, resigning, and the end of the game."""

from __future__ import annotations

from riskcore.engine.decision import Decision, reinforcements
from riskcore.model.state import DEFEND, FINISHED, SETUP_CLAIM, SETUP_PLACE
from riskcore.protocol import events as ev


def start_turn(d: Decision, seat: str) -> None:
    """Reinforcements counted now, with the forced trade at 5+ cards (RULES.md §1)."""
    s = d.state
    d.emit(
        ev.TurnStarted(
            seat=seat,
            turn=s.turn + 1,
            reinforcements=reinforcements(s, seat),
            must_trade=len(s.hand(seat)) >= 5,
        )
    )


def end_turn(d: Decision, seat: str) -> None:
    """Draw one card if anything was conquered, then pass to the next player."""
    s = d.state
    if s.conquered:
        draw_card(d, seat)
    d.emit(ev.TurnEnded(seat=seat))
    if not finish_if_decided(d):
        start_turn(d, s.next_player(seat))


def draw_card(d: Decision, seat: str) -> None:
    """The top card; an empty pile is first refilled from the shuffled discards."""
    s = d.state
    if not s.deck and s.discard:
        order = list(s.discard)
        d.rng.shuffle(order)
        d.emit(ev.DeckShuffled(order=tuple(order), reshuffle=True))
    if s.deck:
        d.emit(ev.CardDrawn(seat=seat, card=s.deck[0]))


def finish_if_decided(d: Decision) -> bool:
    """One active player left: they win (by conquest, or because all others left)."""
    s = d.state
    if s.phase == FINISHED:
        return True
    active = s.active_players()
    if len(active) > 1:
        return False
    winner = active[0] if active else None
    others_eliminated = all(s.out.get(p) == "eliminated" for p in s.order if p != winner)
    reason = "conquest" if others_eliminated else "resignation"
    d.emit(ev.GameFinished(winner=winner, reason=reason, seed=d.rng.seed_hex()))
    return True


def resign(d: Decision, seat: str, reason: str) -> None:
    """The seat leaves; if it was its turn (or its defence), play moves on."""
    from riskcore.rules.battle import defending_seat, resolve_pending_with_max_dice
    from riskcore.rules.setup import begin_play_if_placed

    s = d.state
    was_current = s.current == seat
    defending = s.phase == DEFEND and defending_seat(s) == seat
    occupation = s.occupation if was_current else None
    if occupation is not None:  # never leave a conquered territory empty
        d.emit(
            ev.TerritoryOccupied(
                seat=seat,
                source=occupation.source,
                target=occupation.target,
                count=occupation.min_move,
            )
        )
    d.emit(ev.PlayerResigned(seat=seat, reason=reason, discarded=tuple(s.hand(seat))))
    if finish_if_decided(d):
        return
    if s.phase in (SETUP_CLAIM, SETUP_PLACE):
        begin_play_if_placed(d)
    elif defending:
        resolve_pending_with_max_dice(d)
    elif was_current:
        d.emit(ev.TurnEnded(seat=seat))
        start_turn(d, s.next_player(seat))
