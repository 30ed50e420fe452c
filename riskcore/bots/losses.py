"""Expected army losses of a blitz, as floats for bots in a hot loop.

``riskcore.odds`` gives the exact win probability; pricing an attack also
needs what it costs. This solves the same Markov chain (both sides rolling
the most dice, built on ``riskcore.odds.roll_outcomes`` so it cannot drift
from the rules) for the expected losses of each side, in float tables
grown by doubling and cached per ``stop_at``, like ``win_probability``.
"""

from __future__ import annotations

from riskcore.odds import MAX_ATTACKER_DICE, MAX_DEFENDER_DICE, roll_outcomes

_Table = list[list[tuple[float, float]]]
_TABLES: dict[int, _Table] = {}
_ROLLS: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
_MIN_SIZE = 32


def _roll(attacker_dice: int, defender_dice: int) -> list[tuple[int, int, float]]:
    key = (attacker_dice, defender_dice)
    roll = _ROLLS.get(key)
    if roll is None:
        outcomes = roll_outcomes(attacker_dice, defender_dice)
        roll = _ROLLS[key] = [(a, d, float(p)) for (a, d), p in outcomes.items()]
    return roll


def _build(rows: int, columns: int, stop_at: int) -> _Table:
    """(attacker losses, defender losses) expected from every (a, d), smallest first."""
    table: _Table = []
    for a in range(rows):
        row = [(0.0, 0.0)] * columns
        if a > stop_at:
            for d in range(1, columns):
                roll = _roll(min(MAX_ATTACKER_DICE, a), min(MAX_DEFENDER_DICE, d))
                lost_a = lost_d = 0.0
                for x, y, q in roll:
                    rest_a, rest_d = (table[a - x] if x else row)[d - y]
                    lost_a += q * (x + rest_a)
                    lost_d += q * (y + rest_d)
                row[d] = (lost_a, lost_d)
        table.append(row)
    return table


def expected_losses(attackers: int, defenders: int, stop_at: int = 0) -> tuple[float, float]:
    """Expected (attacker, defender) losses of an attack of ``attackers`` attacking
    armies on ``defenders``, stopping at ``stop_at`` attacking armies (as in odds)."""
    if attackers < 0 or defenders < 0 or stop_at < 0:
        raise ValueError(f"bad attack {attackers!r} on {defenders!r} stopping at {stop_at!r}")
    table = _TABLES.get(stop_at)
    if table is None or attackers >= len(table) or defenders >= len(table[0]):
        rows = max(_MIN_SIZE, 2 * attackers, len(table) if table else 0)
        columns = max(_MIN_SIZE, 2 * defenders, len(table[0]) if table else 0)
        table = _TABLES[stop_at] = _build(rows, columns, stop_at)
    return table[attackers][defenders]
