"""Battle comparison and exact battle odds (docs/rules.md, "Attack"; the Lord of the Rings bonuses).

``compare_dice`` is the one place where a battle is decided: the rules engine
resolves real rolls with it, and every probability here is built on it, so
the odds can never drift from the game.

A *battle* is one roll; an *attack* is a run of battles against one
territory, both sides always rolling the most dice allowed, until the
territory falls or the attacker is down to ``stop_at`` attacking armies.
An attack is a Markov chain on (attacking armies, defending armies): every
battle removes at least one army, so one pass over the states in
decreasing order solves it exactly, with ``Fraction`` probabilities.

"Attacking armies" never include the army that must stay behind: a
territory holding 5 armies attacks with 4.

Inputs that make no sense (negative counts, dice out of range) raise
``ValueError`` naming the value: they are programming errors, not rule
violations, which the engine reports with its own error codes before it
gets here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType

__all__ = [
    "MAX_ATTACKER_DICE",
    "MAX_DEFENDER_DICE",
    "Odds",
    "attack_outcome",
    "compare_dice",
    "format_odds",
    "roll_outcomes",
    "to_json",
    "win_probability",
]

MAX_ATTACKER_DICE = 3
MAX_DEFENDER_DICE = 2
_FACES = range(1, 7)

# (attacker losses, defender losses, probability) for one battle.
_Roll = tuple[tuple[int, int, Fraction], ...]
# Everything but the army counts that changes the chain; the cache keys.
_Modifiers = tuple[int, int, int, int, bool, int]


def _check_at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value!r}")


def _check_dice_count(name: str, value: int, high: int) -> None:
    if not 1 <= value <= high:
        raise ValueError(f"{name} must be between 1 and {high}, got {value!r}")


def compare_dice(
    attacker_dice: Sequence[int],
    defender_dice: Sequence[int],
    attacker_bonus: int = 0,
    defender_bonus: int = 0,
) -> tuple[int, int]:
    """Decide one battle: return (attacker losses, defender losses).

    Both sides' dice are sorted high to low and compared in pairs; the lower
    die loses one army and a tie goes to the defender. A bonus (+1 for a
    leader, +1 for a stronghold, LotR) is added to that side's highest die
    only, so a die may count as 7 or 8. The dice may come in any order.
    """
    _check_dice_count("attacker dice count", len(attacker_dice), MAX_ATTACKER_DICE)
    _check_dice_count("defender dice count", len(defender_dice), MAX_DEFENDER_DICE)
    for die in (*attacker_dice, *defender_dice):
        if die not in _FACES:
            raise ValueError(f"a die shows 1 to 6, got {die!r}")
    _check_at_least("attacker_bonus", attacker_bonus, 0)
    _check_at_least("defender_bonus", defender_bonus, 0)
    attack = sorted(attacker_dice, reverse=True)
    defence = sorted(defender_dice, reverse=True)
    attack[0] += attacker_bonus
    defence[0] += defender_bonus
    defender_losses = sum(a > d for a, d in zip(attack, defence, strict=False))
    return min(len(attack), len(defence)) - defender_losses, defender_losses


@lru_cache(maxsize=256)
def _roll_table(
    attacker_dice: int, defender_dice: int, attacker_bonus: int, defender_bonus: int
) -> _Roll:
    """Every roll of the dice, counted: at most 6**5 = 7776 of them."""
    counts: dict[tuple[int, int], int] = {}
    for faces in itertools.product(_FACES, repeat=attacker_dice + defender_dice):
        losses = compare_dice(
            faces[:attacker_dice], faces[attacker_dice:], attacker_bonus, defender_bonus
        )
        counts[losses] = counts.get(losses, 0) + 1
    total = 6 ** (attacker_dice + defender_dice)
    return tuple((a, d, Fraction(n, total)) for (a, d), n in sorted(counts.items()))


def roll_outcomes(
    attacker_dice: int, defender_dice: int, attacker_bonus: int = 0, defender_bonus: int = 0
) -> dict[tuple[int, int], Fraction]:
    """Exact distribution of (attacker losses, defender losses) for one battle."""
    _check_dice_count("attacker_dice", attacker_dice, MAX_ATTACKER_DICE)
    _check_dice_count("defender_dice", defender_dice, MAX_DEFENDER_DICE)
    _check_at_least("attacker_bonus", attacker_bonus, 0)
    _check_at_least("defender_bonus", defender_bonus, 0)
    table = _roll_table(attacker_dice, defender_dice, attacker_bonus, defender_bonus)
    return {(a, d): p for a, d, p in table}


def _modifiers(
    attacker_bonus: int,
    defender_bonus: int,
    max_attacker_dice: int,
    max_defender_dice: int,
    defender_one_die_vs_one: bool,
    stop_at: int,
) -> _Modifiers:
    _check_at_least("attacker_bonus", attacker_bonus, 0)
    _check_at_least("defender_bonus", defender_bonus, 0)
    _check_dice_count("max_attacker_dice", max_attacker_dice, MAX_ATTACKER_DICE)
    _check_dice_count("max_defender_dice", max_defender_dice, MAX_DEFENDER_DICE)
    _check_at_least("stop_at", stop_at, 0)
    return (
        attacker_bonus,
        defender_bonus,
        max_attacker_dice,
        max_defender_dice,
        bool(defender_one_die_vs_one),
        stop_at,
    )


def _dice(attackers: int, defenders: int, modifiers: _Modifiers) -> tuple[int, int]:
    """How many dice each side rolls here: the most allowed."""
    _, _, max_attack, max_defence, one_vs_one, _ = modifiers
    attacker_dice = min(max_attack, attackers)
    defender_dice = 1 if one_vs_one and attacker_dice == 1 else min(max_defence, defenders)
    return attacker_dice, defender_dice


def _battle(attackers: int, defenders: int, modifiers: _Modifiers) -> _Roll:
    return _roll_table(*_dice(attackers, defenders, modifiers), modifiers[0], modifiers[1])


def _frozen(distribution: dict[int, Fraction]) -> Mapping[int, Fraction]:
    return MappingProxyType(dict(sorted(distribution.items())))


def _expected(distribution: Mapping[int, Fraction]) -> Fraction:
    return sum((count * p for count, p in distribution.items()), Fraction(0))


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact result of an attack of ``attackers`` on ``defenders``.

    ``attacker_remaining`` is the distribution of attacking armies left when
    the attack ends (0 after a failed all-out attack, at most ``stop_at``
    after one that stopped early); ``defender_remaining`` is that of the
    defending armies (0 when the territory fell). Both are read-only, since
    results are cached and shared.
    """

    attackers: int
    defenders: int
    win: Fraction
    attacker_remaining: Mapping[int, Fraction] = field(hash=False)
    defender_remaining: Mapping[int, Fraction] = field(hash=False)

    @property
    def expected_attacker_remaining(self) -> Fraction:
        return _expected(self.attacker_remaining)

    @property
    def expected_defender_remaining(self) -> Fraction:
        return _expected(self.defender_remaining)

    @property
    def expected_attacker_losses(self) -> Fraction:
        return self.attackers - self.expected_attacker_remaining

    @property
    def expected_defender_losses(self) -> Fraction:
        return self.defenders - self.expected_defender_remaining


