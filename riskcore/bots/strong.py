"""The strong bot: the heuristic, checked by Monte Carlo rollouts.

At the decisions that shape a turn — where to place reinforcements, which
attack to make next or whether to stop, how many armies to move into a
conquered territory — it takes a few candidates (the heuristic's choice
and its runners-up, plus stopping) and plays each one out many times on
*determinised* copies of the game: the public board, its own hand, and the
hidden cards (other hands, the draw pile) dealt at random from the cards it
cannot see (``SeatView.determinize``). Each rollout applies the candidate
and lets the heuristic play every seat, through the real engine
(``riskcore.engine.decide.execute``: ``decide`` and ``apply`` in place on the
private copy, with a ``GameRng`` seeded from the bot's generator),
until this seat's next turn begins; the position is then scored by
``evaluate``. Every candidate is played out on the same determinisations
and dice seeds (common random numbers), so their difference is measured
with less noise than their values, and the heuristic's choice is kept
unless an alternative beats it by a standard error of the mean paired
difference: taking the best of three noisy means instead picks options
that were merely lucky, and measured weaker than the heuristic alone.

Cheap or settled decisions (claims, setup placing, trades, defence,
fortify) are the heuristic's. The effort per decision is an iteration
budget (rollouts per candidate), so a game replays identically from its
seed; an optional time budget caps the wall-clock cost per decision too,
at the price of that determinism.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from riskcore.bots.base import register
from riskcore.bots.evaluate import DEFAULT_WEIGHTS, Weights, evaluate
from riskcore.bots.features import Position
from riskcore.bots.heuristic import (
    Body,
    HeuristicPolicy,
    Params,
    fallback,
    mission_to_claim,
    pick,
)
from riskcore.engine.decide import execute
from riskcore.engine.legal import Action, legal_actions
from riskcore.errors import RiskError
from riskcore.model.state import ATTACK, FINISHED, OCCUPY, REINFORCE, State
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.views.seatview import SeatView

# Rollouts end when this seat's next turn starts; this caps runaway ones.
MAX_ROLLOUT_COMMANDS = 400
# A search may stop after this many rollouts per option once the heuristic's
# choice leads every alternative by SETTLED standard errors.
MIN_ITERATIONS = 6
SETTLED = 2.0


@dataclass(frozen=True, slots=True)
class SearchConfig:
    iterations: int = 16  # rollouts per candidate and decision
    candidates: int = 3  # the heuristic's choice and its best alternatives
    confidence: float = 1.0  # standard errors an alternative must win by
    weights: Weights = DEFAULT_WEIGHTS  # of the evaluation rollouts end on
    time_budget: float | None = None  # seconds per decision, on top of iterations


class StrongBot:
    name = "strong"
    version = "1"

    def __init__(self, config: SearchConfig | None = None, params: Params | None = None) -> None:
        self.config = config or SearchConfig()
        self.policy = HeuristicPolicy(params)

    def choose(
        self, view: SeatView, actions: Sequence[Action], rng: random.Random
    ) -> dict[str, Any]:
        if not actions:
            return {"type": "resign"}
        claim = mission_to_claim(actions)
        if claim is not None:
            return claim
        body = self.policy.body(view)
        options = candidates(self.policy, view, body, self.config.candidates)
        if len(options) > 1:
            body = self.search(view, options, rng)
        return pick(body, actions)

    def search(self, view: SeatView, options: list[Body], rng: random.Random) -> Body:
        """The heuristic's choice (``options[0]``) unless another one clearly beats it.

        Each rollout of an alternative is paired with one of the heuristic's
        choice on the same world and dice seed; an alternative must win by
        ``config.confidence`` standard errors of the mean paired difference.
        Picking the best of several noisy means would otherwise often pick
        an option only luckier than the heuristic's, and worse on average.
        """
        config = self.config
        deadline = None if config.time_budget is None else time.monotonic() + config.time_budget
        scores: list[list[float]] = [[] for _ in options]
        for done in range(1, config.iterations + 1):
            world = view.determinize(rng)
            seed = rng.getrandbits(64).to_bytes(8, "big")
            for i, option in enumerate(options):
                scores[i].append(self.rollout(world.copy(), view.seat, option, seed))
            if deadline is not None and time.monotonic() > deadline:
                break
            if done >= MIN_ITERATIONS and _settled(scores):
                break
        best, best_margin = 0, 0.0
        for i in range(1, len(options)):
            margin = _confident_gain(scores[i], scores[0], config.confidence)
            if margin > best_margin:
                best, best_margin = i, margin
        return options[best]

    def rollout(self, state: State, seat: str, first: Body, seed: bytes) -> float:
        """Play ``first``, then the heuristic for everyone until ``seat``'s next turn."""
        start = state.turn
        body: Body | None = first
        turn, index = state.turn, 0
        for _ in range(MAX_ROLLOUT_COMMANDS):
            acting = state.mode.waiting_for(state)
            if state.phase == FINISHED or acting is None:
                break
            if body is None:
                if state.current == seat and state.turn > start and state.phase == REINFORCE:
                    break
                body = self.policy.body(SeatView(state, acting))
            if state.turn != turn:
                turn, index = state.turn, 0
            # Dice keyed by (turn, command within it), not by version: rollouts
            # of different options then share dice where they run in step.
            step(state, acting, body, GameRng(seed, f"rollout/{turn}", index))
            index += 1
            body = None
        return evaluate(state, seat, self.config.weights)


