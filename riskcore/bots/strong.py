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

Claims are searched as well, each option played out through the rest of
the setup and a few rounds past it (``setup_rounds``): in three-player
games the claims decide more than any later decision. Cheap or settled
decisions (setup placing, trades, defence, fortify) are the heuristic's.
The effort is an iteration budget (rollouts per candidate and decision)
and, optionally, a budget per own *turn* that the bot spreads over the
turn's decisions (``TurnBudget``): in rollouts
(``turn_rollouts``), so a game replays identically from its seed, or in
seconds (``turn_time``), which depends on the machine and so does not.
A time budget per decision (``time_budget``) is kept as well.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from riskcore.bots import end_score, mission_progress
from riskcore.bots.base import register
from riskcore.bots.evaluate import DEFAULT_WEIGHTS, Weights, evaluate, strengths
from riskcore.bots.features import Position
from riskcore.bots.heuristic import (
    Body,
    HeuristicPolicy,
    Params,
    best_set,
    fallback,
    fortify_moves,
    fronts,
    may_trade,
    mission_to_claim,
    pick,
)
from riskcore.bots.losses import attack_odds
from riskcore.bots.win_model import MODELS, WinModel, chances
from riskcore.engine.decide import execute
from riskcore.engine.legal import Action, legal_actions
from riskcore.errors import RiskError
from riskcore.model.state import (
    ATTACK,
    FINISHED,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    State,
)
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.rules.cards import sets_in_hand
from riskcore.views.seatview import SeatView

# Rollouts end when this seat's next turn starts; this caps runaway ones.
MAX_ROLLOUT_COMMANDS = 400
# A search may stop after this many rollouts per option once the heuristic's
# choice leads every alternative by SETTLED standard errors.
MIN_ITERATIONS = 6
SETTLED = 2.0
# A hunting attack (``SearchConfig.hunt``) is searched only at this chance or more.
HUNT_WIN = 0.5


# The phases whose decisions the search can weigh (``SearchConfig.searched``),
# and those it weighs unless told which: the fortify is searched only when
# named (``hard`` does), so the plain ``strong`` bot plays as it was measured.
SEARCHABLE = frozenset({SETUP_CLAIM, REINFORCE, ATTACK, OCCUPY, FORTIFY})
SEARCHED_BY_DEFAULT = SEARCHABLE - {FORTIFY}


