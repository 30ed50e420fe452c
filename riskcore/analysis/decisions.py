"""Costly decisions: the move played against the best the strong bot finds.

At a decision the strong bot searches (placing reinforcements, attacking or
stopping, how many armies to move in), its candidates are the move played
and the alternatives it would weigh (``riskcore.bots.strong.candidates``).
Each is played out ``depth`` times to the end on the same dice (common
random numbers, as the bot compares its options), and the decision's cost is
the best alternative's win chance less the played move's, for the seat that
played it. An alternative counts only when it wins by more than one standard
error of the paired difference: with a few rollouts, the best of several
noisy means is often just the luckiest.

Only the turns where the mover's chance fell the most are searched
(``turns``), and in each at most ``per_turn`` decisions: judging every move
of a game would cost more than the rest of the analysis together.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from riskcore.analysis.positions import Move, Turn
from riskcore.analysis.rollouts import POLICY, play_out
from riskcore.bots.strong import SearchConfig, candidates
from riskcore.model.state import ATTACK, OCCUPY, REINFORCE
from riskcore.views.seatview import SeatView

SEARCHED = frozenset({REINFORCE, ATTACK, OCCUPY})
CONFIG = SearchConfig(clear_win=1.01)  # every attack is worth a look afterwards


def options(move: Move) -> list[dict[str, Any]]:
    """The played move first, then the strong bot's alternatives (none: nothing
    to judge, as in a phase it does not search or a decision with one answer)."""
    state = move.before
    if state.phase not in SEARCHED or state.current != move.seat:
        return []
    view = SeatView(state, move.seat)
    played = {k: v for k, v in move.body.items() if v is not None}
    found = candidates(POLICY, view, played, CONFIG)
    return found if len(found) > 1 else []


def judge(move: Move, key: bytes, depth: int) -> dict[str, Any] | None:
    """The move's cost in win-chance points against its best alternative, and
    that alternative (None when no alternative clearly beats it)."""
    found = options(move)
    if not found:
        return None
    scores: list[list[float]] = [[] for _ in found]
    for number in range(depth):
        label = f"decision/{move.version}/{number}"
        for i, option in enumerate(found):
            result = play_out(move.before.copy(), key, label, option)
            scores[i].append(result.get(move.seat, 0.0))
    best, gain = 0, 0.0
    for i in range(1, len(found)):
        margin = _sure_gain(scores[i], scores[0])
        if margin > gain:
            best, gain = i, margin
    if best == 0:
        return None
    return {
        "version": move.version,
        "seat": move.seat,
        "turn": move.before.turn,
        "phase": move.before.phase,
        "played": found[0],
        "better": found[best],
        "played_chance": round(_mean(scores[0]), 3),
        "better_chance": round(_mean(scores[best]), 3),
        "cost": round(_mean(scores[best]) - _mean(scores[0]), 3),
    }


def judge_turns(
    turns: list[Turn], key: bytes, depth: int, per_turn: int, tick: Callable[[], None]
) -> list[dict[str, Any]]:
    """The costly decisions of ``turns`` (at most ``per_turn`` judged in each)."""
    found: list[dict[str, Any]] = []
    for turn in turns:
        judged = 0
        for move in turn.moves:
            if judged == per_turn:
                break
            if move.seat != turn.seat or not options(move):
                continue
            judged += 1
            verdict = judge(move, key, depth)
            tick()
            if verdict is not None:
                found.append(verdict)
        for _ in range(judged, per_turn):
            tick()
    return found


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _sure_gain(option: list[float], base: list[float]) -> float:
    """Mean paired gain less one standard error (<= 0: not a clear gain)."""
    n = len(option)
    if n < 2:
        return 0.0
    diffs = [a - b for a, b in zip(option, base, strict=True)]
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean - math.sqrt(variance / n)
