"""Who wins from here: each player's chance, from a few numbers read off the board.

The strong bot's rollouts end where its next turn starts, and the score it
ends on decides between its options. A share of the players' strength (the
``evaluate`` module) says who has the most, not who is about to be put out
or about to put someone out: in classic games with growing card sets the
seat that takes a card-rich rival's hand mostly wins, and a seat that is a
cheap prize is mostly lost. This model reads, for each player still in, its
strength and income against the others', its cards, whether it moves next,
how near a rival is to putting it out and how near it is to putting a rival
out, and gives each player ``exp(weights · features)`` over the sum of all
of them (a conditional logit: the chances add up to one).

Its weights are fitted on games played here (``scripts/fit_win_model.py``,
which plays and reads them; docs/bots.md has the data and the fit). The
features use only what every seat sees, plus card counts (public).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from riskcore.bots.evaluate import card_armies, strengths
from riskcore.bots.plan import loss
from riskcore.model.state import State
from riskcore.mypyc_hints import copied_by_constructor

# The names of the features, in the order ``features`` gives them.
FEATURES = (
    "strength",  # log of the player's strength over the mean of the players in
    "armies",  # log of its armies over the mean
    "income",  # its income over the mean
    "cards",  # cards in hand, in sets (a third each)
    "card_armies",  # its cards' worth in armies over the mean armies
    "to_move",  # 1 for the player whose turn starts
    "next",  # 1 for the player after it
    "exposure",  # the most a rival can strike with over what putting it out costs (capped)
    "prize",  # exposure times its cards, in sets: a cheap seat with cards is hunted
    "reach",  # its striking power over the cheapest rival's cost (capped)
    "bounty",  # the most, over the rivals, of its reach to one times that one's cards, in sets
)
# A striking power this many times a seat's cost counts no more (the seat is out).
CAP = 3.0


@dataclass(frozen=True, slots=True)
class WinModel:
    """Weights for ``FEATURES``, fitted by ``scripts/fit_win_model.py``."""

    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"a win model needs {len(FEATURES)} weights, not {len(self.weights)}")


copied_by_constructor(WinModel)  # the strong bot's options go to worker processes

# Fitted on 2,000 classic four-player games of the heuristic in every seat
# (``scripts/fit_win_model.py --self-play 2000``; docs/bots.md, "The win model").
CLASSIC = WinModel(
    weights=(2.0427, 0.5576, -0.4596, 0.852, 0.2841, 0.6939, 0.3516, 0.0577, -0.1497, -0.065, 0.11)
)
# The models the strong bot's ``score`` option names.
MODELS = {"classic": CLASSIC}


def features(state: State) -> dict[str, tuple[float, ...]]:
    """Each active player's features (``FEATURES``), read from ``state``."""
    players = state.active_players()
    armies = dict.fromkeys(players, 0)
    territories = dict.fromkeys(players, 0)
    cost = dict.fromkeys(players, 0.0)
    held: dict[str, set[str]] = {p: set() for p in players}
    for territory, holder in state.owner.items():
        if holder in territories:
            count = state.troops(territory)
            territories[holder] += 1
            armies[holder] += count
            cost[holder] += loss(count) + 1.0
            held[holder].add(territory)
    next_set = state.rules.trade_value(state.sets_traded, ("infantry",) * 3)
    card = card_armies(state)
    hands = {p: len(state.hand(p)) for p in players}
    income = {}
    for p in players:
        bonus = sum(g.bonus for g in state.board.groups if g.territories <= held[p])
        income[p] = max(3, territories[p] // 3) + bonus
    strength = strengths(state)  # the share's own measure, which the model refines
    power = {
        p: armies[p] - territories[p] + income[p] + (next_set if hands[p] >= 3 else 0.0)
        for p in players
    }
    n = len(players) or 1
    mean_strength = max(1.0, sum(strength.values()) / n)
    mean_armies = max(1.0, sum(armies.values()) / n)
    mean_income = max(1.0, sum(income.values()) / n)
    mover = state.current
    after = state.next_player(mover) if mover in players else None
    result: dict[str, tuple[float, ...]] = {}
    for p in players:
        rivals = [r for r in players if r != p]
        exposure = (
            min(CAP, max((power[r] / cost[p] for r in rivals), default=0.0)) if cost[p] else 0.0
        )
        reach, bounty = 0.0, 0.0
        for r in rivals:
            if cost[r] <= 0:
                continue
            ratio = min(CAP, power[p] / cost[r])
            reach = max(reach, ratio)
            bounty = max(bounty, ratio * hands[r] / 3)
        result[p] = (
            math.log(max(strength[p], 1.0) / mean_strength),
            math.log(max(armies[p], 1) / mean_armies),
            income[p] / mean_income,
            hands[p] / 3,
            card * hands[p] / mean_armies,
            1.0 if p == mover else 0.0,
            1.0 if p == after else 0.0,
            exposure,
            exposure * hands[p] / 3,
            reach,
            bounty,
        )
    return result


def chances(state: State, model: WinModel) -> dict[str, float]:
    """Each active player's chance to win, by ``model`` (they add up to one)."""
    scores = {
        p: sum(w * x for w, x in zip(model.weights, f, strict=True))
        for p, f in features(state).items()
    }
    if not scores:
        return {}
    top = max(scores.values())
    exps = {p: math.exp(s - top) for p, s in scores.items()}
    total = sum(exps.values())
    return {p: e / total for p, e in exps.items()}
