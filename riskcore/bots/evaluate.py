"""How good a position is for one seat: the score rollouts end on.

A player's strength is what it has on the board plus what it will get:
armies, plus income (territories / 3, continent bonuses) counted over a few
turns, plus cards at a share of the next set's value. The score is this
seat's share of the total strength of the players still in, 1 for a win
and 0 once out. A share (rather than a difference) keeps three- to
six-player games on one scale and values weakening any rival.
"""

from __future__ import annotations

from dataclasses import dataclass

from riskcore.bots import end_score, mission_progress
from riskcore.model.state import State
from riskcore.protocol.frozen import copied_by_constructor


@dataclass(frozen=True, slots=True)
class Weights:
    income_turns: float = 3.0  # how many turns of income a position is worth now
    card_share: float = 1 / 3  # a card is worth this share of the next set's armies
    card_floor: float = 2.0  # and at least this many armies
    # The mission games: the score's share that is the progress along the seat's
    # own missions (``mission_progress``), the rest its share of the strength.
    mission: float = 0.0
    # Games that end on points (Lord of the Rings): the score's share that is the
    # seat's share of the points, at most this much, reached as the end nears
    # (``end_score``: in proportion to the Fellowship's way along its path).
    points: float = 0.0


copied_by_constructor(Weights)  # the strong bot's weights go to worker processes
DEFAULT_WEIGHTS = Weights()


def card_armies(state: State, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """What one card in hand is worth now, in armies."""
    next_set = state.rules.trade_value(state.sets_traded, ("infantry",) * 3)
    return max(weights.card_floor, weights.card_share * next_set)


def strengths(state: State, weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
    """Each active player's strength, in armies."""
    players = state.active_players()
    armies = dict.fromkeys(players, 0)
    territories = dict.fromkeys(players, 0)
    held: dict[str, set[str]] = {p: set() for p in players}
    for (_, player), count in state.armies.items():
        if player in armies:
            armies[player] += count
    for territory, holder in state.owner.items():
        if holder in territories:
            territories[holder] += 1
            held[holder].add(territory)
    card = card_armies(state, weights)
    result = {}
    for p in players:
        bonus = sum(g.bonus for g in state.board.groups if g.territories <= held[p])
        income = max(3, territories[p] // 3) + bonus
        result[p] = strength(armies[p], income, len(state.hand(p)), card, weights)
    return result


def strength(
    armies: int, income: int, cards: int, card: float, weights: Weights = DEFAULT_WEIGHTS
) -> float:
    """One player's strength, in armies: what it has, ``weights.income_turns`` turns
    of its income, and its cards at ``card`` armies each."""
    return armies + weights.income_turns * income + card * cards


def evaluate(state: State, seat: str, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """``seat``'s share of the strength in play, its team-mates' counted with its
    own where seats play in teams: 1 won (alone or with its team), 0 out."""
    if state.winners:
        return 1.0 if seat in state.winners else 0.0
    if state.winner is not None:
        return 1.0 if state.winner == seat else 0.0
    if not state.is_active(seat):
        return 0.0
    power = strengths(state, weights)
    total = sum(power.values())
    seats = state.seats
    team = seats[seat].team
    ours = sum(v for p, v in power.items() if p == seat or (team and seats[p].team == team))
    share = ours / total if total > 0 else 0.0
    if weights.mission:
        done = mission_progress.progress(state, seat)
        if done is not None:
            return (1 - weights.mission) * share + weights.mission * done
    if weights.points:
        standing = end_score.standing(state, seat)
        if standing is not None:
            points, near = standing
            part = weights.points * near
            return (1 - part) * share + part * points
    return share