@lru_cache(maxsize=4096)
def _attack_outcome(attackers: int, defenders: int, modifiers: _Modifiers) -> Odds:
    """Push probability mass forward through the states, biggest first.

    A battle moves (a, d) to (a - x, d - y) with x + y >= 1, so visiting
    rows of ``a`` downwards and, within a row, ``d`` downwards reaches every
    state after all the states that lead into it.
    """
    stop_at = modifiers[5]
    mass = [[Fraction(0)] * (defenders + 1) for _ in range(attackers + 1)]
    mass[attackers][defenders] = Fraction(1)
    attacker_end: dict[int, Fraction] = {}
    defender_end: dict[int, Fraction] = {}
    for a in range(attackers, -1, -1):
        for d in range(defenders, -1, -1):
            p = mass[a][d]
            if not p:
                continue
            if d == 0 or a <= stop_at:
                attacker_end[a] = attacker_end.get(a, Fraction(0)) + p
                defender_end[d] = defender_end.get(d, Fraction(0)) + p
                continue
            for lost_a, lost_d, q in _battle(a, d, modifiers):
                mass[a - lost_a][d - lost_d] += p * q
    return Odds(
        attackers=attackers,
        defenders=defenders,
        win=defender_end.get(0, Fraction(0)),
        attacker_remaining=_frozen(attacker_end),
        defender_remaining=_frozen(defender_end),
    )


def attack_outcome(
    attackers: int,
    defenders: int,
    *,
    attacker_bonus: int = 0,
    defender_bonus: int = 0,
    max_attacker_dice: int = MAX_ATTACKER_DICE,
    max_defender_dice: int = MAX_DEFENDER_DICE,
    defender_one_die_vs_one: bool = False,
    stop_at: int = 0,
) -> Odds:
    """Exact odds of an attack (a blitz) until the territory falls or stops.

    ``attackers`` counts the armies able to attack (the one that stays
    behind is not counted); ``defenders`` is at least 1, as every territory
    always holds an army. The attacker stops once its attacking armies are
    ``stop_at`` or fewer. ``defender_one_die_vs_one`` is the LotR rule: if
    the attacker rolls one die, the defender may roll only one. Results are
    cached per (attackers, defenders, modifiers).
    """
    _check_at_least("attackers", attackers, 0)
    _check_at_least("defenders", defenders, 1)
    modifiers = _modifiers(
        attacker_bonus,
        defender_bonus,
        max_attacker_dice,
        max_defender_dice,
        defender_one_die_vs_one,
        stop_at,
    )
    return _attack_outcome(attackers, defenders, modifiers)


