"""How the heuristic bot plays adventure cards (Lord of the Rings Risk; docs/bots.md).

Simple priced rules, asked before the heuristic's own choice in its turn and
in the windows (a window whose clock runs out, played by the heuristic, gets
the same answer):

- four cards in hand: discard the one worth least (``card_value``: its points
  for the bot's side, plus a mission's worth if a leader of the bot could
  reach its site, plus a little for power cards, which can still be played);
- a mission whose site a leader of the bot stands on is claimed at once (the
  reward is armies or cards, and nothing is lost by claiming);
- in the manoeuvre phase, a leader goes to the site of a mission in hand if a
  chain of own territories reaches it (the heuristic's own leader move comes
  after);
- power cards: Hunt for the Ring-bearer at the start of the turn when the bot
  holds the Fellowship's territory (4 armies), or when it leads the score (the
  Fellowship a step nearer the end); a card played before an attack on the
  attack the heuristic would make next (Ambush always, Grima Wormtongue when
  it takes 2 armies, a stronghold card on a stronghold); Move by night after
  the attacks. Borne to another place is kept (it scores as little as any).
  You shall not pass at the start of the turn, on the bridge where an enemy's
  armies (no leader with them) outnumber the bot's on its own side, the
  biggest such threat first;
- in the Fellowship's window: Faramir turns the roll, +2 when the bot leads
  the score and the roll so far stays (the end comes sooner), -2 when it does
  not lead and the roll so far leaves; every other window card is passed;
- in the defender's window: Violent storms on an attack by sea (its armies
  are destroyed, which never hurts the defender); anything else is passed.

Everything is read from the seat's view (its own hand, public facts), so
the bot never knows another hand; the same rules run in the strong bot's
rollouts, since they are asked from ``HeuristicPolicy.body``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from riskcore.bots.features import joined_to
from riskcore.model.state import ATTACK, FORTIFY, REINFORCE
from riskcore.modes import adventure as cards
from riskcore.views.seatview import SeatView

if TYPE_CHECKING:
    from riskcore.bots.heuristic import HeuristicPolicy

Body = dict[str, Any]
MISSION_IN_REACH = 2.0  # a mission the bot can claim soon, over its points
POWER_KEPT = 0.5  # a power card still to play


def body(view: SeatView, policy: HeuristicPolicy) -> Body | None:
    """An adventure move the bot makes now, or None (the heuristic decides)."""
    if view.rules.adventure_deck == cards.NO_DECK:
        return None
    hand = view.my_adventure_hand()
    deck = cards.load_deck(view.rules.adventure_deck, view.board.name)
    if view.phase in cards.WINDOWS:
        return _in_window(view, deck, hand) or {"type": "pass_adventure"}
    if view.current != view.seat or not hand:
        return None
    if len(hand) > cards.HAND_LIMIT:
        worst = min(hand, key=lambda n: card_value(view, deck.cards[n]))
        return {"type": "discard_adventure", "adventure": worst}
    phase = view.phase
    if phase in (ATTACK, FORTIFY):
        claim = _claim(view, deck, hand)
        if claim is not None:
            return claim
    if phase == REINFORCE:
        return _turn_start(view, deck, hand)
    if phase == ATTACK:
        return _before_attack(view, deck, hand, policy)
    if phase == FORTIFY:
        return _to_a_site(view, deck, hand) or _after_attacks(deck, hand)
    return None


def card_value(view: SeatView, card: cards.AdventureCard) -> float:
    side = (view.sides() or {}).get(view.seat) or "good"
    value = float(card.points.get(side, 0))
    if card.kind == cards.MISSION and card.site is not None:
        if any(card.site in _reach(view, leader) for leader in view.leaders_of(view.seat)):
            value += MISSION_IN_REACH
    elif card.kind == cards.POWER:
        value += POWER_KEPT
    return value


def _claim(view: SeatView, deck: cards.Deck, hand: list[int]) -> Body | None:
    leaders = view.leaders_of(view.seat)
    for number in hand:
        card = deck.cards[number]
        if card.kind != cards.MISSION or card.site not in leaders:
            continue
        where = card.effect.get("where", "site")
        if "armies" in card.effect and isinstance(where, dict):
            region = next(g for g in view.board.groups if g.id == where["region"])
            mine = [t for t in view.territories_of(view.seat) if t in region.territories]
            if not mine:
                continue
            spot = max(mine, key=view.troops)
            return {"type": "claim_adventure", "adventure": number, "territory": spot}
        return {"type": "claim_adventure", "adventure": number}
    return None


def _in_window(view: SeatView, deck: cards.Deck, hand: list[int]) -> Body | None:
    for number in hand:
        card = deck.cards[number]
        if view.phase == cards.WINDOW and card.primitive == "fellowship_roll_choice":
            shift = _faramir_shift(view, card)
            if shift is not None:
                return {"type": "play_adventure", "adventure": number, "shift": shift}
        if view.phase == cards.DEFENCE_WINDOW and card.primitive == "destroy_attackers":
            attacked = view.mode_fact("defence_window") or {}
            kind = view.board.border_kind(attacked.get("source", ""), attacked.get("target", ""))
            if kind == card.params["border"]:
                return {"type": "play_adventure", "adventure": number}
    return None


def _faramir_shift(view: SeatView, card: cards.AdventureCard) -> int | None:
    """+2 to make a staying roll leave when the bot leads, -2 to hold a leaving one
    when it does not; None: the choice would change nothing the bot wants."""
    window = view.mode_fact("window") or {}
    roll = window.get("roll")
    if roll is None or window.get("effects", {}).get("stays"):
        return None
    now = roll + window.get("effects", {}).get("add", 0)
    up, down = cards.roll_choices(card)
    if _leads(view):
        return up if now < cards.LEAVE_ROLL <= now + up else None
    return down if now + down < cards.LEAVE_ROLL <= now else None


def _bridge_to_block(view: SeatView, card: cards.AdventureCard) -> tuple[str, str] | None:
    """The border of the card's kind where an enemy's armies, with no leader of
    theirs there, most outnumber the bot's on its side."""
    me = view.seat
    best: tuple[int, tuple[str, str]] | None = None
    for pair, kind in view.board.border_kinds.items():
        if kind != card.params["kind"]:
            continue
        a, b = sorted(pair)
        for mine, theirs in ((a, b), (b, a)):
            enemy = view.owner(theirs)
            if view.owner(mine) != me or enemy in (None, me) or view.is_neutral(enemy):
                continue
            if theirs in view.leaders_of(enemy):
                continue  # a leader crosses a blocked bridge
            threat = view.troops(theirs) - 1 - view.troops(mine)
            if threat >= 0 and (best is None or threat > best[0]):
                best = (threat, (a, b))
    return best[1] if best else None


