"""How the heuristic plays active neutrals (docs/rules.md, "Active neutrals").

Bribes: spare cards (those outside the best set in hand, wild cards kept
last) go first to a neutral allied with the opponent, the strongest first
(one card takes it from them), then to an uninvolved one (one card makes
it an ally); never to an own ally. Allies: always roll for their
reinforcement, and put the armies where the opponent presses hardest. An
ally attacks only a territory of the opponent's side it beats two to one,
since the marker die after it takes the ally away two times in three. Its
free fortify brings an idle stack to a border. Attacking an uninvolved
neutral's territory is priced lower by the chance the marker die hands that
neutral to the opponent (``Params.marker_cost``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from riskcore.bots.features import Position
from riskcore.rules.cards import sets_in_hand
from riskcore.views.seatview import SeatView

Body = dict[str, Any]
BRIBE = "bribe"
REINFORCE_ALLIES = "reinforce_allies"
MOST_CARDS = 5  # a neutral holding 5 cards takes no more


def allies(view: SeatView) -> list[str]:
    me = view.seat
    return [n for n, p in view.alliances().items() if p == me and not view.is_out(n)]


def marker_risk(pos: Position, target: str) -> float:
    """The chance that attacking ``target`` gives an uninvolved neutral to the opponent:
    the marker die moves it away (1-4) after an attack on its territory."""
    holder = pos.owner.get(target)
    if holder is None or not pos.view.is_neutral(holder):
        return 0.0
    return 4 / 6 if pos.view.ally_of(holder) is None else 0.0


# A side this many times the opponent's armies on the board need not fear
# handing it a neutral: what stalls such a game is not attacking at all.
FAR_AHEAD = 3


def ignores_marker(pos: Position, targets: Iterable[str]) -> bool:
    """Whether attacks on uninvolved neutrals go unpriced by the marker risk:
    when they are all it can attack (``walled_off``) or it is far ahead."""
    return walled_off(pos, targets) or far_ahead(pos)


def far_ahead(pos: Position) -> bool:
    """Whether this seat's side has ``FAR_AHEAD`` times the armies of the other
    side (the opponent and the neutrals allied with it) on the board.

    Measured: a heuristic bot with 9,949 armies in East Africa next to an
    uninvolved neutral's 3 and the opponent's side far smaller reinforced
    that stack for hundreds of turns and never attacked (the marker price
    outweighed each territory), and the game hit the command cap.
    """
    view = pos.view
    mine = theirs = 0
    for territory, holder in pos.owner.items():
        if holder is None:
            continue
        side = view.ally_of(holder) if view.is_neutral(holder) else holder
        if side is None:
            continue  # an uninvolved neutral
        if side == pos.me:
            mine += pos.troops[territory]
        else:
            theirs += pos.troops[territory]
    return mine >= FAR_AHEAD * theirs


def walled_off(pos: Position, targets: Iterable[str]) -> bool:
    """Whether every territory it could attack belongs to an uninvolved neutral.

    Then the opponent is out of reach behind neutral territories, and the
    marker risk is the price of getting through: not paying it stalled
    games (a player sealed in behind neutrals, its rival growing stacks of
    thousands next to them and never attacking, 50,000 commands without a
    winner).
    """
    return all(marker_risk(pos, t) > 0 for t in targets)


def breaches(pos: Position, least: int = 2) -> dict[str, list[str]]:
    """Its own allies' territories next to its own ones holding ``least`` armies, with
    those sources: what its own armies may attack when no enemy touches them.

    Measured: a heuristic bot with 186,932 armies walled in by its own ally (Siam
    next to its ally's Indonesia, the opponent's last two territories behind it in
    Australia) never attacked: an ally is a friend, its territories no border, and
    the ally's own attacks wait for two to one, which one die of reinforcement a
    turn never reaches. Its own armies may attack an ally ("andra neutrala eller
    allierade härar"); taking the ally's territory opens the way (the marker die
    may cost the alliance, but a walled-in side has no other move)."""
    mine = set(allies(pos.view))
    found: dict[str, list[str]] = {}
    for source in pos.mine:
        if pos.troops[source] >= least:
            for target in pos.info.neighbours[source]:
                if pos.owner.get(target) in mine:
                    found.setdefault(target, []).append(source)
    return found


def bribe(view: SeatView) -> Body:
    """One spare card to the neutral that gains most from it, or the end of the phase."""
    hand = view.my_hand()
    sets = sets_in_hand(view.board, hand)
    keep = set(sets[0]) if sets else set()
    cards = view.board.cards
    spare = sorted((c for c in hand if c not in keep), key=lambda c: cards[c].symbol == "wild")
    if not spare:
        return {"type": "end_phase"}
    me = view.seat
    alliances = view.alliances()
    troops = view.troop_map()

    def strength(n: str) -> int:
        return sum(troops[t] for t in view.territories_of(n))

    open_to = [
        n
        for n in view.seats()
        if view.is_neutral(n)
        and not view.is_out(n)
        and view.card_count(n) < MOST_CARDS
        and alliances.get(n) != me
    ]
    if not open_to:
        return {"type": "end_phase"}
    best = max(open_to, key=lambda n: (alliances.get(n) is not None, strength(n)))
    return dict(type="bribe", neutral=best, cards=[spare[0]])


def reinforce(pos: Position) -> Body:
    """Roll for each ally, then place its armies where the opponent presses most."""
    view = pos.view
    rolled = view.mode_fact("allies_rolled", [])
    for ally in allies(view):
        if ally not in rolled:
            return dict(type="reinforce_ally", neutral=ally)
    left = view.mode_fact("ally_armies", {})
    for ally in allies(view):
        if left.get(ally, 0) > 0:
            spots = view.territories_of(ally)
            where = max(spots, key=lambda t: (pos.pressure(t), -pos.troops[t]))
            return {"type": "place_armies", "territory": where, "count": left[ally]}
    return {"type": "end_phase"}


def attack(pos: Position) -> Body | None:
    """An ally's blitz on the opponent's side at two to one or better, if any."""
    best: tuple[float, str, str] | None = None
    for ally in allies(pos.view):
        for source in pos.view.territories_of(ally):
            armies = pos.troops[source] - 1
            if armies < 3:
                continue
            for target in pos.enemies_near(source):
                holder = pos.owner.get(target)
                if holder is None or holder == ally:
                    continue
                ratio = armies / pos.troops[target]
                if ratio >= 2 and (best is None or ratio > best[0]):
                    best = (ratio, source, target)
    if best is None:
        return None
    return {"type": "blitz", "source": best[1], "target": best[2], "stop_at": 1}


def fortify(pos: Position) -> Body | None:
    """An ally's free fortify: its biggest stack away from enemies, to a neighbour
    of its own that has enemies next to it."""
    done = pos.view.mode_fact("allies_fortified", [])
    for ally in allies(pos.view):
        if ally in done:
            continue
        held = pos.view.territories_of(ally)
        idle = [t for t in held if pos.troops[t] > 1 and not pos.enemies_near(t)]
        for source in sorted(idle, key=lambda t: -pos.troops[t]):
            fronts = [n for n in pos.info.neighbours[source] if n in held and pos.enemies_near(n)]
            if fronts:
                target = max(fronts, key=lambda t: pos.pressure(t))
                count = pos.troops[source] - 1
                return {"type": "fortify", "source": source, "target": target, "count": count}
    return None
