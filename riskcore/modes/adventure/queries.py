"""What the state says about adventure cards: hands, what is due, blocks and windows."""

from __future__ import annotations

from typing import Any

from riskcore.model.state import State
from riskcore.modes.adventure.deck import (
    DEFENCE_WINDOW,
    HAND_LIMIT,
    LEAVE_ROLL,
    UPRISING,
    WINDOW,
    deck_of,
    plays,
)


def hand(state: State, seat: str) -> list[int]:
    return state.adventure_hands.get(seat, [])


def discard_due(state: State, seat: str) -> bool:
    return len(hand(state, seat)) > HAND_LIMIT


def points_of(state: State, seat: str) -> int:
    """The points of the power and mission cards ``seat`` played."""
    if not plays(state):
        return 0
    played = state.mode_data.get("adventure_played", {}).get(seat, ())
    side = state.seats[seat].side or "good"
    cards = deck_of(state).cards
    return sum(cards[n].points.get(side, 0) for n in played)


def _this_turn(state: State, key: str) -> Any:
    entry = state.mode_data.get(key)
    return entry if isinstance(entry, dict) and entry.get("turn") == state.turn else None


def draw_due(state: State, seat: str) -> bool:
    """002: an adventure card when a leader conquered or moved onto a site of power
    this turn; one a turn, however many sites."""
    return (
        plays(state)
        and state.mode_data.get("site_reached_turn") == state.turn
        and state.mode_data.get("adventure_drawn_turn") != state.turn
    )


def mission_leader(state: State, seat: str) -> str | None:
    """Where ``seat``'s leader stands for a mission claimed this turn (it stays put)."""
    lock = _this_turn(state, "mission_leader")
    return lock["territory"] if lock and lock["seat"] == seat else None


def stronghold_off(state: State, target: str) -> bool:
    off = _this_turn(state, "stronghold_off")
    return bool(off) and target in off["territories"]


def storm_refuses(state: State, source: str, target: str) -> bool:
    storm: dict[str, Any] | None = state.mode_data.get("storm")
    if not storm:
        return False
    return source in storm["territories"] or target in storm["territories"]


def blocked_borders(state: State) -> list[frozenset[str]]:
    """The borders You shall not pass holds now (each until its player's next turn)."""
    return [frozenset(b["border"]) for b in state.mode_data.get("blocked", ())]


def border_blocked(state: State, seat: str, source: str, target: str) -> bool:
    """An attack from ``source`` crosses a blocked border, and no leader of ``seat``
    goes with the armies (one standing in ``source`` does)."""
    blocked = state.mode_data.get("blocked")
    if not blocked or frozenset((source, target)) not in blocked_borders(state):
        return False
    return source not in state.leaders.get(seat, ())


def unblocked_reach(state: State, seat: str, source: str, reach: set[str]) -> set[str]:
    """Of the manoeuvre's ``reach`` from ``source``, what armies reach without crossing
    a blocked border (armies manoeuvre without their leader: ours)."""
    blocked = blocked_borders(state)
    if not blocked:
        return reach
    seen = {source}
    frontier = [source]
    adjacent_only = state.rules.fortify == "adjacent"
    while frontier:
        here = frontier.pop()
        for nxt in state.board.neighbours[here]:
            if nxt in seen or nxt not in reach or frozenset((here, nxt)) in blocked:
                continue
            seen.add(nxt)
            if not adjacent_only:
                frontier.append(nxt)
    seen.discard(source)
    return seen


def called_off(state: State) -> bool:
    """The defender's answer called the attack off (Violent storms): it does not go on."""
    return bool(state.mode_data.get("called_off") == state.turn)


def uprising_cards(state: State, seat: str) -> list[int]:
    """The territory cards ``seat``'s Local uprisings keep aside (secret)."""
    return state.hands.get(UPRISING + seat, [])


def extra_manoeuvres(state: State) -> int:
    extra = _this_turn(state, "extra_manoeuvres")
    return int(extra["left"]) if extra else 0


def window(state: State) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state.mode_data.get("window")
    return found if state.phase == WINDOW else None


def defence_window(state: State) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state.mode_data.get("defence_window")
    return found if state.phase == DEFENCE_WINDOW else None


def window_seat(state: State) -> str | None:
    """Whom a window waits for: the Fellowship's, or the attacked player's."""
    attacked = defence_window(state)
    if attacked is not None:
        return str(attacked["defender"])
    open_window = window(state)
    return open_window["waiting"][0] if open_window and open_window["waiting"] else None


def defence_window_due(state: State, seat: str, target: str) -> bool:
    """An attack on a player holding any adventure card (public), once a turn a
    territory: that player may answer before the battle."""
    if not plays(state):
        return False
    defender = state.owner.get(target)
    if defender is None or defender == seat or not state.is_active(defender):
        return False
    answered = _this_turn(state, "defence_answered")
    if answered and target in answered["targets"]:
        return False
    return bool(hand(state, defender))


def window_holders(state: State, ender: str) -> tuple[str, ...]:
    """Who the window asks, in turn order after ``ender`` (``ender`` last): the players
    holding any adventure card. The count is public, so a window reveals nothing."""
    if not plays(state):
        return ()
    order = list(state.order)
    start = order.index(ender) + 1
    turn = order[start:] + order[:start]
    return tuple(p for p in turn if state.is_active(p) and hand(state, p))


def fellowship_leaves(state: State) -> tuple[bool, int | None]:
    """How the window's cards settle the Fellowship's try: (moves on, the roll).
    A must-roll card on an unmarked square rolls at the close (``roll`` None here)."""
    open_window = state.mode_data["window"]
    effects = open_window["effects"]
    roll = open_window["roll"]
    if effects.get("stays"):
        return False, roll
    if roll is None:
        return not effects.get("must_roll"), None
    return roll + effects.get("add", 0) >= LEAVE_ROLL, roll


def second_leader_due(state: State, seat: str) -> bool:
    return bool(state.mode_data.get("second_leader_due", {}).get(seat))