def _turn_start(view: SeatView, deck: cards.Deck, hand: list[int]) -> Body | None:
    for number in hand:
        card = deck.cards[number]
        ends = _bridge_to_block(view, card) if card.primitive == "block_border" else None
        if ends is not None and _unblocked(view):
            source, target = ends
            body = {"type": "play_adventure", "adventure": number}
            return {**body, "source": source, "target": target}
        if card.moment != cards.TURN_START or card.primitive != "hunt_fellowship":
            continue
        here = view.fellowship_territory()
        if here is not None and (view.owner(here) == view.seat or _leads(view)):
            return {"type": "play_adventure", "adventure": number}
    return None


def _unblocked(view: SeatView) -> bool:
    """One block at a time from the bot (a second copy waits for another turn)."""
    return not any(b["seat"] == view.seat for b in view.mode_fact("blocked", []))


def _leads(view: SeatView) -> bool:
    ranked: list[str] = view.mode_state().get("ranking", [])
    return ranked[:1] == [view.seat]


def _before_attack(
    view: SeatView, deck: cards.Deck, hand: list[int], policy: HeuristicPolicy
) -> Body | None:
    moments = (cards.BEFORE_ATTACK, cards.BEFORE_ATTACK_STRONGHOLD)
    playable = [n for n in hand if deck.cards[n].moment in moments]
    if not playable:
        return None
    from riskcore.bots.features import Position

    attack = policy.best_attack(Position(view))
    if attack is None:
        return None
    source, target = attack.source, attack.target
    for number in playable:
        card = deck.cards[number]
        if card.moment == cards.BEFORE_ATTACK_STRONGHOLD:
            useful = target in view.board.strongholds
        elif card.primitive == "take_defenders":
            useful = view.troops(target) > card.params["count"]
        else:
            useful = True
        if useful:
            return {
                "type": "play_adventure",
                "adventure": number,
                "source": source,
                "target": target,
            }
    return None


def _to_a_site(view: SeatView, deck: cards.Deck, hand: list[int]) -> Body | None:
    """A leader walks to a mission's site if own territories lead there."""
    moved = view.mode_fact("leader_moved_turn", {}).get(view.seat) == view.turn
    lock = view.mode_fact("mission_leader") or {}
    if moved:
        return None
    sites = {deck.cards[n].site for n in hand if deck.cards[n].kind == cards.MISSION}
    leaders = view.leaders_of(view.seat)
    for leader in leaders:
        if lock.get("turn") == view.turn and lock.get("territory") == leader:
            continue
        for site in sorted(s for s in sites if s is not None and s not in leaders):
            if site in _reach(view, leader):
                return {"type": "move_leader", "source": leader, "target": site}
    return None


def _after_attacks(deck: cards.Deck, hand: list[int]) -> Body | None:
    for number in hand:
        if deck.cards[number].moment == cards.AFTER_ATTACKS:
            return {"type": "play_adventure", "adventure": number}
    return None


def _reach(view: SeatView, source: str) -> set[str]:
    """Own territories a chain of own territories joins to ``source``."""
    me = view.seat
    if view.owner(source) != me:
        return set()
    return joined_to(source, lambda t: view.owner(t) == me, view.board.neighbours)
