"""Battle comparison and exact odds (docs/rules.md, "Attack"; "Lord of the Rings Risk": leaders and
strongholds).

The published figures live in ``data/battle-odds.txt``, a copy of
the reference ``battle-odds.txt`` (not in this repository) kept here so that a clean
checkout can run these tests; when the shared folder is next to the
checkout, a test checks that the copy has not drifted.
"""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riskcore.rules.odds import (
    attack_outcome,
    compare_dice,
    format_odds,
    roll_outcomes,
    to_json,
    win_probability,
)

DATA = Path(__file__).parent / "data" / "battle-odds.txt"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "reference" / "battle-odds.txt"

OneRoll = dict[tuple[int, int], dict[tuple[int, int], Fraction]]


def _parse(
    text: str,
) -> tuple[OneRoll, dict[tuple[int, int], Fraction], dict[tuple[int, int], str]]:
    """One-roll distributions, exact whole-attack wins, and the rounded table."""
    one_roll: OneRoll = {}
    exact: dict[tuple[int, int], Fraction] = {}
    rounded: dict[tuple[int, int], str] = {}
    for line in text.splitlines():
        if match := re.match(r"(\d)v(\d)\s", line):
            pairs = re.findall(r"\((\d),(\d)\)\s+(\d+/\d+)", line)
            dice = (int(match[1]), int(match[2]))
            one_roll[dice] = {(int(a), int(d)): Fraction(p) for a, d, p in pairs}
        elif match := re.match(r"P\(A=(\d+),D=(\d+)\) = (\d+/\d+)$", line):
            exact[int(match[1]), int(match[2])] = Fraction(match[3])
        elif match := re.match(r"A(\d+)\s+(.*)$", line):
            for column, value in enumerate(match[2].split(), start=1):
                rounded[int(match[1]), column] = value
    return one_roll, exact, rounded


ONE_ROLL, EXACT, ROUNDED = _parse(DATA.read_text())


def test_the_data_file_holds_every_figure() -> None:
    """Guards the parametrised tests below: a truncated file must not pass quietly."""
    assert sorted(ONE_ROLL) == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    assert all(len(outcomes) == min(dice) + 1 for dice, outcomes in ONE_ROLL.items())
    assert len(EXACT) == 6
    assert sorted(ROUNDED) == [(a, d) for a in range(1, 11) for d in range(1, 11)]


def test_the_data_file_is_a_faithful_copy_of_the_shared_reference() -> None:
    if not SHARED.exists():
        pytest.skip(f"no shared reference at {SHARED}")
    assert DATA.read_text() == SHARED.read_text()


# --- one battle ----------------------------------------------------------


@pytest.mark.parametrize("value", range(1, 7))
def test_ties_go_to_the_defender(value: int) -> None:
    """Seed 000 (2006 Swedish book), "Stridens förlopp": "Viktigt! Om det blir
    oavgjort vinner ALLTID försvararen." Also seed 002 ("Om det är samma summa
    vinner försvararen") and seed 004 ("Ties gå til forsvareren")."""
    assert compare_dice([value], [value]) == (1, 0)
    assert compare_dice([value, value, 1], [value, value]) == (2, 0)


@pytest.mark.parametrize("attacker", [[3, 2], [2, 3], [3, 2, 1], [1, 3, 2], [2, 3, 2]])
def test_the_rule_book_example_three_two_against_six_two(attacker: list[int]) -> None:
    """Seed 000 (2006 Swedish book), "Ta bort besegrade arméer": "Blå
    (angriparen) kastar 3 och 2. Röd (försvararen) kastar 6 och 2." 3 < 6
    and the 2-2 tie goes to the defender, so blue removes two armies. A third
    attacking die no higher than 2 (here 1 or 2) leaves the comparison alone."""
    assert compare_dice(attacker, [6, 2]) == (2, 0)
    assert compare_dice(attacker, [2, 6]) == (2, 0)


def test_only_as_many_pairs_as_the_smaller_side_rolled() -> None:
    """docs/rules.md, "Attack": at most 2 armies are lost per roll; one defending die, one loss."""
    # rule: 000-compare-highest
    # rule: 001-max-two
    # rule: 003-second-pair
    assert compare_dice([6, 6, 6], [1]) == (0, 1)
    assert compare_dice([1], [6, 6]) == (1, 0)
    assert compare_dice([6, 1, 1], [5, 5]) == (1, 1)


