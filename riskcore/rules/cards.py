"""Card sets (docs/rules.md, "Card trades"): what makes a set, and what is in a hand."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from riskcore.boards.board import WILD, Board


def is_set(symbols: Sequence[str]) -> bool:
    """Three of one symbol, one of each of three symbols, or any two plus a wild."""
    if len(symbols) != 3:
        return False
    plain = [s for s in symbols if s != WILD]
    if len(plain) < 3:
        return True
    return len(set(plain)) in (1, 3)


def sets_in_hand(board: Board, hand: Sequence[int]) -> list[tuple[int, int, int]]:
    """Every distinct set (as sorted card ids) a hand can trade."""
    found = []
    for combo in combinations(sorted(hand), 3):
        if is_set([board.cards[c].symbol for c in combo]):
            found.append((combo[0], combo[1], combo[2]))
    return found
