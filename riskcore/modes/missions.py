"""What the mission games share: mission decks, their goals, and the mission events.

A deck is a data file (``riskcore/modes/decks/<name>.json``): each card has
an id, a grade (0 in the classic deck; 1-4, captain to general, in a graded
deck), a text, a *goal* in a small declarative form, and when it may be
claimed. Goals, all of which must hold at once:

- ``continents``: these continents, each held whole by the seat;
- ``more_continents``: that many further whole continents of its choice;
- ``territories`` (with ``min_armies``, default 1): at least that many
  territories the seat controls, each with at least that many armies;
- ``named``: these territories;
- ``conquests``: that many territories conquered in the seat's current turn;
- ``destroy``: every army of that seat destroyed by this seat (what a card
  naming the seat itself, or a seat someone else put out, becomes is the
  mode's rule: ``fallback_goal``).

Missions are secret: ``MissionDealt`` hides which card a seat drew from
everyone else (its ``SECRET`` field, so a record commits to it without
showing it), and the views show a seat its own missions only, until they
are claimed or the game ends.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from riskcore.engine.decision import Decision
from riskcore.errors import RuleOptionError
from riskcore.model.state import FINISHED, Mission, State
from riskcore.protocol import events as ev
from riskcore.protocol.events import Event, register_event

DECKS = Path(__file__).parent / "decks"
# When a card may be claimed: any time in the holder's turn, or at its end
# (in the fortify phase, before the turn passes).
IN_TURN = "in_turn"
TURN_END = "turn_end"
# What a destroy mission becomes when it cannot be done (the classic cards).
OCCUPY_24 = {"territories": 24}
_GOAL_KEYS = frozenset(
    {"continents", "more_continents", "territories", "min_armies", "named", "conquests", "destroy"}
)


@dataclass(frozen=True, slots=True)
class MissionCard:
    id: str
    grade: int
    text: str
    goal: Mapping[str, Any]
    when: str = IN_TURN


@cache
def load_deck(name: str) -> tuple[MissionCard, ...]:
    """A deck's cards, checked: known goal kinds, known timings, unique ids."""
    if "/" in name or not (DECKS / f"{name}.json").is_file():
        raise RuleOptionError(f"no mission deck {name!r}; one of {deck_names()}")
    data = json.loads((DECKS / f"{name}.json").read_text())
    cards = tuple(
        MissionCard(c["id"], c.get("grade", 0), c["text"], c["goal"], c.get("when", IN_TURN))
        for c in data["cards"]
    )
    for card in cards:
        unknown = set(card.goal) - _GOAL_KEYS
        if unknown or card.when not in (IN_TURN, TURN_END):
            raise RuleOptionError(f"mission deck {name!r}: card {card.id} is malformed")
    if len({c.id for c in cards}) != len(cards):
        raise RuleOptionError(f"mission deck {name!r}: card ids repeat")
    return cards


def deck_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in DECKS.glob("*.json")))


def check_deck_fits(deck: Sequence[MissionCard], state: State) -> None:
    """Refuse at creation a deck whose goals name continents, territories or seats
    the game does not have (a classic deck on another board, say)."""
    groups = {g.id for g in state.board.groups}
    for card in deck:
        goal = card.goal
        missing = set(goal.get("continents", ())) - groups
        missing |= set(goal.get("named", ())) - set(state.board.territory_names)
        if missing:
            raise RuleOptionError(
                f"mission card {card.id} names {sorted(missing)}, not on the {state.board.name}"
                " board: this mode's deck is played on the classic map"
            )


def card_named(deck: Sequence[MissionCard], card_id: str) -> MissionCard:
    return next(c for c in deck if c.id == card_id)


# Events ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class MissionDealt(Event):
    """``seat`` drew the deck's card number ``mission`` (secret to all but ``seat``)."""

    seat: str
    grade: int
    mission: int

    def redacted_for(self, viewer: str | None) -> Event:
        return self if viewer == self.seat else dataclasses.replace(self, mission=-1)


register_event(MissionDealt, "mission_dealt", secret=("mission",))


