"""The heuristic bot: continent-minded play priced with exact battle odds.

Every decision is a rule of thumb from Risk strategy, priced in armies with
the win probability of ``riskcore.rules.odds.win_probability`` and the expected
losses of the same chain (``riskcore.bots.losses``):

- *Claim* toward continents that are cheap to take and hold (Australia,
  South America) and where it already holds most, next to its own
  territories and away from its rivals' (one region with few borders);
  block a rival's last free territory of a continent.
- *Reinforce*: trade a set at four cards or more, or when a planned
  elimination needs its armies, or when a rival could afford to put this
  seat out (``plan.threat``); else hold it (a set showing an own territory
  earns +2 there); bring the entrances of continents it holds up to the enemy
  armies next to them, then mass the rest on the border territory with the
  best attack.
- *Attack* while some attack has a positive expected gain, win x value -
  own losses + half the enemy losses, never below a 0.4 win chance. The
  value counts the territory, the card of the turn's first conquest,
  continent progress, finishing or breaking a continent and an eliminated
  player's cards, so the odds needed fall as the prize grows. Blitz,
  stopping early to keep armies at home when the source still faces other
  enemies.
- *Occupy*: everything forward when the source is left interior, the least
  when the new territory is; otherwise split by enemy pressure, front first.
- *Fortify* an idle stack toward the most pressed border.
- *Lord of the Rings Risk*: attacks are priced with the leaders' and
  strongholds' bonuses; a stronghold is worth its 2 points of score and,
  with the Fellowship near the end, every territory a point more; a leader
  goes (in setup, back on the board, or by its manoeuvre) to the border
  territory with the most armies, a stronghold counting 3 more.

``HeuristicPolicy.body`` computes the command from the view alone, which
the strong bot uses in its rollouts; ``HeuristicBot.choose`` then matches
it against the legal actions, so the bot only ever returns a listed action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from riskcore.bots import adventure, allies
from riskcore.bots.base import register
from riskcore.bots.features import CARD_WORTH, Position, joined_to
from riskcore.bots.losses import attack_odds
from riskcore.bots.mission_progress import Aims
from riskcore.bots.plan import Conquest, Hunt, conquest, hunt, next_target, threat
from riskcore.engine.legal import Action, of_type
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
)
from riskcore.modes.lotr import SETUP_LEADER
from riskcore.protocol.frozen import copied_by_constructor
from riskcore.rules.cards import sets_in_hand
from riskcore.rules.odds import win_probability
from riskcore.views.seatview import SeatView

Body = dict[str, Any]
# Taking the last territory of the last rival wins: worth any army count.
WIN_VALUE = 10_000.0
# Sets are held until this many cards (``Params.trade_at``) by default.
HOLD_AT = 4
# The weight of an own neighbour in a claim before claims gathered (``gather=False``).
PLAIN_CLUMP = 0.04


@dataclass(frozen=True, slots=True)
class Params:
    """The heuristic's knobs, in armies; the defaults are what the bench measured."""

    min_win: float = 0.4  # never attack below this win probability
    min_gain: float = 0.0  # expected gain (armies) an attack must clear
    kill_weight: float = 0.5  # an enemy army destroyed, against one of ours lost
    territory: float = 1.0  # a territory taken
    card_scale: float = 1.0  # times a third of the next set's value
    completion: float = 2.0  # times the bonus of the continent it finishes
    breaking: float = 1.5  # times the bonus of an enemy continent it breaks
    forward_bias: float = 12.0  # occupy: weight of the pressure on the new territory
    defend_share: float = 0.8  # fraction of the enemy pressure a held entrance should match
    marker_cost: float = 8.0  # active neutrals: an uninvolved neutral going to the opponent
    missions: bool = True  # steer toward the seat's open missions (False: the old, blind bot)
    mission: float = 3.0  # a territory its mission wants, or one of the seat to destroy
    mission_done: float = 25.0  # doing a mission that is not the last (the mission game)
    mission_bonus: float = 10.0  # added to the bonus of a continent a mission wants
    focus: bool = True  # raise only the wanted continent nearest done
    bribes: bool = True  # active neutrals: bribe with spare cards (False: never)
    # Eliminations planned over the turn (``riskcore.bots.plan``): off, or the
    # armies demanded per territory above the expected cost, the most
    # territories a hunted rival holds, and the share of the cost its prize must be.
    hunt: bool = True
    hunt_margin: float = 1.0
    hunt_most: int = 8
    hunt_ratio: float = 0.5
    hunt_paths: int = 0  # territories of others taken on the way to a rival (0: none)
    # Continents planned over the turn (``plan.conquest``): off, or the margin
    # per territory and the most territories it may be short.
    # Trade a set only with this many cards or more (3: whenever it may; 5: when
    # forced), unless a planned elimination needs the armies or a rival could
    # afford to put this seat out (``trade_threat``, ``plan.threat``).
    trade_at: int = HOLD_AT
    # Expected gain (armies) an unplanned attack must clear once the turn's card is won,
    # and the same in the game's first turns only (``opening_turns``, all seats' turns).
    after_card_gain: float = 0.0
    opening_gain: float = 0.0
    opening_turns: int = 0
    conquer: bool = False
    conquer_margin: float = 1.0
    conquer_most: int = 4
    # A rival of at most 4 territories is worth attacking for its cards (this
    # share of them per territory left) even when the turn cannot put it out.
    soften: float = 1.0
    # Blitz: keep this share of the enemy armies next to the source at home.
    keep_share: float = 0.5
    # Held sets are traded anyway at this ``plan.threat`` (0: never): a rival's
    # armies, income and set against what putting this seat out costs.
    trade_threat: float = 1.0
    # ... and when the set's armies finish a continent this turn (``plan.conquest``).
    trade_continent: bool = False
    # A territory of the rival ahead of all others by ``leader_ratio`` (public
    # strength: ``Position.strengths``) is worth this many armies more.
    leader: float = 0.0
    leader_ratio: float = 1.0
    # A claim is worth this much more for each own territory next to it, and
    # this much less for each rival's: claims that gather in one region away
    # from the rivals won 7.8 points more against three Domination hard AIs
    # (2,000 games). Clumping alone won 3.3 but handed a random bot a quarter
    # of 3-player games against two such heuristics: docs/bots.md, sixth round.
    claim_clump: float = 0.2
    claim_contact: float = 0.2
    # A conquest is worth this much less for each rival's territory next to it
    # (the claims' idea, in play: a territory taken among rivals is a thin border
    # they take back, with its card): 3.7 points more against three Domination
    # hard AIs (2,000 games; docs/bots.md, seventh round).
    take_contact: float = 0.2


