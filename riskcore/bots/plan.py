"""Turn plans the heuristic follows: an elimination its armies can finish this turn
(``hunt``), and how near a rival is to putting this seat out (``threat``).

A rival put out hands its cards to the seat that takes its last territory;
with progressive set values those cards are the biggest prize on the board,
and a seat that reaches six cards trades at once, mid-turn, and may go on.
Priced one attack at a time the heuristic saw no such prize until a rival
was down to its last territories, and so left the eliminations to others.

``hunt`` looks at every rival still in: its territories split into groups
joined through its own borders; each group is taken by one stack rolling
through it, which needs about its defenders' armies (the expected losses of
a big stack against each, ``riskcore.bots.losses``) plus one army left in
each territory taken, with a margin. The seat's biggest stack next to a
group is that group's source; whatever the sources lack comes from the
reserve. The plan is feasible when the reserve covers every group, and
worth it when the rival's cards (a third of the next set each) and a rival
fewer outweigh what it costs. The plan is computed afresh at every decision
from the view alone (as everything the heuristic does), so the strong bot's
rollouts follow it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from riskcore.bots.features import Position
from riskcore.bots.losses import attack_odds

# Expected attacker losses of a big stack against d defenders, by d.
_BIG = 40


@dataclass(frozen=True, slots=True)
class Hunt:
    """A rival to put out this turn: what each source needs, in armies."""

    victim: str
    needs: tuple[tuple[str, int], ...]  # (source, armies still to place there)
    cost: float  # expected armies spent (losses and armies left behind)
    worth: float
    targets: tuple[str, ...] = ()  # the victim's territories and those on the way to them


def loss(defenders: int) -> float:
    """Expected armies a big stack loses taking ``defenders`` armies' territory."""
    return attack_odds(_BIG, defenders)[1]


def groups_of(pos: Position, territories: list[str]) -> list[list[str]]:
    """``territories`` split into groups joined by borders between them."""
    left = set(territories)
    found = []
    nbrs = pos.info.neighbours
    for start in territories:
        if start not in left:
            continue
        left.discard(start)
        group, stack = [start], [start]
        while stack:
            here = stack.pop()
            for n in nbrs[here]:
                if n in left:
                    left.discard(n)
                    group.append(n)
                    stack.append(n)
        found.append(group)
    return found


def hunt(
    pos: Position,
    reserve: int,
    card: float,
    margin: float,
    most: int,
    ratio: float,
    paths: int = 0,
) -> Hunt | None:
    """The best elimination ``reserve`` more armies make likely this turn, if any.

    ``margin``: armies demanded above the expected cost, per territory taken;
    ``most``: rivals with more territories are not hunted; ``ratio``: the
    prize must be worth this share of the expected cost; ``paths``: the most
    territories of others taken on the way to a group no own territory
    touches (0: such a rival is not hunted).
    """
    best: Hunt | None = None
    me = pos.me
    for rival, cards in pos.cards.items():
        if rival == me or pos.is_friend(rival) or pos.view.is_neutral(rival):
            continue
        held = [t for t, p in pos.owner.items() if p == rival]
        if not held or len(held) > most:
            continue
        plan = _plan(pos, held, margin, paths)
        if plan is None:
            continue
        needs, cost, way = plan
        if sum(n for _, n in needs) > reserve:
            continue
        worth = cards * card + 4.0 + (card * 3 if len(pos.cards) == 3 else 0.0)
        if worth < ratio * cost:
            continue
        if best is None or worth - cost > best.worth - best.cost:
            kept = tuple((s, n) for s, n in needs if n > 0)
            best = Hunt(rival, kept, cost, worth, tuple(held + way))
    return best


Needs = list[tuple[str, int]]


def _plan(
    pos: Position, held: list[str], margin: float, paths: int = 0
) -> tuple[Needs, float, list[str]] | None:
    """Each group's source and what it lacks, the plan's cost and the territories
    taken on the way; None if a group has no own territory next to it (nor, with
    ``paths``, a way of at most that many territories to one)."""
    troops, owner, me, nbrs = pos.troops, pos.owner, pos.me, pos.info.neighbours
    demand: dict[str, float] = {}
    cost = 0.0
    way: list[str] = []
    for group in groups_of(pos, held):
        sources = {n for t in group for n in nbrs[t] if owner.get(n) == me}
        taken = list(group)
        if sources:
            source = max(sources, key=lambda s: (troops[s], s))
        else:
            found = _way_to(pos, group, paths) if paths else None
            if found is None:
                return None
            source, path = found
            taken += path
            way += path
        spent = sum(loss(troops[t]) + 1.0 for t in taken)
        cost += spent
        demand[source] = demand.get(source, 0.0) + spent + margin * len(taken)
    needs = [(s, max(0, round(d) - (troops[s] - 1))) for s, d in sorted(demand.items())]
    return needs, cost, way