@dataclass(frozen=True, slots=True, kw_only=True)
class MissionClaimed(Event):
    """``seat`` showed its mission ``card`` done (the mission game)."""

    seat: str
    card: str


register_event(MissionClaimed, "mission_claimed")


@dataclass(frozen=True, slots=True, kw_only=True)
class MissionRevealed(Event):
    """After three claimed missions, the fourth is shown to everyone."""

    seat: str
    card: str


register_event(MissionRevealed, "mission_revealed")


def deal_missions(d: Decision, deck: Sequence[MissionCard], grades: Sequence[int]) -> None:
    """Each player still in draws one card of each grade, each grade's pile shuffled
    apart; the destroy cards of seats not in play (or gone in setup) are taken out."""
    players = d.state.active_players()
    for grade in grades:
        pile = [
            i
            for i, card in enumerate(deck)
            if card.grade == grade and card.goal.get("destroy", players[0]) in players
        ]
        d.rng.shuffle(pile)
        if len(pile) < len(players):
            raise RuleOptionError(f"the mission deck has too few cards of grade {grade}")
        for seat, index in zip(players, pile, strict=False):
            d.emit(MissionDealt(seat=seat, grade=grade, mission=index))


def applier_for(deck_of: Any) -> Any:
    """The ``MissionDealt`` applier of a mode whose deck is ``deck_of(state)``."""

    def dealt(state: State, event: MissionDealt) -> None:
        card = deck_of(state)[event.mission]
        state.missions.setdefault(event.seat, []).append(Mission(card=card.id, grade=event.grade))

    return dealt


def claimed(state: State, event: MissionClaimed) -> None:
    _mark(state, event.seat, event.card, lambda m: dataclasses.replace(m, claimed=True))
    state.mode_data.setdefault("claimed_turn", {})[event.seat] = state.turn


def revealed(state: State, event: MissionRevealed) -> None:
    _mark(state, event.seat, event.card, lambda m: dataclasses.replace(m, revealed=True))


def _mark(state: State, seat: str, card: str, change: Callable[[Mission], Mission]) -> None:
    """``change`` ``seat``'s mission ``card`` (missions are frozen values)."""
    state.missions[seat] = [change(m) if m.card == card else m for m in state.missions[seat]]


def count_conquests(state: State, event: ev.TerritoryConquered) -> None:
    """The turn's conquests, for ``conquests`` goals (reset when a turn starts)."""
    state.mode_data["conquests"] = state.mode_data.get("conquests", 0) + 1


def reset_conquests(state: State, event: ev.TurnStarted) -> None:
    state.mode_data["conquests"] = 0


def note_elimination(state: State, event: ev.PlayerEliminated) -> None:
    """Who put whom out, for ``destroy`` goals."""
    state.mode_data.setdefault("eliminated_by", {})[event.player] = event.seat


# A bot's guess ------------------------------------------------------------------


def deal_unseen(
    real: State, state: State, seat: str, rng: random.Random, deck: Sequence[MissionCard]
) -> None:
    """Deal the rivals' hidden missions into ``state``, a determinised copy of
    ``real`` (``SeatView.determinize`` kept ``seat``'s own missions alone, so in
    a bot's guessed worlds no rival could win by a mission or claim one).

    What ``seat`` knows is what this reads of ``real``: who was dealt which
    grades (public), which missions are claimed or revealed (public, with
    their cards), and its own cards. A hidden mission is drawn from the cards
    of its grade that were in the pile (``dealt_from``) and that no one is
    known to hold, preferring one its holder has not done yet: in the secret
    mission game a done mission would have won, and in the mission game a
    bot claims a done one in its turn.
    """
    pool = [c for c in dealt_from(real, deck) if c.id not in _known(real, seat)]
    rng.shuffle(pool)
    rule = state.rules.mission_target_gone
    guessed: dict[str, list[Mission]] = {}
    for holder, held in real.missions.items():
        if holder == seat:
            guessed[holder] = list(held)
            continue
        guessed[holder] = [
            m
            if m.claimed or m.revealed
            else Mission(card=_draw(pool, m.grade, state, holder, rule).id, grade=m.grade)
            for m in held
        ]
    state.missions = guessed