copied_by_constructor(Params)  # bots with their parameters go to worker processes

# The claims and conquests before they gathered away from the rivals (``gather=False``).
APART = Params(claim_clump=PLAIN_CLUMP, claim_contact=0.0, take_contact=0.0)


@dataclass(frozen=True, slots=True)
class Attack:
    source: str
    target: str
    win: float
    score: float
    stop_at: int


class HeuristicPolicy:
    """The decision rules, as a function from a view to a command body."""

    __slots__ = ("params",)

    def __init__(self, params: Params | None = None) -> None:
        self.params = params or Params()

    def body(self, view: SeatView) -> Body:
        phase = view.phase
        if phase == DEFEND:
            battle = view.pending_battle
            return {"type": "defend", "dice": min(2, view.troops(battle.target)) if battle else 1}
        played = adventure.body(view, self)  # Lord of the Rings: riskcore/bots/adventure.py
        if played is not None:
            return played
        pos = Position(view)
        if phase == SETUP_CLAIM:
            return {"type": "claim_territory", "territory": self.claim(pos)}
        if phase == SETUP_PLACE:
            return self.setup_place(pos)
        if phase == REINFORCE:
            return self.reinforce(pos)
        if phase == ATTACK:
            chosen = self.attack_or_stop(pos)
            if chosen["type"] == "end_phase":
                return allies.attack(pos) or chosen
            return chosen
        if phase == OCCUPY:
            return {"type": "occupy", "count": self.occupy(pos)}
        if phase == FORTIFY:
            return (
                self.leader_move(pos)
                or self.fortify(pos)
                or allies.fortify(pos)
                or {"type": "end_phase"}
            )
        if phase == SETUP_LEADER:
            return {"type": "place_leader", "territory": leader_spot(pos)}
        if phase == allies.BRIBE:
            return allies.bribe(view) if self.params.bribes else {"type": "end_phase"}
        if phase == allies.REINFORCE_ALLIES:
            return allies.reinforce(pos)
        return {"type": "end_phase"}

    # Leaders (Lord of the Rings Risk) ------------------------------------------

    def leader_move(self, pos: Position) -> Body | None:
        """Put a leader back if none is left; else move one to a better spot."""
        state = pos.view.mode_state()
        if "leaders" not in state or not pos.mine:
            return None
        mine = state["leaders"].get(pos.me, [])
        if not mine:
            return {"type": "place_leader", "territory": leader_spot(pos)}
        if state.get("leader_moved"):
            return None
        here = mine[0]
        options = [t for t in reach(pos, here, True) if t not in mine]
        best = leader_spot(pos, options)
        if best is not None and _spot_score(pos, best) > _spot_score(pos, here) + 2.0:
            return {"type": "move_leader", "source": here, "target": best}
        return None

    # Setup ------------------------------------------------------------------

    def claim(self, pos: Position) -> str:
        return self.ranked_claims(pos)[0]

    def ranked_claims(self, pos: Position) -> list[str]:
        """The free territories, the best claim first (ties in board order)."""
        free = [t for t in pos.view.board.territory_names if t not in pos.owner]
        return sorted(free, key=lambda t: -_claim_score(pos, t, self.params))

    def setup_place(self, pos: Position) -> Body:
        quota = pos.view.setup_quota()
        left = quota.get(pos.me, 0)
        if left > 0:
            target = max(pos.mine, key=lambda t: _setup_score(pos, t))
            return {"type": "place_armies", "territory": target, "count": left}
        neutral = next(p for p, n in quota.items() if n > 0)
        spots = [t for t, p in pos.owner.items() if p == neutral]
        target = max(spots, key=lambda t: _block_score(pos, t))
        return {"type": "place_armies", "territory": target, "count": quota[neutral]}

    # Reinforce --------------------------------------------------------------

    def reinforce(self, pos: Position) -> Body:
        view = pos.view
        sets = sets_in_hand(view.board, view.my_hand()) if may_trade(view) else []
        if sets and not view.must_trade and len(view.my_hand()) < self.params.trade_at:
            worth = set_value(pos, best_set(pos, sets))
            hold = self.hunting(pos, view.reserve() + worth) is None
            if hold and self.params.trade_continent:
                margin, most = self.params.conquer_margin, self.params.conquer_most
                hold = conquest(pos, view.reserve() + worth, margin, most) is None
            if hold and self.params.trade_threat > 0:
                hold = threat(pos, 3 * card_worth(pos)) < self.params.trade_threat
            sets = [] if hold else sets
        if sets:
            return {"type": "trade_cards", "cards": list(best_set(pos, sets))}
        reserve = view.reserve()
        territory, count = self.placement(pos, reserve)
        return {"type": "place_armies", "territory": territory, "count": count}

    def placement(self, pos: Position, reserve: int) -> tuple[str, int]:
        """Where to put armies next, and how many: finish a mission the reserve can
        finish, defend held continents, then attack."""
        if self.params.missions and pos.aims is not None:
            short = stack_up(pos, pos.aims, reserve)
            if short is not None:
                return short
        planned = self.hunting(pos, reserve)
        if planned is not None and planned.needs:
            source, missing = planned.needs[0]
            return source, max(1, min(reserve, missing))
        continent = self.conquering(pos, reserve)
        if continent is not None and continent.needs:
            source, missing = continent.needs[0]
            return source, max(1, min(reserve, missing))
        need = self._defence_need(pos)
        if need is not None:
            territory, missing = need
            return territory, max(1, min(reserve, missing))
        return self.attack_base(pos, reserve), reserve

    def _defence_need(self, pos: Position) -> tuple[str, int] | None:
        best: tuple[float, str, int] | None = None
        for group, holder in pos.held_groups.items():
            if holder != pos.me:
                continue
            bonus = float(pos.info.groups[group].bonus)
            if self.params.missions and pos.aims is not None and group in pos.aims.continents():
                bonus += self.params.mission_bonus  # a mission's continent: keep it
            for t in pos.info.entrances[group]:
                missing = round(self.params.defend_share * pos.pressure(t)) - pos.troops[t] + 1
                if missing > 0 and (best is None or bonus * missing > best[0]):
                    best = (bonus * missing, t, missing)
        return None if best is None else (best[1], best[2])

    def attack_base(self, pos: Position, reserve: int) -> str:
        """The border territory from which ``reserve`` more armies attack best."""
        ranked = self.ranked_bases(pos, reserve)
        return ranked[0] if ranked else max(pos.mine, key=lambda t: pos.troops[t])

    def ranked_bases(self, pos: Position, reserve: int) -> list[str]:
        """Own territories to mass ``reserve`` armies on, best first.

        A target is priced with every own army next to it (attacks from
        several sides add up); the armies go on the biggest of those sources.
        """
        best: dict[str, float] = {}
        for target, sources in fronts(pos, 1).items():
            armies = sum(pos.troops[s] - 1 for s in sources) + reserve
            score = self.gain(pos, armies, target, 0, target_worth(pos, target, self.params))[1]
            base = max(sources, key=lambda s: pos.troops[s])
            if score > best.get(base, float("-inf")):
                best[base] = score
        return sorted(best, key=lambda t: -best[t])

    def gain(
        self,
        pos: Position,
        armies: int,
        target: str,
        stop: int,
        value: float,
        bonus: tuple[int, int] = (0, 0),
    ) -> tuple[float, float]:
        """Win probability and expected armies gained attacking ``target`` with
        ``armies`` attacking armies. With one rival left every army it loses
        counts as much as one of ours (the game is zero-sum then; neutral
        armies aside). A ``bonus`` on either side's highest die (leaders,
        strongholds) or the one-die rule prices the win exactly. So does a
        seat with three times its rivals' armies (``Position.dominant``): a
        heuristic with 4,563 armies next to a rival's 391 never attacked, and
        the game stalled. A dominant seat counts the armies of a neutral allied
        with a rival as that rival's (they fight for it): one with 13,808 armies
        next to such an ally's 710, the rival's last territory behind them,
        never attacked either."""
        win, lost, killed = attack_odds(armies, pos.troops[target], stop)
        one_die = pos.view.rules.one_die_vs_one
        if bonus != (0, 0) or one_die:
            win = win_probability(
                armies,
                pos.troops[target],
                attacker_bonus=bonus[0],
                defender_bonus=bonus[1],
                defender_one_die_vs_one=one_die,
                stop_at=stop,
            )
        holder = pos.owner[target]
        rival = (pos.duel() or pos.dominant()) and holder in pos.cards
        ally = pos.view.ally_of(holder) if holder and pos.view.is_neutral(holder) else None
        shield = ally in pos.cards and not pos.is_friend(ally)  # a rival's ally
        kill = 1.0 if rival or (shield and pos.dominant()) else self.params.kill_weight
        return win, win * value - lost + kill * killed

    # Attack -----------------------------------------------------------------

    def hunting(self, pos: Position, reserve: int) -> Hunt | None:
        """The elimination this turn's armies and ``reserve`` make likely (``plan.hunt``)."""
        params = self.params
        if not params.hunt or pos.view.rules.neutrals == "active" or pos.aims is not None:
            return None
        return hunt(
            pos,
            reserve,
            card_worth(pos),
            params.hunt_margin,
            params.hunt_most,
            params.hunt_ratio,
            params.hunt_paths,
        )

    def conquering(self, pos: Position, reserve: int) -> Conquest | None:
        """The continent this turn's armies and ``reserve`` make likely to finish."""
        params = self.params
        if not params.conquer or pos.view.rules.neutrals == "active" or pos.aims is not None:
            return None
        return conquest(pos, reserve, params.conquer_margin, params.conquer_most)

    def attack_or_stop(self, pos: Position) -> Body:
        chosen = self.planned_attack(pos) or self.best_attack(pos)
        if chosen is None:
            return {"type": "end_phase"}  # fortifying has its own phase
        where = {"source": chosen.source, "target": chosen.target}
        if pos.view.rules.defender_chooses_dice and _defender_chooses(pos, chosen.target):
            return {"type": "attack", **where, "dice": min(3, pos.troops[chosen.source] - 1)}
        return {"type": "blitz", **where, "stop_at": chosen.stop_at}

    def planned_attack(self, pos: Position) -> Attack | None:
        """The next attack of an elimination the armies on the board make likely."""
        planned = self.hunting(pos, 0)
        step = None if planned is None else next_target(pos, list(planned.targets))
        if step is None:
            continent = self.conquering(pos, 0)
            step = None if continent is None else next_target(pos, list(continent.targets))
        if step is None:
            return None
        return Attack(step[0], step[1], 1.0, WIN_VALUE, 1)

    def best_attack(self, pos: Position) -> Attack | None:
        best: Attack | None = None
        for candidate in self.attacks(pos):
            if best is None or candidate.score > best.score:
                best = candidate
        return best

    def attacks(self, pos: Position) -> list[Attack]:
        """Every attack worth making, scored by expected gain in armies."""
        found = []
        mode_state = pos.view.mode_state()
        active = pos.view.rules.neutrals == "active"
        reach = fronts(pos)
        for target, sources in reach.items():
            value = target_worth(pos, target, self.params) + score_worth(pos, target, mode_state)
            if active and not allies.ignores_marker(pos, reach):
                value -= allies.marker_risk(pos, target) * self.params.marker_cost
            best: Attack | None = None
            for source in sources:
                attack = self._single(pos, source, target, value)
                if attack is not None and (best is None or attack.score > best.score):
                    best = attack
            if len(sources) > 1:
                joint = self._joint(pos, sources, target, value)
                if joint is not None and (best is None or joint.score > best.score):
                    best = joint
            if best is not None:
                found.append(best)
        return found

    def _single(self, pos: Position, source: str, target: str, value: float) -> Attack | None:
        armies = pos.troops[source] - 1
        stop_at = self._keep(pos, source, target)
        bonus = pos.view.battle_bonus(source, target)
        win, score = self.gain(pos, armies, target, stop_at - 1, value, bonus)
        if stop_at > 1:
            all_out = self.gain(pos, armies, target, 0, value, bonus)
            if all_out[1] > score + 1.0:
                stop_at, (win, score) = 1, all_out
        if win < self.params.min_win or score <= self._least_gain(pos):
            return None
        return Attack(source, target, win, score, stop_at)

    def _least_gain(self, pos: Position) -> float:
        params = self.params
        if not pos.view.conquered_this_turn:
            return params.min_gain
        opening = params.opening_gain if pos.view.turn <= params.opening_turns else 0.0
        return params.min_gain + params.after_card_gain + opening

    def _joint(self, pos: Position, sources: list[str], target: str, value: float) -> Attack | None:
        """Attacks from several sides: start from the biggest, all-out."""
        armies = sum(pos.troops[s] - 1 for s in sources)
        first = max(sources, key=lambda s: pos.troops[s])
        win, score = self.gain(pos, armies, target, 0, value, pos.view.battle_bonus(first, target))
        score -= 1.0  # the armies end up split
        if win < self.params.min_win or score <= self._least_gain(pos):
            return None
        return Attack(max(sources, key=lambda s: pos.troops[s]), target, win, score, 1)

    def _keep(self, pos: Position, source: str, target: str) -> int:
        """Armies to keep on ``source`` if the attack goes badly (blitz ``stop_at``)."""
        others = [n for n in pos.enemies_near(source) if n != target]
        if not others:
            return 1
        pressed = sum(pos.troops[n] - 1 for n in others)
        return max(1, min(pos.troops[source] - 1, int(pressed * self.params.keep_share)))

    # Occupy -----------------------------------------------------------------

    def occupy(self, pos: Position) -> int:
        occ = pos.view.occupation
        if occ is None:
            return 1
        least, most = occ.min_move, occ.max_move
        behind = pos.enemies_near(occ.source)
        ahead = pos.enemies_near(occ.target)
        if not behind:
            return most
        if not ahead:
            return least
        back = sum(pos.troops[n] for n in behind)
        front = self.params.forward_bias * sum(pos.troops[n] for n in ahead)
        total = pos.troops[occ.source]
        wanted = round(total * front / (front + back))
        return max(least, min(most, wanted))

    # Fortify ----------------------------------------------------------------

    def fortify(self, pos: Position) -> Body | None:
        if pos.view.fortified_this_turn:
            return None
        move = best_fortify(pos)
        if move is None:
            return None
        source, target, count = move
        return {"type": "fortify", "source": source, "target": target, "count": count}