def _settled(scores: list[list[float]]) -> bool:
    """Whether the heuristic's choice already beats every alternative clearly."""
    return all(_confident_gain(scores[0], other, SETTLED) > 0 for other in scores[1:])


def _confident_gain(option: list[float], base: list[float], confidence: float) -> float:
    """Mean of ``option - base`` less ``confidence`` standard errors (<= 0: not sure)."""
    n = len(option)
    if n < 2:
        return 0.0
    diffs = [a - b for a, b in zip(option, base, strict=True)]
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return float(mean - confidence * math.sqrt(variance / n))


def step(state: State, seat: str, body: Body, rng: GameRng) -> None:
    """Apply one command in place; an illegal one is replaced by a safe legal one."""
    try:
        execute(state, command_from_dict(body, seat), rng)
    except RiskError:  # a rejected command changes nothing
        execute(state, command_from_dict(fallback(legal_actions(state, seat)), seat), rng)


def candidates(policy: HeuristicPolicy, view: SeatView, chosen: Body, limit: int) -> list[Body]:
    """The heuristic's choice first, then the alternatives worth a rollout."""
    phase = view.phase
    if view.current != view.seat or limit < 2:
        return [chosen]
    if phase == ATTACK:
        others = attack_options(policy, view)
    elif phase == REINFORCE and chosen["type"] == "place_armies":
        others = placement_options(policy, view)
    elif phase == OCCUPY:
        others = occupy_options(view)
    else:
        return [chosen]
    found = [chosen]
    for option in others:
        if option not in found:
            found.append(option)
        if len(found) == limit:
            break
    return found


def attack_options(policy: HeuristicPolicy, view: SeatView) -> list[Body]:
    """Stopping, and the best attacks by the heuristic's score."""
    pos = Position(view)
    ranked = sorted(policy.attacks(pos), key=lambda a: -a.score)
    options: list[Body] = [{"type": "end_phase"}]
    for attack in ranked:
        where = {"source": attack.source, "target": attack.target}
        options.append({"type": "blitz", **where, "stop_at": attack.stop_at})
    if view.rules.defender_chooses_dice:
        return []  # one battle per decision there: too fine-grained to search
    return options


def occupy_options(view: SeatView) -> list[Body]:
    """All armies forward or the fewest, when both sides of the move face enemies.

    Otherwise the heuristic's choice (everything to the side that faces an
    enemy) is clearly right and not searched.
    """
    occ = view.occupation
    if occ is None or occ.min_move == occ.max_move:
        return []
    pos = Position(view)
    if not pos.enemies_near(occ.source) or not pos.enemies_near(occ.target):
        return []
    return [{"type": "occupy", "count": n} for n in (occ.max_move, occ.min_move)]


def placement_options(policy: HeuristicPolicy, view: SeatView) -> list[Body]:
    """All reinforcements on each of the best few attack bases."""
    pos = Position(view)
    reserve = view.reserve()
    ranked = policy.ranked_bases(pos, reserve)
    return [{"type": "place_armies", "territory": t, "count": reserve} for t in ranked]


def strong_bot(think_ms: int | None = None, iterations: int | None = None) -> StrongBot:
    """The strong bot with its options: ``think_ms``, the time per decision (the
    search's ``time_budget``, which makes play depend on the machine's speed), and
    ``iterations``, the rollouts per candidate (reproducible from the seed)."""
    config = SearchConfig()
    if think_ms is not None:
        if not isinstance(think_ms, int) or isinstance(think_ms, bool) or think_ms < 1:
            raise ValueError(f"think_ms must be a positive integer: {think_ms!r}")
        config = replace(config, time_budget=think_ms / 1000)
    if iterations is not None:
        if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
            raise ValueError(f"iterations must be a positive integer: {iterations!r}")
        config = replace(config, iterations=iterations)
    return StrongBot(config)


register("strong")(strong_bot)