@dataclass(frozen=True, slots=True)
class SearchConfig:
    iterations: int = 16  # rollouts per candidate and decision
    candidates: int = 3  # the heuristic's choice and its best alternatives
    confidence: float = 1.0  # standard errors an alternative must win by
    weights: Weights = DEFAULT_WEIGHTS  # of the evaluation rollouts end on
    # Rollouts end on the seat's chance to win by this model (``win_model``)
    # rather than its share of the strength; None: the share.
    win_model: WinModel | None = None
    time_budget: float | None = None  # seconds per decision, on top of iterations
    turn_time: float | None = None  # seconds per own turn, spread over its decisions
    turn_rollouts: int | None = None  # rollouts per own turn (reproducible)
    turn_share: float = 0.35  # of what is left of a turn's budget, one decision's part
    # The placing of reinforcements: its part of a turn's rest (None: ``turn_share``),
    # its candidates (None: ``candidates``) and, with a budget per turn, its cap
    # of rollouts per option (None: ``iterations``). The search changes the
    # heuristic's placing about half the time, its attacks and moves one time
    # in ten; 0.6, 4 and 64 were measured and not kept as defaults: no gain
    # at the same CPU a turn (docs/bots.md, 2026-12-01 evening). With the
    # attacks unsearched, 0.7 let ``medium`` finish its placing searches within
    # its time and won 4.0 ± 6.3 points more (docs/bots.md, "Eighth round").
    place_share: float | None = None
    place_candidates: int | None = None
    place_iterations: int | None = None
    # The phases whose decisions are searched (the others keep the heuristic's).
    searched: frozenset[str] = SEARCHED_BY_DEFAULT
    horizon: int | None = None  # rivals' turns rolled out after its own (None: to its next turn)
    # Own turns a rollout plays past the next one (0: it ends where its next turn begins).
    rounds: int = 0
    # The same for a rollout that starts in the setup (claiming or placing): the
    # start of its first turn shows little of what the setup made of the game.
    setup_rounds: int = 2
    # Claims searched: the heuristic's and the best of other continents, this many
    # in all, each played out at most ``claim_iterations`` times (8 won 59 of 60
    # 3-player games with nothing else searched: the setup is the heuristic's own
    # and much the same in every rollout; only the dice after it differ).
    claim_candidates: int = 6
    claim_iterations: int = 8
    # The evaluation's strengths are raised to this power before the share is
    # taken (1: the plain share): above 1, being the strongest counts for more
    # than the share says, as a game that only one seat wins rewards it.
    power: float = 1.0
    # Whom the score weighs its strength against: "all" its rivals together (the
    # share), or "leader", the strongest rival alone: a rival growing on a third
    # one's ruin (in 3-player games, taking its cards) then counts in full.
    versus: str = "all"
    # Fewest rollouts per option worth a search: a decision whose part of the
    # turn's budget buys fewer keeps the heuristic's choice (the paired test
    # needs 2 at least; a few more make it able to tell options apart).
    min_search: int = 2
    # An attack the heuristic wins with at least this chance is not searched:
    # which sure attack goes first changes little, and the rollouts are
    # better spent where the outcome is in doubt (> 1: search every attack).
    clear_win: float = 2.0
    # With three players or more, an attack on a rival down to this many
    # territories or fewer is one of the alternatives searched (0: none): in
    # 3-player games the seat that eliminates a rival takes its cards and
    # mostly wins, and a heuristic rival doing it first is the usual loss.
    # At placing, every reinforcement next to the smallest such rival is one too.
    hunt: int = 0
    # Whether to trade a set now or hold it is searched too (the heuristic holds
    # sets below four cards unless pressed: ``Params.trade_at``, ``trade_threat``).
    trades: bool = False
    # The race to the first elimination (three players or more at the root):
    # the score of a rollout gains ``race`` for each rival this seat put out in
    # it and loses ``race`` for each rival another rival put out. The share
    # alone cannot tell them apart (a victim leaving the total raises the
    # seat's share whoever took it), yet in 3-player classic the strong bot
    # won 71% of the games it opened with an elimination and 24% of those a
    # heuristic opened by putting the other one out (docs/bots.md). Measured
    # at 0.2: more first eliminations by the bot, fewer by a heuristic, no
    # more wins (the forced kills cost armies), so off.
    race: float = 0.0
    # What the time budgets count: "wall" seconds (what a player waits), or
    # "cpu", this thread's processor time, which a busy machine does not eat
    # into (for measuring the bot on a shared machine; a player waits longer).
    clock: str = "wall"


CLOCKS = {"wall": time.monotonic, "cpu": time.thread_time}
VERSUS = ("all", "leader")


