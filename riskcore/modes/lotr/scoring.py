"""The Fellowship's progress and the score: the table, the ranking, a tie rolled off."""

from __future__ import annotations

from collections.abc import Mapping

from riskcore.engine.decision import Decision
from riskcore.model.state import State
from riskcore.modes import adventure
from riskcore.modes.lotr.protocol import STRONGHOLD_POINTS, TIE_DICE, ScoreTieRolled


def fellowship_step(state: State) -> int:
    return state.fellowship or 0


def fellowship_left(state: State) -> bool:
    return fellowship_step(state) >= len(state.board.path)


def adventure_points(state: State, seat: str) -> int:
    """Points of the adventure cards ``seat`` played: its power and mission cards."""
    return adventure.points_of(state, seat)


def score_table(state: State) -> dict[str, dict[str, int]]:
    """docs/rules.md (Lord of the Rings Risk, "The end"): per player, 1 point a territory,
    each whole region's bonus, 2 a stronghold, and the adventure points."""
    table = {}
    for seat in state.order:
        if not state.seats[seat].plays:
            continue
        held = set(state.territories_of(seat))
        regions = sum(g.bonus for g in state.board.groups if g.territories <= held)
        strongholds = sum(1 for t in state.board.strongholds if t in held)
        adventure = adventure_points(state, seat)
        table[seat] = {
            "territories": len(held),
            "regions": regions,
            "strongholds": strongholds,
            "adventure": adventure,
            "total": len(held) + regions + STRONGHOLD_POINTS * strongholds + adventure,
        }
    return table


def _standing(row: Mapping[str, int]) -> tuple[int, int, int, int]:
    """What ranks players, in the book's order: score, territories, strongholds, adventure."""
    return (row["total"], row["territories"], row["strongholds"], row["adventure"])


def ranking(state: State) -> list[str]:
    """The active players by final standing; a tie at the top goes to the dice winner."""
    table = score_table(state)
    players = [p for p in state.active_players() if p in table]
    tie_winner = state.mode_data.get("tie_winner")
    return sorted(
        players,
        key=lambda p: (
            tuple(-v for v in _standing(table[p])),
            p != tie_winner,
            state.order.index(p),
        ),
    )


def tied_at_top(state: State) -> list[str]:
    table = score_table(state)
    players = [p for p in state.active_players() if p in table]
    if not players:
        return []
    best = max(_standing(table[p]) for p in players)
    return [p for p in players if _standing(table[p]) == best]


def _break_a_tie(d: Decision) -> None:
    """docs/rules.md: players still level after adventure points roll three dice; the
    highest total wins, ties among the highest roll again."""
    level = tied_at_top(d.state)
    if len(level) < 2:
        return
    rounds: list[dict[str, list[int]]] = []
    while len(level) > 1:
        rolls = {seat: [d.rng.die() for _ in range(TIE_DICE)] for seat in level}
        rounds.append(rolls)
        best = max(sum(r) for r in rolls.values())
        level = [seat for seat in level if sum(rolls[seat]) == best]
    d.emit(ScoreTieRolled(rounds=tuple(rounds), winner=level[0]))