# Float tables for bots: one per modifiers, rows = attackers, columns =
# defenders; grown (by doubling) when a bigger army is asked about. A 32x32
# table is about 10 kB and games use a handful of modifier sets.
_WIN_TABLES: dict[_Modifiers, list[list[float]]] = {}
_MIN_TABLE_SIZE = 32


def _win_table(rows: int, columns: int, modifiers: _Modifiers) -> list[list[float]]:
    """Win probability of every state, smallest first (floats, same chain).

    A state only leads to states with fewer armies, already in the table or,
    when the attacker loses nothing, earlier in the row being filled.
    """
    stop_at = modifiers[5]
    float_rolls: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    table: list[list[float]] = []
    for a in range(rows):
        row = [1.0] + [0.0] * (columns - 1)
        for d in range(1, columns if a > stop_at else 1):
            dice = _dice(a, d, modifiers)
            if dice not in float_rolls:
                roll = _roll_table(*dice, modifiers[0], modifiers[1])
                float_rolls[dice] = [(x, y, float(q)) for x, y, q in roll]
            row[d] = sum(q * (table[a - x] if x else row)[d - y] for x, y, q in float_rolls[dice])
        table.append(row)
    return table


def _size(current: int, needed: int) -> int:
    return current if needed < current else max(_MIN_TABLE_SIZE, 2 * needed)


def _grow(attackers: int, defenders: int, modifiers: _Modifiers) -> list[list[float]]:
    old = _WIN_TABLES.get(modifiers)
    rows = _size(len(old) if old else 0, attackers)
    columns = _size(len(old[0]) if old else 0, defenders)
    table = _win_table(rows, columns, modifiers)
    _WIN_TABLES[modifiers] = table
    return table


def win_probability(
    attackers: int,
    defenders: int,
    *,
    attacker_bonus: int = 0,
    defender_bonus: int = 0,
    max_attacker_dice: int = MAX_ATTACKER_DICE,
    max_defender_dice: int = MAX_DEFENDER_DICE,
    defender_one_die_vs_one: bool = False,
    stop_at: int = 0,
) -> float:
    """``attack_outcome(...).win`` as a float, by table lookup after warm-up.

    Meant for bots in a hot loop: the first call for a set of modifiers (or
    for a bigger army than before) builds a table; later calls only index it.
    """
    if attackers < 0 or defenders < 1:  # checked on every call: -1 would index the last row
        _check_at_least("attackers", attackers, 0)
        _check_at_least("defenders", defenders, 1)
    key = (
        attacker_bonus,
        defender_bonus,
        max_attacker_dice,
        max_defender_dice,
        defender_one_die_vs_one,
        stop_at,
    )
    table = _WIN_TABLES.get(key)
    if table is None or attackers >= len(table) or defenders >= len(table[0]):
        table = _grow(attackers, defenders, _modifiers(*key))
    return table[attackers][defenders]


def _probability_json(p: Fraction) -> dict[str, object]:
    return {"fraction": f"{p.numerator}/{p.denominator}", "float": float(p)}


def _distribution_json(distribution: Mapping[int, Fraction]) -> dict[str, object]:
    return {str(count): _probability_json(p) for count, p in distribution.items()}


def to_json(odds: Odds) -> dict[str, object]:
    """A JSON-ready dict for ``risk odds A D --json``; counts become string keys."""
    return {
        "attackers": odds.attackers,
        "defenders": odds.defenders,
        "win": _probability_json(odds.win),
        "attacker_remaining": _distribution_json(odds.attacker_remaining),
        "defender_remaining": _distribution_json(odds.defender_remaining),
    }


def _distribution_lines(title: str, distribution: Mapping[int, Fraction]) -> Iterable[str]:
    yield title
    for count, p in distribution.items():
        yield f"  {count:>4}  {float(p):7.2%}"


def format_odds(odds: Odds) -> str:
    """The plain-text report of ``risk odds A D``."""
    lines = [
        f"{odds.attackers} attacking vs {odds.defenders} defending",
        f"win: {float(odds.win):.2%} ({odds.win.numerator}/{odds.win.denominator})",
        f"expected losses: attacker {float(odds.expected_attacker_losses):.2f}, "
        f"defender {float(odds.expected_defender_losses):.2f}",
        *_distribution_lines("attacking armies left:", odds.attacker_remaining),
        *_distribution_lines("defending armies left:", odds.defender_remaining),
    ]
    return "\n".join(lines)