def _way_to(pos: Position, group: list[str], most: int) -> tuple[str, list[str]] | None:
    """The cheapest way from an own territory to ``group`` through at most ``most``
    territories of others: (the own source, those territories); None if none."""
    troops, owner, nbrs = pos.troops, pos.owner, pos.info.neighbours
    inside = set(group)
    frontier: dict[str, tuple[float, list[str]]] = {t: (0.0, []) for t in group}
    best: tuple[float, str, list[str]] | None = None
    for _ in range(most):
        grown: dict[str, tuple[float, list[str]]] = {}
        for here, (spent, path) in frontier.items():
            for n in nbrs[here]:
                if n in inside or pos.is_friend(owner.get(n)):
                    continue
                price = spent + loss(troops[n]) + 1.0
                if n not in grown or price < grown[n][0]:
                    grown[n] = (price, [n, *path])
        for here, (spent, path) in grown.items():
            for s in nbrs[here]:
                usable = owner.get(s) == pos.me and troops[s] >= 2
                if usable and (best is None or (spent - troops[s], s) < (best[0], best[1])):
                    best = (spent - troops[s], s, path)
        if best is not None:
            return best[1], best[2]
        inside.update(frontier)
        frontier = grown
    return None


@dataclass(frozen=True, slots=True)
class Conquest:
    """A continent to finish this turn: its enemy territories, what each source needs."""

    group: str
    targets: tuple[str, ...]
    needs: tuple[tuple[str, int], ...]
    cost: float


def conquest(pos: Position, reserve: int, margin: float, most: int) -> Conquest | None:
    """The continent (not the seat's yet, at most ``most`` territories short) that
    ``reserve`` more armies make likely to finish this turn, best bonus for its cost."""
    best: tuple[float, Conquest] | None = None
    owner, names = pos.owner, pos.view.board.territory_names
    for group, info in pos.info.groups.items():
        missing = [t for t in names if t in info.territories and not pos.is_friend(owner.get(t))]
        if not missing or len(missing) > most:
            continue
        plan = _plan(pos, missing, margin)
        if plan is None:
            continue
        needs, cost, _ = plan
        if sum(n for _, n in needs) > reserve:
            continue
        score = info.bonus / (cost + 1.0)
        if best is None or score > best[0]:
            kept = tuple((s, n) for s, n in needs if n > 0)
            best = (score, Conquest(group, tuple(missing), kept, cost))
    return None if best is None else best[1]


def next_target(pos: Position, targets: list[str]) -> tuple[str, str] | None:
    """The target to attack next and from where: the biggest stack next to one
    of ``targets``, against the weakest of them there."""
    troops, owner, me = pos.troops, pos.owner, pos.me
    best: tuple[int, str, str] | None = None
    for t in targets:
        if pos.is_friend(owner.get(t)):
            continue
        for s in pos.info.neighbours[t]:
            if owner.get(s) == me and troops[s] >= 2:
                edge = troops[s] - troops[t]
                if best is None or edge > best[0]:
                    best = (edge, s, t)
    return None if best is None else (best[1], best[2])


def elimination_cost(pos: Position, seat: str) -> float:
    """What putting ``seat`` out costs a big stack: the expected losses against each
    of its territories plus the army left in each (as ``hunt`` prices it)."""
    troops = pos.troops
    return sum(loss(troops[t]) + 1.0 for t, p in pos.owner.items() if p == seat)


def striking_power(pos: Position, rival: str, next_set: float) -> float:
    """Armies ``rival`` may bring against anyone next turn: its armies able to move
    (all but one a territory), its income, and a set's value if it holds three
    cards or more (four or more cards always hold a set)."""
    troops, owner = pos.troops, pos.owner
    armies = sum(troops[t] - 1 for t, p in owner.items() if p == rival)
    cards = pos.cards.get(rival, 0)
    return armies + pos.income(rival) + (next_set if cards >= 3 else 0.0)


def threat(pos: Position, next_set: float) -> float:
    """How near a rival is to putting this seat out on its next turn: the most
    ``striking_power`` of a rival over this seat's ``elimination_cost`` (1 or more:
    a rival can afford it, if its armies reach)."""
    cost = elimination_cost(pos, pos.me)
    if cost <= 0:
        return 0.0
    rivals = [p for p in pos.cards if pos.is_rival(p)]
    return max((striking_power(pos, p, next_set) / cost for p in rivals), default=0.0)