def test_a_bonus_goes_on_the_highest_die_only() -> None:
    """Seed 002 (LotR), LEDARE: "kan du lägga till +[1] till det högsta
    tärningskastet"; BEFÄSTNINGAR: +1 on the defender's highest die."""
    assert compare_dice([6], [6], attacker_bonus=1) == (0, 1)  # 7 beats 6
    assert compare_dice([6], [5], defender_bonus=1) == (1, 0)  # 6 ties 5+1
    assert compare_dice([5, 5], [5, 4], attacker_bonus=1) == (0, 2)
    assert compare_dice([6, 4], [5, 4], attacker_bonus=1) == (1, 1)  # 4 stays 4
    assert compare_dice([5, 5], [5, 5], defender_bonus=2) == (2, 0)


@given(
    attacker=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    defender=st.lists(st.integers(1, 6), min_size=1, max_size=2),
    bonuses=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    data=st.data(),
)
def test_a_battle_ignores_dice_order_and_loses_one_army_per_pair(
    attacker: list[int], defender: list[int], bonuses: tuple[int, int], data: st.DataObject
) -> None:
    # rule: 000-second-pair
    # rule: 003-compare
    # rule: 004-losses
    losses = compare_dice(attacker, defender, *bonuses)
    assert sum(losses) == min(len(attacker), len(defender))
    shuffled = data.draw(st.permutations(attacker)), data.draw(st.permutations(defender))
    assert compare_dice(*shuffled, *bonuses) == losses


@pytest.mark.parametrize("dice", sorted(ONE_ROLL))
def test_one_roll_matches_the_published_fractions(dice: tuple[int, int]) -> None:
    assert roll_outcomes(*dice) == ONE_ROLL[dice]


@pytest.mark.parametrize("bonuses", [(0, 0), (1, 0), (0, 1), (1, 2), (2, 1), (7, 0)])
@pytest.mark.parametrize("dice", list(itertools.product((1, 2, 3), (1, 2))))
def test_one_roll_probabilities_sum_to_one(dice: tuple[int, int], bonuses: tuple[int, int]) -> None:
    outcomes = roll_outcomes(*dice, *bonuses)
    assert sum(outcomes.values()) == 1
    assert all(a + d == min(dice) for a, d in outcomes)


def test_a_bonus_may_push_a_die_past_six() -> None:
    assert roll_outcomes(1, 2, attacker_bonus=6) == {(0, 1): Fraction(1)}  # 7..12 beats any die
    assert roll_outcomes(1, 1, defender_bonus=5) == {(1, 0): Fraction(1)}  # 6..11 holds
    assert roll_outcomes(1, 1, attacker_bonus=1)[0, 1] == Fraction(21, 36)  # wins unless lower


def test_roll_outcomes_returns_a_fresh_dict_each_call() -> None:
    roll_outcomes(1, 1).clear()
    assert roll_outcomes(1, 1) == {(0, 1): Fraction(15, 36), (1, 0): Fraction(21, 36)}


# --- a whole attack ---------------------------------------------------------


@pytest.mark.parametrize("armies", sorted(EXACT))
def test_whole_attack_matches_the_published_fractions(armies: tuple[int, int]) -> None:
    assert attack_outcome(*armies).win == EXACT[armies]


@pytest.mark.parametrize("armies", sorted(ROUNDED))
def test_whole_attack_matches_the_published_table(armies: tuple[int, int]) -> None:
    """The table is rounded to three decimals ("1.00" for .9995 and over)."""
    win = attack_outcome(*armies).win
    assert abs(win - Fraction(ROUNDED[armies])) <= Fraction(1, 2000)
    assert win_probability(*armies) == pytest.approx(float(win), abs=1e-12)


@pytest.mark.parametrize("stop_at", [0, 2])
@pytest.mark.parametrize("armies", [(1, 1), (3, 2), (7, 4), (10, 10), (25, 5)])
def test_whole_attack_distributions_are_consistent(armies: tuple[int, int], stop_at: int) -> None:
    odds = attack_outcome(*armies, stop_at=stop_at)
    assert sum(odds.attacker_remaining.values()) == 1
    assert sum(odds.defender_remaining.values()) == 1
    assert odds.defender_remaining.get(0, Fraction(0)) == odds.win
    failed = sum(p for a, p in odds.attacker_remaining.items() if a <= stop_at)
    assert failed == 1 - odds.win