@dataclass(slots=True)
class TurnBudget:
    """What one own turn has spent so far, in rollouts and seconds.

    Each searched decision may use ``turn_share`` of what is left, so the
    first decisions of a turn (placing, the first attacks, which shape the
    rest) get the most and the turn never exceeds its budget. A share too
    small for the least search (``min_search`` rollouts per option) is
    raised to it while the rest of the turn's budget allows (else a busy
    machine's turn left a third of its time unspent); once the rest does
    not, decisions keep the heuristic's choice. Keyed by the turn number: a
    new turn starts a new account (a claim of the setup, turn 0, is keyed by
    minus the game's version, so each claim has an account of its own).
    Workers make a bot per job, and a job plays a seat's whole turn, so a
    turn's account lives as long as needed.
    """

    turn: int = -1
    rollouts: int = 0
    seconds: float = 0.0

    def enter(self, turn: int) -> None:
        if turn != self.turn:
            self.turn, self.rollouts, self.seconds = turn, 0, 0.0

    def iterations(
        self, config: SearchConfig, options: int, part: float, cap: int | None = None
    ) -> int:
        """Rollouts per option a decision whose ``part`` of the turn's rest is
        that may use, at most ``cap`` (None: ``iterations``; < ``min_search``:
        do not search)."""
        allowed = config.iterations if cap is None else cap
        if config.turn_rollouts is not None:
            left = (config.turn_rollouts - self.rollouts) // options
            share = int(left * part)
            # A part too small for a search takes the least search the rest allows.
            allowed = min(allowed, share if share >= config.min_search else left)
            allowed = min(allowed, max(share, config.min_search))
        return allowed

    def seconds_left(self, config: SearchConfig, least: float, part: float) -> float | None:
        """Seconds this decision may think (None: no time bound); ``least``, the
        time of the least search, is granted when the turn's rest allows it."""
        limits = []
        if config.time_budget is not None:
            limits.append(config.time_budget)
        if config.turn_time is not None:
            left = config.turn_time - self.seconds
            limits.append(min(left, max(left * part, least)))
        return min(limits) if limits else None