# Scores -----------------------------------------------------------------------


def fronts(pos: Position, least: int = 2) -> dict[str, list[str]]:
    """Enemy territories next to own ones holding ``least`` armies, with those sources."""
    found: dict[str, list[str]] = {}
    troops = pos.troops
    for source in pos.mine:
        if troops[source] >= least:
            for target in pos.enemies_near(source):
                found.setdefault(target, []).append(source)
    if not found and pos.view.rules.neutrals == "active":
        return allies.breaches(pos, least)
    return found


def target_worth(pos: Position, target: str, params: Params) -> float:
    """What taking ``target`` is worth, in armies: the territory, the card it
    earns if it is the first conquest of the turn, continent progress, a
    finished or broken continent, and an eliminated player's cards."""
    info = pos.info
    group = info.group_of[target]
    bonus = float(info.groups[group].bonus)
    if params.missions and pos.aims is not None and group in _wanted(pos.aims, params):
        bonus += params.mission_bonus  # a continent a mission wants counts for more
    size = info.size(group)
    mine = pos.held(group, pos.me)
    enemy = pos.owner[target] or ""  # "" for a territory nobody controls
    card = params.card_scale * card_worth(pos)
    value = params.territory
    if not pos.view.conquered_this_turn:
        value += card
    if mine + 1 == size:
        value += params.completion * bonus
    else:
        value += bonus * ((mine + 1) / size) ** 2
    if pos.holds_group(enemy, group):
        value += params.breaking * bonus
    left = pos.territories.get(enemy, 0)
    cards = pos.cards.get(enemy, 0)
    if left == 1 and enemy in pos.cards and (pos.duel() or pos.view.elimination_wins(enemy)):
        value += WIN_VALUE
    elif left == 1:
        value += 3.0 + 1.5 * cards * card
    elif left <= 4:
        value += params.soften * cards * card / left
    if params.missions and pos.aims is not None:
        value += mission_worth(pos.aims, target, pos.owner[target], params)
    if params.leader and enemy and enemy == pos.leader(card_worth(pos), params.leader_ratio):
        value += params.leader
    if params.take_contact:
        rivals_next = sum(1 for n in info.neighbours[target] if pos.is_rival(pos.owner.get(n)))
        value -= params.take_contact * rivals_next
    return value