def test_expected_losses_of_one_against_one() -> None:
    odds = attack_outcome(1, 1)
    assert odds.attacker_remaining == {0: Fraction(7, 12), 1: Fraction(5, 12)}
    assert odds.expected_attacker_losses == Fraction(7, 12)
    assert odds.expected_defender_losses == Fraction(5, 12)


def test_results_are_cached_and_read_only() -> None:
    odds = attack_outcome(10, 10)
    assert attack_outcome(10, 10) is odds
    with pytest.raises(TypeError):
        odds.attacker_remaining[0] = Fraction(1)  # type: ignore[index]
    assert hash(odds) == hash(attack_outcome(10, 10))


def test_fewer_dice_allowed() -> None:
    """With one attacking die against one defender, three tries must all fail."""
    assert attack_outcome(3, 1, max_attacker_dice=1).win == 1 - Fraction(7, 12) ** 3
    assert attack_outcome(2, 2, max_defender_dice=1).win > attack_outcome(2, 2).win


def test_lotr_one_die_against_one() -> None:
    """Seed 002 (LotR), SÅ HÄR FÖRSVARAR DU: "Om anfallaren bara slår en
    tärning, kan du som försvarare också bara slå en tärning." One attacking
    army against two then has to win two 1-v-1 rolls."""
    assert attack_outcome(1, 2, defender_one_die_vs_one=True).win == Fraction(5, 12) ** 2
    assert attack_outcome(1, 2).win == Fraction(55, 216) * Fraction(5, 12)


GRID = list(itertools.product(range(1, 7), range(1, 7)))


@pytest.mark.parametrize("armies", GRID)
def test_modifiers_shift_the_odds_the_right_way(armies: tuple[int, int]) -> None:
    """Seed 002 (LotR): a leader adds +1 to its side's highest die, a
    stronghold +1 to the defender's, both together +2."""
    plain = attack_outcome(*armies).win
    assert attack_outcome(*armies, attacker_bonus=1).win > plain
    assert plain > attack_outcome(*armies, defender_bonus=1).win
    assert (
        attack_outcome(*armies, defender_bonus=1).win
        > attack_outcome(*armies, defender_bonus=2).win
    )
    assert attack_outcome(*armies, defender_one_die_vs_one=True).win >= plain
    assert attack_outcome(*armies, stop_at=1).win < plain


def test_stop_at_ends_the_attack_early() -> None:
    odds = attack_outcome(5, 3, stop_at=2)
    assert min(odds.attacker_remaining) == 1  # 3 attackers can lose 2 at once
    assert attack_outcome(5, 3).win > odds.win
    not_started = attack_outcome(2, 3, stop_at=2)
    assert not_started.win == 0
    assert not_started.attacker_remaining == {2: 1}
    assert not_started.defender_remaining == {3: 1}


# --- against a brute force ---------------------------------------------------


@cache
def _brute_battle(
    attacker_dice: int, defender_dice: int, attacker_bonus: int, defender_bonus: int
) -> dict[tuple[int, int], Fraction]:
    """Every face of every die, compared without riskcore's code."""
    weight = Fraction(1, 6 ** (attacker_dice + defender_dice))
    result: dict[tuple[int, int], Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=attacker_dice + defender_dice):
        attack = sorted(faces[:attacker_dice], reverse=True)
        defence = sorted(faces[attacker_dice:], reverse=True)
        attack[0] += attacker_bonus
        defence[0] += defender_bonus
        pairs = list(zip(attack, defence, strict=False))
        losses = (sum(a <= d for a, d in pairs), sum(a > d for a, d in pairs))
        result[losses] = result.get(losses, Fraction(0)) + weight
    return result


@cache
def _brute_attack(
    a: int, d: int, bonuses: tuple[int, int], most: tuple[int, int], lotr: bool, stop_at: int
) -> dict[tuple[int, int], Fraction]:
    """Recursive: the distribution of (attackers, defenders) when the attack ends."""
    if d == 0 or a <= stop_at:
        return {(a, d): Fraction(1)}
    attacker_dice = min(most[0], a)
    defender_dice = 1 if lotr and attacker_dice == 1 else min(most[1], d)
    ends: dict[tuple[int, int], Fraction] = {}
    for (lost_a, lost_d), p in _brute_battle(attacker_dice, defender_dice, *bonuses).items():
        for end, q in _brute_attack(a - lost_a, d - lost_d, bonuses, most, lotr, stop_at).items():
            ends[end] = ends.get(end, Fraction(0)) + p * q
    return ends