class StrongBot:
    name = "strong"
    version = "1"

    def __init__(
        self,
        config: SearchConfig | None = None,
        params: Params | None = None,
        rival_params: Params | None = None,
    ) -> None:
        """``rival_params``: how the other seats play in its rollouts (None: as it
        does), a model of opponents that play otherwise."""
        self.config = config or SearchConfig()
        self.policy = HeuristicPolicy(params)
        self.rivals = self.policy if rival_params is None else HeuristicPolicy(rival_params)
        self.budget = TurnBudget()
        self.clock = CLOCKS[self.config.clock]
        # Mean seconds of one rollout so far, from the setup (which plays the rest
        # of the setup and a few rounds: ``setup_rounds``) and from turns: a
        # time-bound search does not start a round it expects to overrun its deadline.
        self.rollout_seconds: dict[bool, float] = {True: 0.0, False: 0.0}

    def choose(
        self, view: SeatView, actions: Sequence[Action], rng: random.Random
    ) -> dict[str, Any]:
        if not actions:
            return {"type": "resign"}
        claim = mission_to_claim(actions)
        if claim is not None:
            return claim
        started = self.clock()
        own_turn = view.current == view.seat
        if own_turn:
            # Each setup claim is budgeted as a turn of its own (the setup is turn 0).
            self.budget.enter(view.turn if view.turn > 0 else -view.version)
        body = self.policy.body(view)
        options = candidates(self.policy, view, body, self.config)
        if len(options) > 1:
            body = self.search(view, options, rng)
        if own_turn:
            self.budget.seconds += self.clock() - started
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
        part, cap = config.turn_share, None
        if view.phase == REINFORCE:
            part = config.turn_share if config.place_share is None else config.place_share
            per_turn = config.turn_rollouts is not None or config.turn_time is not None
            cap = config.place_iterations if per_turn else None
        elif view.phase == SETUP_CLAIM:
            cap = min(config.iterations, config.claim_iterations)
        iterations = self.budget.iterations(config, len(options), part, cap)
        in_setup = view.turn == 0
        round_cost = self.rollout_seconds[in_setup] * len(options)
        least = config.min_search
        seconds = self.budget.seconds_left(config, least * round_cost, part)
        if iterations < least or (seconds is not None and seconds < least * round_cost):
            return options[0]
        done = 0
        now = self.clock()
        deadline = None if seconds is None else now + seconds
        scores: list[list[float]] = [[] for _ in options]
        for done in range(1, iterations + 1):
            world = view.determinize(rng)
            seed = rng.getrandbits(64).to_bytes(8, "big")
            for i, option in enumerate(options):
                scores[i].append(self.rollout(world.copy(), view.seat, option, seed))
            self.budget.rollouts += len(options)
            if deadline is not None:
                before, now = now, self.clock()
                self._learn_rollout_cost(in_setup, (now - before) / len(options))
                if now + self.rollout_seconds[in_setup] * len(options) > deadline:
                    break
            if done >= MIN_ITERATIONS and _settled(scores):
                break
        if done < least:
            return options[0]  # too few rollouts to tell the options apart
        best, best_margin = 0, 0.0
        for i in range(1, len(options)):
            margin = _confident_gain(scores[i], scores[0], config.confidence)
            if margin > best_margin:
                best, best_margin = i, margin
        return options[best]

    def _learn_rollout_cost(self, in_setup: bool, seconds: float) -> None:
        previous = self.rollout_seconds[in_setup]
        learned = seconds if previous == 0.0 else 0.8 * previous + 0.2 * seconds
        self.rollout_seconds[in_setup] = learned

    def policy_of(self, state: State, acting: str, seat: str) -> HeuristicPolicy:
        """How ``acting`` plays in ``seat``'s rollouts: as the seat does if it is
        the seat or its team-mate, else as ``rivals``."""
        team = state.seats[seat].team
        if acting == seat or (team and state.seats[acting].team == team):
            return self.policy
        return self.rivals

    def rollout(self, state: State, seat: str, first: Body, seed: bytes) -> float:
        """Play ``first``, then the heuristic for everyone until ``seat``'s next turn
        begins (``config.rounds`` own turns later still, ``setup_rounds`` from the
        setup; or ``config.horizon`` turns of its rivals after its own, not from
        the setup), or until ``seat`` is out (its score is 0 then)."""
        start = state.turn
        in_setup = start == 0
        horizon = None if in_setup else self.config.horizon
        last = None if horizon is None else start + horizon
        body: Body | None = first
        turn, index = state.turn, 0
        rounds = self.config.setup_rounds if in_setup else self.config.rounds
        cap = MAX_ROLLOUT_COMMANDS * (1 + rounds)
        race = (
            self.config.race > 0 and not state.seats[seat].team and len(state.active_players()) >= 3
        )
        out = len(state.out)
        kills = 0  # own eliminations less the rivals' eliminations of rivals
        # Out and alone, it scores 0 whatever follows (a team-mate may still win).
        alone = not state.seats[seat].team
        for _ in range(cap):
            acting = state.mode.waiting_for(state)
            if state.phase == FINISHED or acting is None:
                break
            if body is None:
                if state.current == seat and state.turn > start and state.phase == REINFORCE:
                    if rounds == 0:
                        break
                    rounds, start = rounds - 1, state.turn
                if last is not None and state.turn > last:
                    break
                body = claim(state, acting) or self.policy_of(state, acting, seat).body(
                    SeatView(state, acting)
                )
            if state.turn != turn:
                turn, index = state.turn, 0
            # Dice keyed by (turn, command within it), not by version: rollouts
            # of different options then share dice where they run in step.
            step(state, acting, body, GameRng(seed, f"rollout/{turn}", index))
            if len(state.out) > out:
                if alone and seat in state.out:
                    break
                if race:
                    kills += eliminations(state, seat, acting, out)
                out = len(state.out)
            index += 1
            body = None
        value = score(state, seat, self.config)
        if kills and not (state.winners or state.winner is not None) and state.is_active(seat):
            value = min(1.0, max(0.0, value + self.config.race * kills))
        return value


def score(state: State, seat: str, config: SearchConfig) -> float:
    """``evaluate``, with the strengths raised to ``config.power`` (alone, not in teams),
    or the seat's chance by ``config.win_model`` (alone); where the mode's own goals
    weigh in (``Weights.mission`` in a mission game, ``Weights.points`` in a game that
    ends on points), ``evaluate`` alone, which mixes them in."""
    over = bool(state.winners) or state.winner is not None or not state.is_active(seat)
    model = config.win_model
    plain = config.power == 1.0 and config.versus == "all"
    if over or (model is None and plain):
        return evaluate(state, seat, config.weights)
    if state.seats[seat].team or _mode_goals(state, seat, config.weights):
        return evaluate(state, seat, config.weights)
    if model is not None:
        return chances(state, model).get(seat, 0.0)
    values = {p: max(v, 0.0) ** config.power for p, v in strengths(state, config.weights).items()}
    rivals = [v for p, v in values.items() if p != seat]
    against = max(rivals, default=0.0) if config.versus == "leader" else sum(rivals)
    total = values[seat] + against
    return values[seat] / total if total > 0 else 0.0