def _wanted(aims: Aims, params: Params) -> frozenset[str]:
    return aims.focus() if params.focus else aims.continents()


def mission_worth(aims: Aims, target: str, holder: str | None, params: Params) -> float:
    """What taking ``target`` brings toward the seat's open missions, in armies.

    A conquest that does a mission is worth the game when that mission wins it
    (the one secret mission; the last of the four graded ones) and
    ``mission_done`` otherwise; short of that, a territory a mission wants (or
    one of the seat it must destroy) is worth ``mission`` armies more, more as
    the part nears done, and any conquest a little while the mission counts
    territories or conquests in a turn."""
    if aims.completes(target, holder):
        return WIN_VALUE if aims.last else params.mission_done
    value = 0.0
    for goal in aims.goals:
        if target in goal.named:
            value += params.mission * (1 + 1 / len(goal.named))
        if goal.destroy is not None and holder == goal.destroy:
            value += params.mission * (1 + 2 / max(1, goal.destroy_left))
        if (goal.count and goal.least <= 1) or goal.conquests:
            value += params.mission / 2
    return value


def stack_up(pos: Position, aims: Aims, reserve: int) -> tuple[str, int] | None:
    """Armies to place to finish a mission of territories each holding enough
    armies ("Hold 18 territories, each with at least 2 armies"), when this
    reserve does it and nothing else of that mission is missing: the own
    territories nearest the count, the shortest first."""
    for goal in aims.goals:
        if not goal.count or goal.least <= 1 or goal.wanted or goal.conquests or goal.destroy:
            continue
        short = sorted(
            (goal.least - pos.troops[t], t) for t in pos.mine if pos.troops[t] < goal.least
        )[: goal.count]
        if len(short) == goal.count and sum(d for d, _ in short) <= reserve:
            missing, territory = short[0]
            return territory, missing
    return None


