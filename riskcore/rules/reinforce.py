"""The reinforce phase: card trades and placing armies (docs/rules.md)."""

from __future__ import annotations

from riskcore.engine.decision import (
    Decision,
    check_owns,
    check_territory,
    check_turn,
    violation,
)
from riskcore.model.state import REINFORCE, State
from riskcore.protocol import events as ev
from riskcore.protocol.commands import PlaceArmies, TradeCards
from riskcore.rules.cards import is_set

# docs/rules.md (the classic game): "they get 2 extra armies ... at most 2 such armies per turn".
TERRITORY_BONUS = 2


def trade(d: Decision, command: TradeCards) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase != REINFORCE:
        raise violation("wrong_phase", f"cards are traded while reinforcing, not in {s.phase!r}")
    if not may_trade(s):
        raise violation(
            "trade_not_allowed",
            "after an elimination you trade only down to 4 cards; the rest wait for your turn",
        )
    cards = command.cards
    hand = s.hand(command.seat)
    if len(cards) != 3 or len(set(cards)) != 3:
        raise violation("not_a_set", f"a trade is three different cards, not {list(cards)!r}")
    missing = [c for c in cards if c not in hand]
    if missing:
        raise violation("cards_not_held", f"card {missing[0]!r} is not in your hand")
    symbols = tuple(s.board.cards[c].symbol for c in cards)
    if not is_set(symbols):
        raise violation("not_a_set", f"cards {list(cards)!r} ({', '.join(symbols)}) are not a set")
    bonus_territory, bonus = _territory_bonus(s, command)
    d.emit(
        ev.CardsTraded(
            seat=command.seat,
            cards=tuple(cards),
            armies=s.mode.trade_value(s, symbols),
            bonus_territory=bonus_territory,
            bonus_armies=bonus,
        )
    )


def may_trade(s: State) -> bool:
    """Trades belong to the start of a turn; mid-turn only the forced ones.

    The reinforce phase comes back mid-turn only after an elimination (the
    turn has conquered by then), and 001_c708159c204162c3.txt says the
    trading then stops at 4 cards: "måste du sluta byta ut dem".
    """
    return not s.conquered or s.must_trade_until is not None


def _territory_bonus(s: State, command: TradeCards) -> tuple[str | None, int]:
    """+2 on one traded card's territory the player holds, once per turn."""
    pictured = [s.board.cards[c].territory for c in command.cards]
    held = [t for t in pictured if t is not None and s.controller(t) == command.seat]
    if command.bonus_territory is not None and command.bonus_territory not in held:
        raise violation(
            "invalid_bonus_territory",
            f"{command.bonus_territory!r} is not a territory of yours on the traded cards",
        )
    if not held or s.bonus_taken:
        return None, 0
    return command.bonus_territory or held[0], TERRITORY_BONUS


def place(d: Decision, command: PlaceArmies) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase != REINFORCE:
        raise violation("wrong_phase", f"armies are placed while reinforcing, not in {s.phase!r}")
    if s.must_trade_until is not None:
        held = len(s.hand(command.seat))
        raise violation("must_trade_cards", f"with {held} cards you must trade a set first")
    _check_placeable(s, command.seat, command.territory)
    left = s.reserve.get(command.seat, 0)
    if command.count > left:
        raise violation("too_many_armies", f"{command.count!r} armies; you have {left} to place")
    if command.count < 1:
        raise violation("invalid_count", f"place at least 1 army, not {command.count!r}")
    done = command.count == left and s.must_trade_until is None
    d.emit(
        ev.ArmiesPlaced(
            seat=command.seat,
            player=command.seat,
            territory=command.territory,
            count=command.count,
            next_phase=s.mode.phase_after(s, REINFORCE) if done else None,
        )
    )


def _check_placeable(s: State, seat: str, territory: str) -> None:
    """Reinforcements go where the mode says (``GameMode.placeable``): classic,
    the territories the seat controls."""
    mode = s.mode
    if "placeable" not in mode.overridden:
        check_owns(s, seat, territory)
        return
    check_territory(s, territory)
    if territory not in mode.placeable(s, seat):
        raise violation("not_your_territory", f"{seat!r} may not place armies on {territory!r}")


def count_reinforcements(state: State, seat: str) -> int:
    """max(3, territories // 3) + the bonus of every group held whole (docs/rules.md)."""
    owned = state.territories_of(seat)
    held = set(owned)
    bonus = sum(g.bonus for g in state.board.groups if g.territories <= held)
    return max(3, len(owned) // 3) + bonus