def _mode_goals(state: State, seat: str, weights: Weights) -> bool:
    """Whether ``evaluate`` mixes a goal of this game's mode into ``seat``'s score: a
    weight set in a mode that has the goal (elsewhere the other scores stand)."""
    if weights.mission and mission_progress.progress(state, seat) is not None:
        return True
    return bool(weights.points) and end_score.standing(state, seat) is not None


def claim(state: State, seat: str) -> Body | None:
    """A mission ``seat`` may claim now (the mission game), as the bots claim one
    at once. The policy alone never claims (the bots ask ``mission_to_claim``
    first), so before this no rollout ever claimed a mission, nor won by them.
    The rivals claim the missions their guessed worlds dealt them
    (``missions.deal_unseen``)."""
    if not state.missions.get(seat):
        return None
    return mission_to_claim(legal_actions(state, seat))


def eliminations(state: State, seat: str, acting: str, before: int) -> int:
    """The eliminations since ``state.out`` held ``before`` players, counted
    for ``seat``: +1 each that ``acting`` (the seat that moved) is ``seat``,
    -1 each of a rival by another rival (``seat``'s own fall scores 0 anyway)."""
    victims = list(state.out)[before:]
    sign = 1 if acting == seat else -1
    return sum(sign for victim in victims if victim != seat)


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


def candidates(
    policy: HeuristicPolicy, view: SeatView, chosen: Body, config: SearchConfig
) -> list[Body]:
    """The heuristic's choice first, then the alternatives worth a rollout."""
    phase = view.phase
    limit = config.candidates
    if phase == REINFORCE and config.place_candidates is not None:
        limit = config.place_candidates
    if phase == SETUP_CLAIM:
        limit = config.claim_candidates
    if view.current != view.seat or limit < 2 or phase not in config.searched:
        return [chosen]
    if phase == ATTACK:
        others = attack_options(policy, view, config.clear_win)
        if others and config.hunt:
            others[1:1] = hunt_options(view, config.hunt)
    elif phase == REINFORCE and chosen["type"] == "trade_cards":
        others = trade_options(policy, view, chosen) if config.trades else []
    elif phase == REINFORCE and chosen["type"] == "place_armies":
        others = placement_options(policy, view)
        if config.hunt:
            others[0:0] = hunt_bases(view, config.hunt)
        if config.trades:
            others[0:0] = trade_options(policy, view, chosen)
    elif phase == OCCUPY:
        others = occupy_options(view)
    elif phase == SETUP_CLAIM:
        others = claim_options(policy, view)
    elif phase == FORTIFY and chosen["type"] in ("fortify", "end_phase"):
        others = fortify_options(view)
    else:
        return [chosen]
    found = [chosen]
    for option in others:
        if option not in found:
            found.append(option)
        if len(found) == limit:
            break
    return found


def attack_options(policy: HeuristicPolicy, view: SeatView, clear_win: float = 2.0) -> list[Body]:
    """Stopping, and the best attacks by the heuristic's score (none when its
    best attack is won with at least ``clear_win`` chance)."""
    pos = Position(view)
    ranked = sorted(policy.attacks(pos), key=lambda a: -a.score)
    if ranked and ranked[0].win >= clear_win:
        return []
    options: list[Body] = [{"type": "end_phase"}]
    for attack in ranked:
        where = {"source": attack.source, "target": attack.target}
        options.append({"type": "blitz", **where, "stop_at": attack.stop_at})
    if view.rules.defender_chooses_dice:
        return []  # one battle per decision there: too fine-grained to search
    return options