def score_worth(pos: Position, target: str, mode_state: dict[str, Any]) -> float:
    """Where the game ends on a score (Lord of the Rings Risk): a stronghold's 2 points,
    and a point more for any territory once the Fellowship nears its end."""
    if "scores" not in mode_state:
        return 0.0
    worth = 2.0 if target in pos.view.board.strongholds else 0.0
    fellowship = mode_state.get("fellowship", {})
    if fellowship.get("step", 0) >= len(pos.view.board.path) - 3:
        worth += 1.0
    return worth


def _spot_score(pos: Position, territory: str) -> float:
    score = pos.troops[territory] + (3.0 if territory in pos.view.board.strongholds else 0.0)
    return score if pos.is_border(territory) else score / 4


def leader_spot(pos: Position, among: Sequence[str] | None = None) -> str | None:
    """Where a leader helps most: the own border territory with most armies (its +1
    on attack and defence), a stronghold counting 3 more (+2 defending together)."""
    options = pos.mine if among is None else among
    return max(options, key=lambda t: (_spot_score(pos, t), t), default=None)


def card_worth(pos: Position) -> float:
    """A card is about a third of the next set's value."""
    rules = pos.view.rules
    if rules.card_values != "progressive":
        return CARD_WORTH
    return rules.trade_value(pos.view.sets_traded(), ("infantry",) * 3) / 3