def dealt_from(real: State, deck: Sequence[MissionCard]) -> list[MissionCard]:
    """The cards the missions were dealt from: the deck less the destroy cards of
    seats that were not dealt missions (``deal_missions`` took those out)."""
    dealt = set(real.missions)
    return [c for c in deck if c.goal.get("destroy") is None or c.goal["destroy"] in dealt]


def _known(real: State, seat: str) -> set[str]:
    """The cards ``seat`` can place: its own, and everyone's claimed or revealed."""
    known = {m.card for m in real.missions.get(seat, ())}
    for held in real.missions.values():
        known |= {m.card for m in held if m.claimed or m.revealed}
    return known


def _draw(pool: list[MissionCard], grade: int, state: State, holder: str, rule: str) -> MissionCard:
    """Take from ``pool`` the first card of ``grade`` that ``holder`` has not done,
    else the first of ``grade`` (the real deal drew every hidden card from it)."""
    of_grade = [c for c in pool if c.grade == grade]
    card = next((c for c in of_grade if not goal_met(state, holder, c.goal, rule)), of_grade[0])
    pool.remove(card)
    return card


# Goals ------------------------------------------------------------------------


def goal_met(state: State, seat: str, goal: Mapping[str, Any], fallback: str) -> bool:
    """Whether ``seat`` has done ``goal`` now (``fallback``: the
    ``mission_target_gone`` rule for a destroy goal that cannot be done)."""
    target = goal.get("destroy")
    if target is not None:
        return _destroyed(state, seat, target, fallback)
    held = set(state.territories_of(seat))
    for continent in goal.get("continents", ()):
        if not _whole(state, continent, held):
            return False
    more = goal.get("more_continents", 0)
    if more:
        named = set(goal.get("continents", ()))
        others = [g for g in state.board.groups if g.id not in named and g.territories <= held]
        if len(others) < more:
            return False
    if not set(goal.get("named", ())) <= held:
        return False
    wanted = goal.get("territories", 0)
    if wanted:
        least = goal.get("min_armies", 1)
        armies = state.armies
        if sum(1 for t in held if armies.get((t, seat), 0) >= least) < wanted:
            return False
    conquests = goal.get("conquests", 0)
    return not conquests or (
        state.current == seat and state.mode_data.get("conquests", 0) >= conquests
    )


def _whole(state: State, continent: str, held: set[str]) -> bool:
    for group in state.board.groups:
        if group.id == continent:
            return group.territories <= held
    raise RuleOptionError(f"no continent {continent!r} on the {state.board.name} board")


def _destroyed(state: State, seat: str, target: str, fallback: str) -> bool:
    """A destroy goal: met when ``seat`` put ``target`` out. Aimed at itself, or at a
    seat someone else put out (or that left), it is the fallback's: 24 territories
    (``occupy_24``), or done (``complete``, only for a target put out by another)."""
    if target == seat:
        return goal_met(state, seat, OCCUPY_24, fallback)
    if target not in state.out:
        return False
    if state.mode_data.get("eliminated_by", {}).get(target) == seat:
        return True
    if fallback == "complete":
        return True
    return goal_met(state, seat, OCCUPY_24, fallback)


def mission_view(state: State, viewer: str | None, deck: Sequence[MissionCard]) -> dict[str, Any]:
    """Each seat's missions as ``viewer`` may see them: its own, and anyone's claimed
    or revealed ones, with their texts; of the rest only the grade (all once over)."""
    over = state.phase == FINISHED
    shown: dict[str, list[dict[str, Any]]] = {}
    for seat, missions in state.missions.items():
        entries = []
        for m in missions:
            visible = over or seat == viewer or m.claimed or m.revealed
            card = card_named(deck, m.card) if visible else None
            entries.append(
                {
                    "grade": m.grade,
                    "card": card.id if card else None,
                    "text": card.text if card else None,
                    "when": card.when if card else None,
                    "goal": dict(card.goal) if card else None,
                    "claimed": m.claimed,
                    "revealed": m.revealed,
                }
            )
        shown[seat] = entries
    return {"missions": shown}