def hunt_options(view: SeatView, most: int) -> list[Body]:
    """The all-out attack likeliest to win on a rival down to ``most`` territories."""
    pos = Position(view)
    if len(pos.cards) < 3:
        return []  # a duel: the heuristic already plays for the rival's end
    weak = {p for p in pos.cards if p != pos.me and 0 < pos.territories.get(p, 0) <= most}
    best: tuple[float, str, str] | None = None
    for target, sources in fronts(pos).items():
        if pos.owner[target] not in weak:
            continue
        source = max(sources, key=lambda s: pos.troops[s])
        win = attack_odds(pos.troops[source] - 1, pos.troops[target], 0)[0]
        if best is None or win > best[0]:
            best = (win, source, target)
    if best is None or best[0] < HUNT_WIN:
        return []
    return [{"type": "blitz", "source": best[1], "target": best[2], "stop_at": 1}]


def hunt_bases(view: SeatView, most: int) -> list[Body]:
    """All reinforcements next to the smallest rival of ``most`` territories or
    fewer (three players or more), on the own territory with most armies there:
    the start of a turn that races to put that rival out first."""
    pos = Position(view)
    if len(pos.cards) < 3:
        return []
    weak = [p for p in pos.cards if p != pos.me and 0 < pos.territories.get(p, 0) <= most]
    if not weak:
        return []
    victim = min(weak, key=lambda p: (pos.territories[p], p))
    bases = {
        s
        for target, sources in fronts(pos, 1).items()
        if pos.owner[target] == victim
        for s in sources
    }
    if not bases:
        return []
    base = max(sorted(bases), key=lambda s: pos.troops[s])
    return [{"type": "place_armies", "territory": base, "count": view.reserve()}]


def claim_options(policy: HeuristicPolicy, view: SeatView) -> list[Body]:
    """The heuristic's best claims: in three-player classic games between
    heuristic bots the first to claim wins 55 of 100 and the second 14 (the
    third won 199 of 200 when the claims ignored where the rivals stood), so
    which territory a seat claims can decide the game before a die is rolled.
    The alternatives are the best claim in each other continent: a different
    plan, not a neighbour of the same one."""
    pos = Position(view)
    best: dict[str, str] = {}
    for territory in policy.ranked_claims(pos):
        best.setdefault(pos.info.group_of[territory], territory)
    return [{"type": "claim_territory", "territory": t} for t in best.values()]


def fortify_options(view: SeatView) -> list[Body]:
    """Not fortifying, and the heuristic's best fortifies to other borders.

    The rollouts judge a fortify where it tells: they play the rivals' turns
    that test the border it held or left thin, and end when this seat's next
    turn begins. One move per target: moving to the same border from another
    territory is the same plan.
    """
    if view.fortified_this_turn:
        return []
    pos = Position(view)
    options: list[Body] = [{"type": "end_phase"}]
    targets: set[str] = set()
    for _, source, target, count in sorted(fortify_moves(pos), key=lambda m: -m[0]):
        if target not in targets:
            targets.add(target)
            options.append({"type": "fortify", "source": source, "target": target, "count": count})
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


def trade_options(policy: HeuristicPolicy, view: SeatView, chosen: Body) -> list[Body]:
    """The other answer to "trade a set now?": the heuristic's placing instead of
    its trade, or its best set instead of holding one (none when a trade is forced
    or no set may be traded)."""
    if view.must_trade or not may_trade(view):
        return []
    sets = sets_in_hand(view.board, view.my_hand())
    if not sets:
        return []
    pos = Position(view)
    if chosen["type"] == "trade_cards":
        territory, count = policy.placement(pos, view.reserve())
        return [{"type": "place_armies", "territory": territory, "count": count}]
    return [{"type": "trade_cards", "cards": list(best_set(pos, sets))}]