def may_trade(view: SeatView) -> bool:
    """Trades belong to the start of a turn; mid-turn only forced ones (after an
    elimination), as ``riskcore.rules.reinforce.may_trade`` rules."""
    return not view.conquered_this_turn or view.must_trade


def set_value(pos: Position, combo: tuple[int, int, int]) -> int:
    """Armies a set brings now (its value; the +2 on a pictured territory aside)."""
    view = pos.view
    symbols = tuple(view.board.cards[c].symbol for c in combo)
    return view.rules.trade_value(view.sets_traded(), symbols)


def best_set(pos: Position, sets: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The set worth most now: fixed value, the +2 bonus, and wild cards kept."""
    view = pos.view
    cards = view.board.cards
    bonus_open = not view.bonus_taken()

    def worth(combo: tuple[int, int, int]) -> float:
        symbols = tuple(cards[c].symbol for c in combo)
        value = float(view.rules.trade_value(view.sets_traded(), symbols))
        pictured = [cards[c].territory for c in combo]
        if bonus_open and any(t is not None and pos.owner.get(t) == pos.me for t in pictured):
            value += 2
        return value - 1.5 * symbols.count("wild")

    return max(sets, key=worth)


def _claim_score(pos: Position, territory: str, params: Params) -> float:
    info = pos.info
    group = info.group_of[territory]
    size = info.size(group)
    mine = pos.held(group, pos.me)
    taken = sum(pos.count[group].values())
    rivals = taken - mine
    share = (mine + 1) / size
    score = info.appeal[group] * (0.3 + share) * (1 - rivals / size) ** 2
    holders = [pos.owner.get(n) for n in info.neighbours[territory]]
    score += params.claim_clump * holders.count(pos.me)
    rivals_next = sum(1 for holder in holders if pos.is_rival(holder))
    score -= params.claim_contact * rivals_next
    strongest = max((n for p, n in pos.count[group].items() if p != pos.me), default=0)
    if taken == size - 1 and strongest == size - 1:
        score += 1.0  # the last free territory of a rival's continent
    return score


def _setup_score(pos: Position, territory: str) -> float:
    """Setup placing: borders of the continents it is building, by how pressed."""
    if not pos.is_border(territory):
        return -1.0
    info = pos.info
    group = info.group_of[territory]
    share = pos.held(group, pos.me) / info.size(group)
    focus = info.appeal[group] * (0.2 + share) ** 2
    return focus * (pos.pressure(territory) + 2) / (pos.troops[territory] + 1)


def _block_score(pos: Position, territory: str) -> float:
    """Two-player setup: neutral armies go where they stand in the rival's way."""
    near = pos.enemies_near(territory)
    rivals = sum(1 for n in near if pos.owner.get(n) not in (pos.me,) and not _is_neutral(pos, n))
    mine = sum(1 for n in near if pos.owner.get(n) == pos.me)
    return rivals - 0.5 * mine - 0.1 * pos.troops[territory]


def _is_neutral(pos: Position, territory: str) -> bool:
    holder = pos.owner.get(territory)
    return holder is not None and pos.view.is_neutral(holder)


def _defender_chooses(pos: Position, target: str) -> bool:
    """Whether battles on ``target`` wait for a defender's dice (no blitz then)."""
    holder = pos.owner[target]
    if holder is None:
        return False
    if holder in pos.view.players():
        return True
    others = [p for p in pos.view.players() if p != pos.me]
    return pos.view.is_neutral(holder) and len(others) == 1


def best_fortify(pos: Position) -> tuple[str, str, int] | None:
    """The move that brings most idle armies to where enemies press."""
    best: tuple[float, str, str, int] | None = None
    for move in fortify_moves(pos):
        if best is None or move[0] > best[0]:
            best = move
    return None if best is None else best[1:]


def fortify_moves(pos: Position) -> Iterator[tuple[float, str, str, int]]:
    """Every fortify worth making by the heuristic's measure, as (gain, source,
    target, armies): idle armies towards the border, or a border's spare
    armies to a border that enemies press harder than it is held."""
    dist = pos.distance_to_border()
    connected = pos.view.rules.fortify == "connected"
    for source in pos.mine:
        spare = pos.troops[source] - 1
        if spare < 1:
            continue
        from_border = dist.get(source) == 0
        if from_border:
            spare = min(spare, pos.troops[source] - 1 - pos.pressure(source))
            if spare < 2:
                continue
        for target in reach(pos, source, connected):
            gain = _fortify_gain(pos, dist, source, target, spare, from_border)
            if gain > 0:
                yield gain, source, target, spare


def _fortify_gain(
    pos: Position, dist: dict[str, int], source: str, target: str, spare: int, from_border: bool
) -> float:
    here, there = dist.get(source, 99), dist.get(target, 99)
    if from_border:
        if there != 0:
            return 0.0
        deficit = pos.pressure(target) - pos.troops[target]
        return min(spare, deficit) * 0.5 if deficit > 0 else 0.0
    if there >= here:
        return 0.0
    return spare * (1.0 + 0.1 * pos.pressure(target)) / (1 + there)


def reach(pos: Position, source: str, connected: bool) -> list[str]:
    """Own territories a fortify from ``source`` may reach."""
    owner, me, nbrs = pos.owner, pos.me, pos.info.neighbours
    if not connected:
        return [n for n in nbrs[source] if owner.get(n) == me]
    return sorted(joined_to(source, lambda n: owner.get(n) == me, nbrs))


# Matching against the legal actions ---------------------------------------------


def pick(body: Body, actions: Sequence[Action]) -> Body:
    """The listed action ``body`` describes, numeric fields clamped to bounds.

    Falls back to a safe listed action if ``body`` is not among them (it
    should always be; the fallback keeps a game going if a rule changes).
    """
    for action in actions:
        command = action["command"]
        if command["type"] != body["type"]:
            continue
        bounds = action["bounds"]
        if all(command.get(k) == v for k, v in body.items() if k not in bounds):
            chosen = dict(command)
            for field, (low, high) in bounds.items():
                chosen[field] = max(low, min(high, int(body.get(field, command[field]))))
            return chosen
    return fallback(actions)


def mission_to_claim(actions: Sequence[Action]) -> Body | None:
    """A listed mission claim (the mission game): a done mission is always claimed
    at once, since claiming costs nothing and the moment may pass."""
    claims = of_type(actions, "claim_mission")
    return dict(claims[0]["command"]) if claims else None


def fallback(actions: Sequence[Action]) -> Body:
    playable = [a["command"] for a in actions if a["command"]["type"] != "resign"]
    for kind in ("defend", "occupy", "trade_cards", "end_phase"):
        for command in playable:
            if command["type"] == kind:
                return dict(command)
    return dict(playable[0]) if playable else {"type": "resign"}


class HeuristicBot:
    name = "heuristic"
    version = "1"

    def __init__(
        self,
        params: Params | None = None,
        missions: bool | None = None,
        bribes: bool | None = None,
        plans: bool | None = None,
        hold: bool | None = None,
        gather: bool | None = None,
    ) -> None:
        """``missions=False``: blind to its missions (claims a done one, steers to none);
        ``bribes=False``: never bribes; ``plans=False``: plans no elimination over a
        turn; ``hold=False``: trades every set at once; ``gather=False``: claims by
        continent alone and conquers wherever, as before it gathered its claims next
        to its own and kept its claims and conquests away from its rivals' (``plans``,
        ``hold`` and ``gather`` false: the ``easy`` level). The old behaviours, kept
        for the ablations and the beatable level."""
        chosen = params or Params()
        if missions is not None:
            chosen = replace(chosen, missions=bool(missions))
        if bribes is not None:
            chosen = replace(chosen, bribes=bool(bribes))
        if plans is not None:
            chosen = replace(chosen, hunt=bool(plans))
        if hold is not None:
            chosen = replace(chosen, trade_at=HOLD_AT if hold else 3)
        if gather is not None:
            weights = Params() if gather else APART
            chosen = replace(
                chosen,
                claim_clump=weights.claim_clump,
                claim_contact=weights.claim_contact,
                take_contact=weights.take_contact,
            )
        self.policy = HeuristicPolicy(chosen)

    def choose(self, view: SeatView, actions: Sequence[Action], rng: random.Random) -> Body:
        if not actions:
            return {"type": "resign"}
        return mission_to_claim(actions) or pick(self.policy.body(view), actions)


register("heuristic")(HeuristicBot)