@settings(deadline=None, max_examples=60)
@given(
    a=st.integers(0, 7),
    d=st.integers(1, 7),
    bonuses=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    most=st.tuples(st.integers(1, 3), st.integers(1, 2)),
    lotr=st.booleans(),
    stop_at=st.integers(0, 3),
)
def test_markov_chain_agrees_with_brute_force(
    a: int, d: int, bonuses: tuple[int, int], most: tuple[int, int], lotr: bool, stop_at: int
) -> None:
    options: dict[str, Any] = {
        "attacker_bonus": bonuses[0],
        "defender_bonus": bonuses[1],
        "max_attacker_dice": most[0],
        "max_defender_dice": most[1],
        "defender_one_die_vs_one": lotr,
        "stop_at": stop_at,
    }
    odds = attack_outcome(a, d, **options)
    ends = _brute_attack(a, d, bonuses, most, lotr, stop_at)
    attacker_end: dict[int, Fraction] = {}
    defender_end: dict[int, Fraction] = {}
    for (end_a, end_d), p in ends.items():
        attacker_end[end_a] = attacker_end.get(end_a, Fraction(0)) + p
        defender_end[end_d] = defender_end.get(end_d, Fraction(0)) + p
    assert odds.win == defender_end.get(0, 0)
    assert odds.attacker_remaining == attacker_end
    assert odds.defender_remaining == defender_end
    assert win_probability(a, d, **options) == pytest.approx(float(odds.win), abs=1e-12)


# --- the float fast path -------------------------------------------------------


def test_win_probability_grows_its_table_for_big_armies() -> None:
    for armies in [(3, 2), (150, 4), (6, 300), (150, 300), (2, 2)]:
        exact = attack_outcome(*armies, attacker_bonus=1).win
        assert win_probability(*armies, attacker_bonus=1) == pytest.approx(float(exact), abs=1e-9)


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: compare_dice([], [1]), "0"),
        (lambda: compare_dice([1, 2, 3, 4], [1]), "4"),
        (lambda: compare_dice([1], [1, 2, 3]), "3"),
        (lambda: compare_dice([7], [1]), "7"),
        (lambda: compare_dice([1], [0]), "0"),
        (lambda: compare_dice([1], [1], attacker_bonus=-1), "-1"),
        (lambda: roll_outcomes(4, 2), "4"),
        (lambda: roll_outcomes(3, 0), "0"),
        (lambda: roll_outcomes(1, 1, defender_bonus=-2), "-2"),
        (lambda: attack_outcome(-1, 3), "-1"),
        (lambda: attack_outcome(3, 0), "0"),
        (lambda: attack_outcome(3, 3, max_attacker_dice=4), "4"),
        (lambda: attack_outcome(3, 3, max_defender_dice=0), "0"),
        (lambda: attack_outcome(3, 3, stop_at=-5), "-5"),
        (lambda: win_probability(-3, 3), "-3"),
        (lambda: win_probability(3, -9), "-9"),
        (lambda: win_probability(3, 3, max_defender_dice=3), "3"),
        (lambda: win_probability(3, 3, attacker_bonus=-4), "-4"),
    ],
)
def test_bad_input_is_named_in_the_error(call: Any, named: str) -> None:
    with pytest.raises(ValueError, match=rf"got {re.escape(named)}$"):
        call()


# --- output for the CLI --------------------------------------------------------


def test_json_shape() -> None:
    document = json.loads(json.dumps(to_json(attack_outcome(3, 2))))
    assert document["attackers"] == 3
    assert document["defenders"] == 2
    assert document["win"] == {"fraction": "6610505/10077696", "float": 6610505 / 10077696}
    assert sorted(document["attacker_remaining"]) == ["0", "1", "2", "3"]
    assert sorted(document["defender_remaining"]) == ["0", "1", "2"]
    assert document["defender_remaining"]["0"] == document["win"]
    assert to_json(attack_outcome(0, 1))["win"] == {"fraction": "0/1", "float": 0.0}


def test_text_report() -> None:
    lines = format_odds(attack_outcome(1, 1)).splitlines()
    assert lines[:2] == ["1 attacking vs 1 defending", "win: 41.67% (5/12)"]
    assert "     0   58.33%" in lines