def placement_options(policy: HeuristicPolicy, view: SeatView) -> list[Body]:
    """All reinforcements on each of the best few attack bases."""
    pos = Position(view)
    reserve = view.reserve()
    ranked = policy.ranked_bases(pos, reserve)
    return [{"type": "place_armies", "territory": t, "count": reserve} for t in ranked]


def strong_bot(
    think_ms: int | None = None,
    iterations: int | None = None,
    turn_ms: int | None = None,
    turn_rollouts: int | None = None,
    horizon: int | None = None,
    clock: str | None = None,
    rounds: int | None = None,
    power: float | None = None,
    versus: str | None = None,
    hunt: int | None = None,
    race: float | None = None,
    score: str | None = None,
    trades: bool | None = None,
    rivals: Mapping[str, float] | None = None,
    confidence: float | None = None,
    claims: bool | None = None,
    searched: Sequence[str] | None = None,
    place_share: float | None = None,
    params: Mapping[str, float] | None = None,
    candidates: int | None = None,
    mission: float | None = None,
    points: float | None = None,
) -> StrongBot:
    """The strong bot with its options.

    ``turn_ms``: the time per own turn, spread over its decisions;
    ``think_ms``: the time per decision (the search's ``time_budget``). Both
    make play depend on the machine's speed. ``turn_rollouts``: rollouts per
    own turn, spread the same way, and ``iterations``: rollouts per candidate
    and decision, both reproducible from the seed. ``horizon``: how many of
    the rivals' turns a rollout plays after its own (default: all of them).
    ``clock``: "wall" (default) or "cpu", what the time budgets count.
    ``rounds``, ``power``, ``versus``, ``hunt`` and ``race``: the 3-player
    levers of ``SearchConfig`` (measured, none kept on: docs/bots.md, issue 19).
    ``score``: what rollouts end on, "share" of the strength or a win model's
    chance (``win_model.MODELS``). ``trades``: search whether to trade a set now.
    ``rivals``: the heuristic's numeric ``Params`` the other seats play with in
    its rollouts, e.g. ``{"leader": 2, "leader_ratio": 0}`` (rivals that turn on
    whoever looks strongest, as Domination's AIs do). ``confidence``: the
    standard errors by which an alternative must beat the heuristic's choice.
    ``claims``: false takes the heuristic's claims unsearched. ``searched``: the
    phases whose decisions are searched, by name (of ``SEARCHABLE``; default
    ``SEARCHED_BY_DEFAULT``, every phase but the fortify).
    ``place_share``: the part of a turn's rest the placing of reinforcements may
    use (``SearchConfig.place_share``; default ``turn_share``). ``params``: the
    heuristic's numeric ``Params`` the bot itself plays with (its own seat in the
    rollouts too); its rivals then play the plain heuristic in them unless
    ``rivals`` says otherwise (a bot tuned to beat heuristics models them as such).
    ``candidates``: the options a searched decision weighs, the heuristic's choice
    among them (``SearchConfig.candidates``; 1 searches nothing). ``mission``: the
    share of a rollout's score that is the progress along the seat's own missions
    (``Weights.mission``; 0, the default: its share of the strength alone).
    ``points``: in a game that ends on points (Lord of the Rings), the most of the
    score that is the seat's share of them, reached as the end nears
    (``Weights.points``; 0, the default).
    """
    config = SearchConfig()
    if think_ms is not None:
        config = replace(config, time_budget=_positive("think_ms", think_ms) / 1000)
    if turn_ms is not None:
        config = replace(config, turn_time=_positive("turn_ms", turn_ms) / 1000)
    if iterations is not None:
        config = replace(config, iterations=_positive("iterations", iterations))
    if turn_rollouts is not None:
        config = replace(config, turn_rollouts=_positive("turn_rollouts", turn_rollouts))
    if horizon is not None:
        if not isinstance(horizon, int) or isinstance(horizon, bool) or horizon < 0:
            raise ValueError(f"horizon must be a whole number of turns: {horizon!r}")
        config = replace(config, horizon=horizon)
    if clock is not None:
        if clock not in CLOCKS:
            raise ValueError(f"clock must be one of {sorted(CLOCKS)}: {clock!r}")
        config = replace(config, clock=clock)
    if rounds is not None:
        config = replace(config, rounds=_whole("rounds", rounds))
    if hunt is not None:
        config = replace(config, hunt=_whole("hunt", hunt))
    if power is not None:
        if not isinstance(power, (int, float)) or isinstance(power, bool) or power <= 0:
            raise ValueError(f"power must be a positive number: {power!r}")
        config = replace(config, power=float(power))
    if versus is not None:
        if versus not in VERSUS:
            raise ValueError(f"versus must be one of {sorted(VERSUS)}: {versus!r}")
        config = replace(config, versus=versus)
    if race is not None:
        config = replace(config, race=_fraction("race", race))
    if score is not None and score != "share":
        if score not in MODELS:
            raise ValueError(f"score must be 'share' or one of {sorted(MODELS)}: {score!r}")
        config = replace(config, win_model=MODELS[score])
    if trades is not None:
        if not isinstance(trades, bool):
            raise ValueError(f"trades must be true or false: {trades!r}")
        config = replace(config, trades=trades)
    if confidence is not None:
        if (
            not isinstance(confidence, (int, float))
            or isinstance(confidence, bool)
            or confidence < 0
        ):
            raise ValueError(
                f"confidence must be a number of standard errors, 0 or more: {confidence!r}"
            )
        config = replace(config, confidence=float(confidence))
    if searched is not None:
        if isinstance(searched, str):
            raise ValueError(f"searched takes a list of phases, not {searched!r}")
        unknown = set(searched) - SEARCHABLE
        if unknown:
            raise ValueError(f"searched takes phases of {sorted(SEARCHABLE)}: {sorted(unknown)}")
        config = replace(config, searched=frozenset(searched))
    if claims is not None:
        if not isinstance(claims, bool):
            raise ValueError(f"claims must be true or false: {claims!r}")
        if not claims:
            config = replace(config, searched=config.searched - {SETUP_CLAIM})
    if place_share is not None:
        if (
            not isinstance(place_share, (int, float))
            or isinstance(place_share, bool)
            or not 0 < place_share <= 1
        ):
            raise ValueError(f"place_share must be a number above 0 and at most 1: {place_share!r}")
        config = replace(config, place_share=float(place_share))
    if candidates is not None:
        config = replace(config, candidates=_positive("candidates", candidates))
    if mission is not None:
        weights = replace(config.weights, mission=_fraction("mission", mission))
        config = replace(config, weights=weights)
    if points is not None:
        config = replace(
            config, weights=replace(config.weights, points=_fraction("points", points))
        )
    own = None if params is None else heuristic_params(params, "params")
    if rivals is not None:
        others: Params | None = heuristic_params(rivals, "rivals")
    else:  # a bot of its own parameters models its rivals as the plain heuristic
        others = None if own is None else Params()
    return StrongBot(config, own, others)


def heuristic_params(numbers: Mapping[str, float], option: str) -> Params:
    """The heuristic's parameters from numeric fields named as in ``Params``
    (``option``: the bot option that gave them, named in errors)."""
    # Numeric fields by their defaults' types (a compiled build keeps no annotations).
    defaults = {f.name: f.default for f in fields(Params)}
    chosen: dict[str, float] = {}
    for name, value in numbers.items():
        default = defaults.get(name)
        numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not numeric or not number:
            raise ValueError(f"{option}: {name!r} is not a numeric parameter of the heuristic")
        chosen[name] = int(value) if isinstance(default, int) else float(value)
    return Params(**chosen)  # type: ignore[arg-type]


def _fraction(name: str, value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number from 0 to 1: {value!r}")
    return float(value)


def _whole(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a whole number: {value!r}")
    return value


def _positive(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer: {value!r}")
    return value


register("strong")(strong_bot)
