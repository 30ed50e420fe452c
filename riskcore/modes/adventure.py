"""Adventure cards of Lord of the Rings Risk (docs/rules.md, "Adventure cards").

A deck is a data file (``riskcore/modes/decks/adventure-*.json``) named by the
``adventure_deck`` rule option ("none": no adventure cards, as the games
recorded before they were played). Each card of the file has a *kind*:

- ``event``: played at once when drawn, then another card is drawn;
- ``mission``: claimed by bringing a leader to its ``site`` (a site of power)
  in the battle or manoeuvre phase; the reward is paid at once and the
  leader then stays put until the next player's turn;
- ``power``: kept secret and played at the ``moment`` it names.

Its *effect* is a small declarative form: one primitive (``EFFECTS`` for
events and power cards, the mission reward for missions) with its
parameters, so a new card needs data, never code. Each copy of a card is a
card of its own: the card numbers a game uses are places in ``Deck.cards``.

Secrets: the pile's order (``AdventureDeckShuffled``) is nobody's until the
end; a card drawn (``AdventureCardDrawn``) is its holder's alone until it is
played, claimed or discarded. Played power and mission cards stay in front
of their player and count their points at the end (``points_of``); events
and discards go to the discard pile and count nothing.
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

from riskcore.boards.board import Board, load_board
from riskcore.engine.decision import Decision, check_can_act, check_owns, check_turn, violation
from riskcore.engine.legal import Action
from riskcore.errors import RuleOptionError
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, REINFORCE, State, copy_json
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.commands import register_command
from riskcore.protocol.events import Event, register_event
from riskcore.rules import battle, fortify, turns

DECKS = Path(__file__).parent / "decks"
NO_DECK = "none"
EVENT, MISSION, POWER = "event", "mission", "power"
LEAVE_ROLL = 4  # the Fellowship leaves a marked square on 4 or more
HAND_LIMIT = 3  # 002: "Du kan ha högst tre äventyrskort på hand på en gång"
DEALT = 3  # 002: "ge 3 äventyrskort (med framsidan ner) till varje spelare"
SOURCES = frozenset({"2002 book", "trilogy", "ours"})
SIDES = ("good", "evil")

# When a card is played: events at once; missions at their site (battle or
# manoeuvre); power cards at one of these moments of their holder's turn.
AT_ONCE, SITE = "at_once", "site"
TURN_START = "turn_start"  # the reinforce phase
BEFORE_ATTACK = "before_attack"  # the attack phase, naming an attack it could make
BEFORE_ATTACK_STRONGHOLD = "before_attack_stronghold"  # the same, on a stronghold
AFTER_ATTACKS = "after_attacks"  # the manoeuvre phase, after the last attack
# The Fellowship's window at the end of every turn (``WINDOW``): after its roll on
# a marked square, as it leaves an unmarked one without a roll, or either.
FELLOWSHIP_ROLLED = "fellowship_rolled"
FELLOWSHIP_UNROLLED = "fellowship_unrolled"
FELLOWSHIP_LEAVES = "fellowship_leaves"
WINDOW = "fellowship_window"  # the phase: players holding adventure cards play or pass
# The defender's window: an attack declared on a player holding an adventure card
# waits for that player to play a card for the moment or pass.
ATTACKED = "attacked"
DEFENCE_WINDOW = "defence_window"
WINDOWS = (WINDOW, DEFENCE_WINDOW)
POWER_MOMENTS = {
    TURN_START: (REINFORCE,),
    BEFORE_ATTACK: (ATTACK,),
    BEFORE_ATTACK_STRONGHOLD: (ATTACK,),
    AFTER_ATTACKS: (FORTIFY,),
    FELLOWSHIP_ROLLED: (WINDOW,),
    FELLOWSHIP_UNROLLED: (WINDOW,),
    FELLOWSHIP_LEAVES: (WINDOW,),
    ATTACKED: (DEFENCE_WINDOW,),
}
MOMENTS = {EVENT: frozenset({AT_ONCE}), MISSION: frozenset({SITE}), POWER: frozenset(POWER_MOMENTS)}
# The effects of events and power cards: each one's parameter names, and the
# moments it may be played at (what it needs from the command).
EVENT_EFFECTS = {
    "second_leader": frozenset(),
    "side_holds": frozenset({"territory", "side", "gain", "else_lose"}),
    "top_territory_cards": frozenset({"count", "each"}),
    "uprising": frozenset({"armies"}),
}
EACH_TERRITORY = frozenset({"halve", "add_3", "storm"})
POWER_EFFECTS = {
    "add_armies": frozenset({"where", "count"}),
    "take_defenders": frozenset({"count"}),
    "stronghold_off": frozenset(),
    "extra_manoeuvres": frozenset({"count"}),
    "move_own_leader": frozenset(),
    "hunt_fellowship": frozenset({"armies"}),
    "fellowship_stays": frozenset({"in"}),
    "fellowship_must_roll": frozenset(),
    "fellowship_roll_add": frozenset({"add"}),
    "reinforce_attacked": frozenset({"armies"}),
    "withdraw": frozenset(),
    "fellowship_roll_choice": frozenset({"by"}),
    "block_border": frozenset({"kind"}),
    "destroy_attackers": frozenset({"border"}),
}
# Which power effects fit which moments (an attack to name, a leader to move...).
_EFFECT_MOMENTS = {
    "add_armies": {BEFORE_ATTACK, BEFORE_ATTACK_STRONGHOLD},
    "take_defenders": {BEFORE_ATTACK, BEFORE_ATTACK_STRONGHOLD},
    "stronghold_off": {BEFORE_ATTACK_STRONGHOLD},
    "extra_manoeuvres": {AFTER_ATTACKS},
    "move_own_leader": {TURN_START},
    "hunt_fellowship": {TURN_START},
    "fellowship_stays": {FELLOWSHIP_ROLLED, FELLOWSHIP_LEAVES},
    "fellowship_must_roll": {FELLOWSHIP_UNROLLED},
    "fellowship_roll_add": {FELLOWSHIP_ROLLED},
    "reinforce_attacked": {ATTACKED},
    "withdraw": {ATTACKED},
    "fellowship_roll_choice": {FELLOWSHIP_ROLLED},
    "block_border": {TURN_START},
    "destroy_attackers": {ATTACKED},
}
# Where a Local uprising's territory card waits, secret, in ``State.hands`` (a hand of
# its own per player: the territory cards are all in the pile, the discards or a hand).
UPRISING = "uprising:"


@dataclass(frozen=True, slots=True)
class AdventureCard:
    """One card (one copy): what the file says of it."""

    id: str
    kind: str
    name: str
    moment: str
    effect: Mapping[str, Any]
    points: Mapping[str, int]  # per side
    site: str | None = None
    text: str = ""

    @property
    def primitive(self) -> str:
        """The effect's one primitive (events, power cards)."""
        return next(iter(self.effect))

    @property
    def params(self) -> Mapping[str, Any]:
        value: Mapping[str, Any] = self.effect[self.primitive]
        return value

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "moment": self.moment,
            "site": self.site,
            "points": dict(self.points),
            "effect": json.loads(json.dumps(self.effect)),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Deck:
    name: str
    cards: tuple[AdventureCard, ...]

    def numbers(self, kind: str | None = None) -> list[int]:
        return [i for i, c in enumerate(self.cards) if kind is None or c.kind == kind]


def deck_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in DECKS.glob("adventure-*.json")))


@cache
def load_deck(name: str, board: str) -> Deck:
    """The deck named ``name`` (a file in ``DECKS``), checked against the ``board``."""
    path = DECKS / f"{name}.json"
    if "/" in name or not name.startswith("adventure-") or not path.is_file():
        raise RuleOptionError(f"no adventure deck {name!r}; one of {deck_names()}")
    return parse_deck(json.loads(path.read_text()), load_board(board), name)


def parse_deck(data: Mapping[str, Any], board: Board, name: str) -> Deck:
    """A deck from its file's JSON: every card checked, so a bad file fails when a game
    is created, naming the card and what is wrong with it."""
    cards: list[AdventureCard] = []
    ids: set[str] = set()
    for entry in data.get("cards", ()):
        try:
            card, copies = _card(entry, board)
        except (KeyError, TypeError, ValueError, AttributeError) as fault:
            raise RuleOptionError(
                f"adventure deck {name!r}: card {entry.get('id', '?')!r}: {fault}"
            ) from None
        if card.id in ids:
            raise RuleOptionError(f"adventure deck {name!r}: card id {card.id!r} repeats")
        ids.add(card.id)
        cards.extend([card] * copies)
    if not cards:
        raise RuleOptionError(f"adventure deck {name!r} has no cards")
    return Deck(name, tuple(cards))


def _card(entry: Mapping[str, Any], board: Board) -> tuple[AdventureCard, int]:
    kind, moment, effect = entry["kind"], entry["moment"], entry["effect"]
    if kind not in MOMENTS:
        raise ValueError(f"unknown kind {kind!r}")
    if moment not in MOMENTS[kind]:
        raise ValueError(f"unknown moment {moment!r} for a {kind} card")
    copies = entry["copies"]
    if type(copies) is not int or copies < 1:
        raise ValueError(f"copies must be a positive integer, not {copies!r}")
    points = entry.get("points", 0)
    per_side = {side: points for side in SIDES} if isinstance(points, int) else dict(points)
    if set(per_side) != set(SIDES) or not all(type(v) is int for v in per_side.values()):
        raise ValueError(f"points must be a number or one per side, not {points!r}")
    source = entry["source"]
    if not isinstance(source, dict) or not set(source.values()) <= SOURCES or "card" not in source:
        raise ValueError(f"source must name, per number, one of {sorted(SOURCES)}")
    site = entry.get("site")
    if kind == MISSION:
        _check_reward(effect, board)
        if site not in board.sites_of_power:
            raise ValueError(f"site {site!r} is no site of power on the {board.name} board")
    else:
        _check_effect(kind, moment, effect, board)
    card = AdventureCard(
        id=entry["id"],
        kind=kind,
        name=entry["name"],
        moment=moment,
        effect=effect,
        points=per_side,
        site=site,
        text=entry.get("text", ""),
    )
    return card, copies


def _check_effect(kind: str, moment: str, effect: Mapping[str, Any], board: Board) -> None:
    table = EVENT_EFFECTS if kind == EVENT else POWER_EFFECTS
    if not isinstance(effect, dict) or len(effect) != 1:
        raise ValueError("an effect is one primitive with its parameters")
    ((primitive, params),) = effect.items()
    if primitive not in table:
        raise ValueError(f"unknown effect {primitive!r} for a {kind} card")
    if set(params) != table[primitive]:
        raise ValueError(f"effect {primitive!r} takes {sorted(table[primitive])}")
    if kind == POWER and moment not in _EFFECT_MOMENTS[primitive]:
        raise ValueError(f"effect {primitive!r} cannot be played at {moment!r}")
    for key in ("territory", "in"):
        territory = params.get(key)
        if territory is not None and territory not in board.territory_names:
            raise ValueError(f"unknown territory {territory!r}")
    if "side" in params and params["side"] not in SIDES:
        raise ValueError(f"unknown side {params['side']!r}")
    if "each" in params and params["each"] not in EACH_TERRITORY:
        raise ValueError(f"unknown territory effect {params['each']!r}")
    if params.get("where", "source") != "source":
        raise ValueError("armies go to the attacking territory ('source')")
    for key in ("kind", "border"):
        if key in params and params[key] not in set(board.border_kinds.values()):
            raise ValueError(f"the {board.name} board has no border of kind {params[key]!r}")
    for number in ("gain", "else_lose", "count", "armies", "add", "by"):
        if number in params and (type(params[number]) is not int or params[number] < 0):
            raise ValueError(f"{number} must be a whole number")


def _check_reward(effect: Mapping[str, Any], board: Board) -> None:
    known = {"armies", "where", "territory_cards"}
    if not isinstance(effect, dict) or not effect or not set(effect) <= known:
        raise ValueError(f"a mission's reward takes {sorted(known)}")
    if "armies" in effect:
        armies = effect["armies"]
        if set(armies) != set(SIDES) or not all(type(v) is int for v in armies.values()):
            raise ValueError("a reward gives armies per side")
        where = effect.get("where", "site")
        region = where.get("region") if isinstance(where, dict) else None
        if where != "site" and region not in {g.id for g in board.groups}:
            raise ValueError(f"armies go to the site or a region of the board, not {where!r}")
    cards = effect.get("territory_cards", 0)
    if type(cards) is not int or cards < 0:
        raise ValueError("territory_cards must be a whole number")


def deck_of(state: State) -> Deck:
    return load_deck(state.rules.adventure_deck, state.board.name)


def plays(state: State) -> bool:
    return state.rules.adventure_deck != NO_DECK


# Commands ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayAdventure(cmd.Command):
    """Play the power card ``adventure`` from your hand; an attack it comes before
    names ``source`` and ``target``, a leader it moves names them too, a border it
    blocks names its two ends; ``shift`` is what a card that lets its player choose
    adds to the Fellowship's roll (Faramir: +2 or -2)."""

    adventure: int
    source: str | None = None
    target: str | None = None
    shift: int | None = None


register_command(
    PlayAdventure,
    "play_adventure",
    fields={
        "adventure": "int",
        "source": "str | None",
        "target": "str | None",
        "shift": "int | None",
    },
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimAdventure(cmd.Command):
    """Claim the mission card ``adventure``: a leader of yours stands on its site.
    A reward of armies somewhere in a region names the ``territory``."""

    adventure: int
    territory: str | None = None


register_command(
    ClaimAdventure, "claim_adventure", fields={"adventure": "int", "territory": "str | None"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardAdventure(cmd.Command):
    """Discard ``adventure``: a fourth card was drawn and three may be held."""

    adventure: int


register_command(DiscardAdventure, "discard_adventure", fields={"adventure": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAdventure(cmd.Command):
    """Play nothing in the Fellowship's window (a bot passes at once)."""


register_command(PassAdventure, "pass_adventure")


# Events --------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDeckShuffled(Event):
    """The adventure pile, top first (secret until the end): ``deal``, the cards dealt
    at setup (the events taken out), or ``pile``, what is left with the events back."""

    adventure_order: tuple[int, ...]
    purpose: str

    def redacted_for(self, viewer: str | None) -> Event:
        return dataclasses.replace(self, adventure_order=(-1,) * len(self.adventure_order))


register_event(
    AdventureDeckShuffled,
    "adventure_deck_shuffled",
    secret=("adventure_order",),
    tuples=("adventure_order",),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureCardDrawn(Event):
    """``seat`` took the pile's top card ``adventure`` (secret to all but ``seat``):
    dealt at setup (``deal``) or drawn at the end of a turn (``draw``)."""

    seat: str
    adventure: int
    reason: str

    def redacted_for(self, viewer: str | None) -> Event:
        return self if viewer == self.seat else dataclasses.replace(self, adventure=-1)


register_event(AdventureCardDrawn, "adventure_card_drawn", secret=("adventure",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventurePlayed(Event):
    """``seat`` played ``adventure`` (an event as it was drawn, or a power card), with
    what it did in ``facts``: ``changes`` ([territory, seat, armies gained or lost]),
    ``revealed_cards`` (territory cards shown and discarded), and the lasting effects
    (``storm``, ``stronghold_off``, ``extra_manoeuvres``, ``second_leader``,
    ``leader`` [from, to], ``fellowship_step``, ``blocked`` [the bridge's ends]),
    ``called_off`` (the attack a defender answered does not go on) and
    ``uprising`` (its territory card follows, ``AdventureUprisingKept``)."""

    seat: str
    adventure: int
    source: str | None = None
    target: str | None = None
    facts: dict[str, Any]


register_event(AdventurePlayed, "adventure_played")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureMissionClaimed(Event):
    """``seat``'s leader in ``territory`` claimed the mission ``adventure``; ``facts``
    holds the reward's ``changes`` (its territory cards are drawn as ``card_drawn``)."""

    seat: str
    adventure: int
    territory: str
    facts: dict[str, Any]


register_event(AdventureMissionClaimed, "adventure_mission_claimed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureWindowOpened(Event):
    """End of ``seat``'s turn: the Fellowship tries to move on, ``roll`` the die of a
    marked square (None elsewhere). Each player holding an adventure card (a public
    count) may play a card for the moment or pass, in the order of ``waiting``."""

    seat: str
    roll: int | None
    waiting: tuple[str, ...]


register_event(AdventureWindowOpened, "adventure_window_opened", tuples=("waiting",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDefenceWindowOpened(Event):
    """``seat`` declared an attack from ``source`` on ``defender``'s ``target`` (the
    ``command`` it sent); ``defender`` holds an adventure card (a public count) and
    may play one for the moment or pass before the attack goes on."""

    seat: str
    defender: str
    source: str
    target: str
    command: dict[str, Any]


register_event(AdventureDefenceWindowOpened, "adventure_defence_window_opened")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureUprisingKept(Event):
    """Local uprising: ``seat`` took the territory card ``card`` from the pile (the
    first from the top naming a territory) and keeps it aside, secret to all but
    ``seat``, until it holds that territory."""

    seat: str
    adventure: int
    card: int

    def redacted_for(self, viewer: str | None) -> Event:
        return self if viewer == self.seat else dataclasses.replace(self, card=-1)


register_event(AdventureUprisingKept, "adventure_uprising_kept", secret=("card",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureUprisingRevealed(Event):
    """``seat`` holds ``territory``, the one the territory card ``card`` its Local
    uprising ``adventure`` kept names: the card is shown (then discarded) and
    ``armies`` join ``seat`` there."""

    seat: str
    adventure: int
    card: int
    territory: str
    armies: int


register_event(AdventureUprisingRevealed, "adventure_uprising_revealed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureWindowPassed(Event):
    """``seat`` played nothing in the window (the Fellowship's or a defender's)."""

    seat: str


register_event(AdventureWindowPassed, "adventure_window_passed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDiscarded(Event):
    """``seat`` held four adventure cards and discarded ``adventure`` (no points)."""

    seat: str
    adventure: int


register_event(AdventureDiscarded, "adventure_discarded")


# Queries -------------------------------------------------------------------


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


# Setup and drawing -----------------------------------------------------------------


def deal(d: Decision) -> None:
    """002: "Ta bort händelsekorten ... ge 3 äventyrskort ... till varje spelare. Lägg
    tillbaka händelsekorten i korthögen, blanda": three each, the events put back after."""
    s = d.state
    if not plays(s):
        return
    deck = deck_of(s)
    pile = [n for n in deck.numbers() if deck.cards[n].kind != EVENT]
    players = s.active_players()
    if len(pile) < DEALT * len(players):
        raise RuleOptionError(f"adventure deck {deck.name!r} has too few cards to deal")
    d.rng.shuffle(pile)
    d.emit(AdventureDeckShuffled(adventure_order=tuple(pile), purpose="deal"))
    for _ in range(DEALT):
        for seat in players:
            d.emit(AdventureCardDrawn(seat=seat, adventure=s.adventure_deck[0], reason="deal"))
    rest = list(s.adventure_deck) + deck.numbers(EVENT)
    d.rng.shuffle(rest)
    d.emit(AdventureDeckShuffled(adventure_order=tuple(rest), purpose="pile"))


def draw(d: Decision, seat: str) -> None:
    """The turn's adventure card: an event is played at once and another drawn, until
    a card to keep comes (or the pile is empty: it is not refilled)."""
    s = d.state
    cards = deck_of(s).cards
    while s.adventure_deck:
        number = s.adventure_deck[0]
        d.emit(AdventureCardDrawn(seat=seat, adventure=number, reason="draw"))
        if cards[number].kind != EVENT:
            return
        card = cards[number]
        d.emit(AdventurePlayed(seat=seat, adventure=number, facts=_event_facts(s, seat, card)))
        if card.primitive == "uprising":
            _keep_uprising(d, seat, number)


def _keep_uprising(d: Decision, seat: str, number: int) -> None:
    """Local uprising: the first territory card from the top naming a territory is
    kept aside, secret (an empty pile is refilled from the discards first, as a draw
    is; a pile of wild cards only gives none); if ``seat`` holds that territory
    already, it rises at once."""
    s = d.state
    if not s.deck and s.discard:
        order = list(s.discard)
        d.rng.shuffle(order)
        d.emit(ev.DeckShuffled(order=tuple(order), reshuffle=True))
    card = next((c for c in s.deck if _names_territory(s, c)), None)
    if card is None:
        return
    d.emit(AdventureUprisingKept(seat=seat, adventure=number, card=card))
    uprisings_rise(d, seat)


def _names_territory(s: State, card: int) -> bool:
    return s.board.card(card).territory is not None


def uprisings_rise(d: Decision, seat: str) -> None:
    """Each card ``seat``'s Local uprisings keep whose territory ``seat`` holds now is
    shown, and its armies join there (trilogy: "when you control that territory")."""
    s = d.state
    kept = s.mode_data.get("uprisings", {}).get(seat, [])
    if not kept or s.phase == FINISHED:
        return
    cards = deck_of(s).cards
    for card, number in zip(list(uprising_cards(s, seat)), list(kept), strict=True):
        territory = s.board.card(card).territory
        if territory is not None and s.owner.get(territory) == seat:
            armies = cards[number].params["armies"]
            d.emit(
                AdventureUprisingRevealed(
                    seat=seat, adventure=number, card=card, territory=territory, armies=armies
                )
            )


def _event_facts(s: State, seat: str, card: AdventureCard) -> dict[str, Any]:
    params = card.params
    if card.primitive == "second_leader":
        room = len(s.leaders.get(seat, ())) < 2 and len(s.territories_of(seat)) > 1
        return {"second_leader": room}
    if card.primitive == "uprising":
        return {"uprising": True}
    if card.primitive == "side_holds":
        territory = params["territory"]
        holder = s.owner.get(territory)
        if holder is None or not s.seats[holder].plays:
            return {"changes": []}
        if s.seats[holder].side == params["side"]:
            return {"changes": [[territory, holder, params["gain"]]]}
        loss = min(params["else_lose"], s.troops(territory) - 1)
        return {"changes": [[territory, holder, -loss]] if loss else []}
    # top_territory_cards
    shown = s.deck[: params["count"]]
    by_id = {c.id: c for c in s.board.cards}
    places = [t for c in shown if (t := by_id[c].territory) is not None]
    facts: dict[str, Any] = {"revealed_cards": list(shown), "changes": []}
    each = params["each"]
    if each == "storm":
        facts["storm"] = places
        return facts
    for territory in places:
        holder = s.owner.get(territory)
        if holder is None:
            continue
        if each == "add_3":
            facts["changes"].append([territory, holder, 3])
        else:  # halve, 1 always staying
            loss = min(s.troops(territory) // 2, s.troops(territory) - 1)
            if loss:
                facts["changes"].append([territory, holder, -loss])
    return facts


# Handlers ------------------------------------------------------------------


def _held(s: State, seat: str, number: int) -> AdventureCard:
    if s.phase in WINDOWS:
        check_can_act(s, seat)
        if window_seat(s) != seat:
            raise violation("not_your_turn", f"the Fellowship's window waits for {window_seat(s)}")
    else:
        check_turn(s, seat)
    if not plays(s) or number not in hand(s, seat):
        raise violation("adventure_not_held", f"you hold no adventure card {number!r}")
    if discard_due(s, seat):
        raise violation("adventure_discard_due", "you hold four adventure cards: discard one first")
    return deck_of(s).cards[number]


def drawn_closes(state: State, seat: str) -> bool:
    """``seat`` drew its adventure card this turn and plays no more cards in it
    (``adventure_draw_closes``; 002_84c66041fccdfcee.txt: «Efter att du har dragit ett
    äventyrskort kan inga fler kort spelas under den spelturen, förutom händelsekort»).
    The drawer is the player whose turn it is; the other players' cards stay open."""
    return (
        state.rules.adventure_draw_closes
        and seat == state.current
        and state.mode_data.get("adventure_drawn_turn") == state.turn
    )


def play(d: Decision, command: PlayAdventure) -> None:
    s = d.state
    seat = command.seat
    card = _held(s, seat, command.adventure)
    if card.kind != POWER:
        raise violation(
            "not_a_power_card", f"{card.name!r} is a {card.kind} card, not a power card"
        )
    if drawn_closes(s, seat):
        raise violation(
            "adventure_drawn", "you drew an adventure card this turn: no more cards but events"
        )
    if s.phase not in POWER_MOMENTS[card.moment] or not _window_fits(s, card):
        raise violation(
            "adventure_wrong_moment",
            f"{card.name!r} is played {card.moment.replace('_', ' ')}, not in {s.phase!r}",
        )
    facts = _POWER[card.primitive](s, seat, card, command)
    d.emit(
        AdventurePlayed(
            seat=seat,
            adventure=command.adventure,
            source=command.source,
            target=command.target,
            facts=facts,
        )
    )


def _window_fits(s: State, card: AdventureCard) -> bool:
    """A Fellowship card fits the window's try: after a roll, without one, or in a
    named territory only (A Balrog! in Moria)."""
    open_window = window(s)
    if open_window is None:
        return True
    rolled = open_window["roll"] is not None
    if card.moment == FELLOWSHIP_ROLLED and not rolled:
        return False
    if card.moment == FELLOWSHIP_UNROLLED and rolled:
        return False
    where = card.params.get("in") if card.primitive == "fellowship_stays" else None
    step = s.fellowship or 0
    return where is None or s.board.path[step].territory == where


def _attack_named(s: State, seat: str, card: AdventureCard, command: PlayAdventure) -> str:
    """The attack a before-attack card names must be one the player could make now."""
    if command.source is None or command.target is None:
        raise violation("adventure_needs_attack", f"{card.name!r} names an attack: source, target")
    battle.check_attack(s, seat, command.source, command.target)
    if card.moment == BEFORE_ATTACK_STRONGHOLD and command.target not in s.board.strongholds:
        raise violation(
            "adventure_not_a_stronghold", f"{card.name!r} is played on a stronghold only"
        )
    return command.target


def _add_armies(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    _attack_named(s, seat, card, c)
    return {"changes": [[c.source, seat, card.params["count"]]]}


def _take_defenders(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    target = _attack_named(s, seat, card, c)
    defender = s.owner.get(target)
    taken = min(card.params["count"], s.troops(target) - 1)
    if not taken or defender is None:
        return {"changes": []}
    return {"changes": [[target, defender, -taken], [c.source, seat, taken]]}


def _stronghold_off(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"stronghold_off": _attack_named(s, seat, card, c)}


def _extra_manoeuvres(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"extra_manoeuvres": card.params["count"] + extra_manoeuvres(s)}


def _move_own_leader(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    own = s.leaders.get(seat, ())
    if c.source is None or c.source not in own:
        raise violation("no_leader_there", f"no leader of yours is in {c.source!r}")
    if c.target is None:
        raise violation("adventure_needs_target", f"{card.name!r} names where the leader goes")
    check_owns(s, seat, c.target)
    if c.target in own:
        raise violation(
            "leader_already_there", f"{c.target!r} holds a leader of yours; two never share"
        )
    return {"leader": [c.source, c.target]}


def _hunt(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    step = s.fellowship or 0
    here = s.board.path[step].territory
    if s.owner.get(here) == seat:
        return {"changes": [[here, seat, card.params["armies"]]]}
    return {"fellowship_step": step + 1}


def _stays(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"stays": True}}


def _must_roll(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"must_roll": True}}


def _roll_add(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"add": _window_add(s) + card.params["add"]}}


def _window_add(s: State) -> int:
    """What cards played in this window added to the roll so far."""
    return int(s.mode_data["window"]["effects"].get("add", 0))


def roll_choices(card: AdventureCard) -> tuple[int, int]:
    """The shifts a card that lets its player choose allows: +by or -by."""
    by: int = card.params["by"]
    return by, -by


def _roll_choice(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """Faramir: the player adds or subtracts the card's number (``shift``)."""
    if c.shift not in roll_choices(card):
        choices = " or ".join(f"{v:+d}" for v in roll_choices(card))
        raise violation(
            "adventure_needs_shift", f"{card.name!r} changes the roll by {choices} (shift)"
        )
    return {"window": {"add": _window_add(s) + c.shift}}


def _block_border(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """You shall not pass: the border named by its two ends, of the card's kind."""
    kind = card.params["kind"]
    if c.source is None or c.target is None or s.board.border_kind(c.source, c.target) != kind:
        raise violation(
            "adventure_needs_border",
            f"{card.name!r} names a border of kind {kind!r} by its two ends (source, target)",
        )
    if frozenset((c.source, c.target)) in blocked_borders(s):
        raise violation("border_already_blocked", f"{c.source!r} - {c.target!r} is blocked already")
    return {"blocked": sorted((c.source, c.target))}


def _destroy_attackers(
    s: State, seat: str, card: AdventureCard, c: PlayAdventure
) -> dict[str, Any]:
    """Violent storms: an attack over a border of the card's kind (by sea) is called off
    and the armies it sends into the battle are destroyed."""
    attacked = s.mode_data["defence_window"]
    source, target = attacked["source"], attacked["target"]
    kind = card.params["border"]
    if s.board.border_kind(source, target) != kind:
        raise violation(
            "adventure_not_by_sea",
            f"{card.name!r} answers an attack over a {kind} border, not {source!r} - {target!r}",
        )
    lost = attacking_armies(s, attacked["command"])
    return {"changes": [[source, attacked["seat"], -lost]], "defence": True, "called_off": True}


def attacking_armies(s: State, body: Mapping[str, Any]) -> int:
    """The armies an attack sends into its (first) battle: an attack's dice (at most
    the source allows), a blitz's most dice. Ours: the book attacks "med högst tre
    bataljoner vid varje tillfälle", so the battle's armies are its dice."""
    most = min(3, s.troops(body["source"]) - 1)
    dice = body.get("dice") if body.get("type") == "attack" else None
    return most if dice is None else min(int(dice), most)


def _reinforce_attacked(
    s: State, seat: str, card: AdventureCard, c: PlayAdventure
) -> dict[str, Any]:
    target = s.mode_data["defence_window"]["target"]
    return {"changes": [[target, seat, card.params["armies"]]], "defence": True}


def _withdraw(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """All but 1 army of the attacked territory go to a bordering one of the defender's."""
    attacked = s.mode_data["defence_window"]["target"]
    if c.target is None or c.target not in _withdrawals(s, seat, attacked):
        raise violation(
            "adventure_needs_target",
            f"{card.name!r} names a territory of yours bordering {attacked!r} (target)",
        )
    moving = s.troops(attacked) - 1
    changes = [[attacked, seat, -moving], [c.target, seat, moving]] if moving else []
    return {"changes": changes, "defence": True}


def _withdrawals(s: State, seat: str, attacked: str) -> list[str]:
    return [t for t in s.board.neighbours[attacked] if s.owner.get(t) == seat]


_POWER: dict[str, Callable[[State, str, AdventureCard, PlayAdventure], dict[str, Any]]] = {
    "fellowship_stays": _stays,
    "fellowship_must_roll": _must_roll,
    "fellowship_roll_add": _roll_add,
    "reinforce_attacked": _reinforce_attacked,
    "withdraw": _withdraw,
    "add_armies": _add_armies,
    "take_defenders": _take_defenders,
    "stronghold_off": _stronghold_off,
    "extra_manoeuvres": _extra_manoeuvres,
    "move_own_leader": _move_own_leader,
    "hunt_fellowship": _hunt,
    "fellowship_roll_choice": _roll_choice,
    "block_border": _block_border,
    "destroy_attackers": _destroy_attackers,
}


def claim(d: Decision, command: ClaimAdventure) -> None:
    """002: "Du kan förklara ett uppdrag genomfört ... när som helst under faserna Strid
    och Manöver, genom att flytta din ledare till det aktuella territoriet"."""
    s = d.state
    seat = command.seat
    card = _held(s, seat, command.adventure)
    if card.kind != MISSION:
        raise violation("not_a_mission_card", f"{card.name!r} is a {card.kind} card, not a mission")
    if drawn_closes(s, seat):
        raise violation(
            "adventure_drawn", "you drew an adventure card this turn: no more cards but events"
        )
    if s.phase not in (ATTACK, FORTIFY):
        raise violation(
            "adventure_wrong_moment", "a mission is claimed in the battle or manoeuvre phase"
        )
    assert card.site is not None
    if card.site not in s.leaders.get(seat, ()):
        raise violation(
            "no_leader_at_site", f"{card.name!r} needs a leader of yours in {card.site!r}"
        )
    reward = card.effect
    changes: list[list[Any]] = []
    if "armies" in reward:
        side = s.seats[seat].side or "good"
        where = reward.get("where", "site")
        place = card.site if where == "site" else _region_territory(s, seat, where, command)
        changes.append([place, seat, reward["armies"][side]])
    d.emit(
        AdventureMissionClaimed(
            seat=seat, adventure=command.adventure, territory=card.site, facts={"changes": changes}
        )
    )
    for _ in range(reward.get("territory_cards", 0)):
        turns.draw_card(d, seat)


def _region_territory(s: State, seat: str, where: Any, command: ClaimAdventure) -> str:
    region = next(g for g in s.board.groups if g.id == where["region"])
    if command.territory is None or command.territory not in region.territories:
        raise violation(
            "adventure_needs_target", f"name a territory of yours in {region.id!r} for the reward"
        )
    check_owns(s, seat, command.territory)
    return command.territory


def pass_window(d: Decision, command: PassAdventure) -> None:
    s = d.state
    check_can_act(s, command.seat)
    if window(s) is None and defence_window(s) is None:
        raise violation("no_window", "there is no adventure window open to pass in")
    if window_seat(s) != command.seat:
        raise violation("not_your_turn", f"the Fellowship's window waits for {window_seat(s)}")
    d.emit(AdventureWindowPassed(seat=command.seat))


def open_window(d: Decision, ender: str) -> bool:
    """The end of ``ender``'s turn, before the Fellowship moves: a window if anyone
    holds an adventure card (True), the die of a marked square rolled first."""
    s = d.state
    holders = window_holders(s, ender)
    path = s.board.path
    step = s.fellowship or 0
    if not holders or step >= len(path):
        return False
    roll = d.rng.die() if path[step].needs_roll else None
    d.emit(AdventureWindowOpened(seat=ender, roll=roll, waiting=holders))
    return True


def open_defence_window(d: Decision, command: cmd.Attack | cmd.Blitz) -> None:
    s = d.state
    defender = s.owner.get(command.target)
    assert defender is not None
    d.emit(
        AdventureDefenceWindowOpened(
            seat=command.seat,
            defender=defender,
            source=command.source,
            target=command.target,
            command=command.to_dict(),
        )
    )


def discard(d: Decision, command: DiscardAdventure) -> None:
    """002: "Du kan ta upp ett fjärde, men då måste du kasta ett": the discard, then the
    turn ends as the player asked when the card came."""
    s = d.state
    seat = command.seat
    check_turn(s, seat)
    if command.adventure not in hand(s, seat):
        raise violation("adventure_not_held", f"you hold no adventure card {command.adventure!r}")
    if not discard_due(s, seat):
        raise violation(
            "adventure_hand_not_full", f"you hold {HAND_LIMIT} adventure cards or fewer; keep them"
        )
    d.emit(AdventureDiscarded(seat=seat, adventure=command.adventure))
    if s.phase == FORTIFY:  # the mode's end of the turn (the Fellowship's window)
        s.mode.handlers[cmd.EndPhase](d, cmd.EndPhase(seat=seat))


def extra_fortify(d: Decision, command: cmd.Fortify) -> bool:
    """A manoeuvre more (Move by night): True if this one was it."""
    s = d.state
    if not (s.phase == FORTIFY and s.fortified and s.current == command.seat):
        return False
    if extra_manoeuvres(s) < 1:
        return False
    check_owns(s, command.seat, command.source)
    check_owns(s, command.seat, command.target)
    if command.target not in s.mode.fortify_reach(s, command.seat, command.source):
        raise fortify.unreachable(s, command.source, command.target)
    most = s.troops(command.source) - 1
    if not 1 <= command.count <= most:
        raise violation("invalid_count", f"move 1 to {most} armies, not {command.count!r}")
    d.emit(
        ev.Fortified(
            seat=command.seat, source=command.source, target=command.target, count=command.count
        )
    )
    return True


# Appliers --------------------------------------------------------------------


def _shuffled(state: State, event: AdventureDeckShuffled) -> None:
    state.adventure_deck = list(event.adventure_order)


def _drawn(state: State, event: AdventureCardDrawn) -> None:
    state.adventure_deck.remove(event.adventure)
    state.adventure_hands.setdefault(event.seat, []).append(event.adventure)
    if event.reason == "draw":
        state.mode_data["adventure_drawn_turn"] = state.turn


def _from_hand(state: State, seat: str, number: int) -> None:
    state.adventure_hands[seat].remove(number)


def _to_played(state: State, seat: str, number: int) -> None:
    state.mode_data.setdefault("adventure_played", {}).setdefault(seat, []).append(number)


def _to_discard(state: State, number: int) -> None:
    state.mode_data.setdefault("adventure_discard", []).append(number)


def _apply_changes(state: State, changes: Sequence[Sequence[Any]]) -> None:
    for territory, seat, delta in changes:
        if delta > 0:
            state.gain(territory, seat, delta)
        elif delta < 0:
            state.lose(territory, seat, -delta)


def _played(state: State, event: AdventurePlayed) -> None:
    facts = event.facts
    _from_hand(state, event.seat, event.adventure)
    if deck_of(state).cards[event.adventure].kind == EVENT:
        _to_discard(state, event.adventure)
    else:
        _to_played(state, event.seat, event.adventure)
    _apply_changes(state, facts.get("changes", ()))
    data = state.mode_data
    for card in facts.get("revealed_cards", ()):
        state.deck.remove(card)
        state.discard.append(card)
    if "storm" in facts:
        data["storm"] = {"seat": event.seat, "territories": list(facts["storm"])}
    if "stronghold_off" in facts:
        off = _this_turn(state, "stronghold_off") or {"turn": state.turn, "territories": []}
        off["territories"].append(facts["stronghold_off"])
        data["stronghold_off"] = off
    if "extra_manoeuvres" in facts:
        data["extra_manoeuvres"] = {"turn": state.turn, "left": facts["extra_manoeuvres"]}
    if facts.get("second_leader"):
        data.setdefault("second_leader_due", {})[event.seat] = True
    if "leader" in facts:
        source, target = facts["leader"]
        state.leaders[event.seat] = tuple(
            target if t == source else t for t in state.leaders[event.seat]
        )
        note_arrival(state, target)
    if "fellowship_step" in facts:
        state.fellowship = facts["fellowship_step"]
    if "window" in facts:
        open_now = data["window"]
        open_now["effects"].update(facts["window"])
        open_now["waiting"].pop(0)
    if "blocked" in facts:
        data.setdefault("blocked", []).append({"seat": event.seat, "border": facts["blocked"]})
    if facts.get("defence"):
        _defence_answered(state)
    if facts.get("called_off"):
        data["called_off"] = state.turn


def _uprising_kept(state: State, event: AdventureUprisingKept) -> None:
    state.deck.remove(event.card)
    state.hands.setdefault(UPRISING + event.seat, []).append(event.card)
    state.mode_data.setdefault("uprisings", {}).setdefault(event.seat, []).append(event.adventure)


def _uprising_revealed(state: State, event: AdventureUprisingRevealed) -> None:
    kept = state.hands[UPRISING + event.seat]
    at = kept.index(event.card)
    del kept[at]
    del state.mode_data["uprisings"][event.seat][at]
    state.discard.append(event.card)
    state.gain(event.territory, event.seat, event.armies)


def _defence_opened(state: State, event: AdventureDefenceWindowOpened) -> None:
    state.phase = DEFENCE_WINDOW
    state.mode_data.pop("called_off", None)
    state.mode_data["defence_window"] = {
        "seat": event.seat,
        "defender": event.defender,
        "source": event.source,
        "target": event.target,
        "command": copy_json(event.command),
    }


def _defence_answered(state: State) -> None:
    """The attacked player answered: back to the attack, this territory asked once."""
    attacked = state.mode_data.pop("defence_window")
    state.phase = ATTACK
    answered = _this_turn(state, "defence_answered") or {"turn": state.turn, "targets": []}
    answered["targets"].append(attacked["target"])
    state.mode_data["defence_answered"] = answered


def _window_opened(state: State, event: AdventureWindowOpened) -> None:
    state.phase = WINDOW
    state.mode_data["window"] = {
        "seat": event.seat,
        "roll": event.roll,
        "waiting": list(event.waiting),
        "effects": {},
    }


def _window_passed(state: State, event: AdventureWindowPassed) -> None:
    if state.phase == DEFENCE_WINDOW:
        _defence_answered(state)
        return
    state.mode_data["window"]["waiting"].pop(0)


def window_closed(state: State) -> None:
    """The Fellowship moved (or stayed): the window closes, the turn goes on ending."""
    if state.mode_data.pop("window", None) is not None:
        state.phase = FORTIFY
        state.mode_data["window_done_turn"] = state.turn


def _claimed(state: State, event: AdventureMissionClaimed) -> None:
    _from_hand(state, event.seat, event.adventure)
    _to_played(state, event.seat, event.adventure)
    _apply_changes(state, event.facts.get("changes", ()))
    state.mode_data["mission_leader"] = {
        "seat": event.seat,
        "territory": event.territory,
        "turn": state.turn,
    }


def _discarded(state: State, event: AdventureDiscarded) -> None:
    _from_hand(state, event.seat, event.adventure)
    _to_discard(state, event.adventure)


def note_arrival(state: State, target: str) -> None:
    """A leader conquered or moved onto a site of power: a card at the turn's end."""
    if target in state.board.sites_of_power:
        state.mode_data["site_reached_turn"] = state.turn


def note_extra_fortify(state: State) -> None:
    """Before a ``fortified`` is applied: one of Move by night's manoeuvres is used."""
    extra = _this_turn(state, "extra_manoeuvres")
    if extra and state.fortified and state.phase == FORTIFY:
        extra["left"] -= 1


def turn_started(state: State, seat: str) -> None:
    """A storm lasts until the start of its drawer's next turn."""
    storm = state.mode_data.get("storm")
    if storm and storm["seat"] == seat:
        del state.mode_data["storm"]
    blocked = state.mode_data.get("blocked")
    if blocked:  # You shall not pass lasts until the start of its player's next turn
        state.mode_data["blocked"] = [b for b in blocked if b["seat"] != seat]
        if not state.mode_data["blocked"]:
            del state.mode_data["blocked"]
    state.mode_data.pop("window", None)  # its turn's player resigned in it
    state.mode_data.pop("defence_window", None)


def second_leader_placed(state: State, seat: str) -> None:
    state.mode_data.get("second_leader_due", {}).pop(seat, None)


APPLIERS: dict[type[Event], Callable[[State, Any], None]] = {
    AdventureDeckShuffled: _shuffled,
    AdventureCardDrawn: _drawn,
    AdventurePlayed: _played,
    AdventureMissionClaimed: _claimed,
    AdventureDiscarded: _discarded,
    AdventureWindowOpened: _window_opened,
    AdventureWindowPassed: _window_passed,
    AdventureDefenceWindowOpened: _defence_opened,
    AdventureUprisingKept: _uprising_kept,
    AdventureUprisingRevealed: _uprising_revealed,
}
HANDLERS: dict[type[cmd.Command], Callable[[Decision, Any], None]] = {
    PlayAdventure: play,
    ClaimAdventure: claim,
    DiscardAdventure: discard,
    PassAdventure: pass_window,
}


# Legal actions -----------------------------------------------------------------


def _body(kind: str, number: int, **fields: str | None) -> Action:
    command: dict[str, Any] = {"type": kind, "adventure": number}
    command.update({k: v for k, v in fields.items() if v is not None})
    return {"command": command, "bounds": {}}


def discards(s: State, seat: str) -> list[Action]:
    if not discard_due(s, seat):
        return []
    return [_body("discard_adventure", n) for n in hand(s, seat)]


def power_plays(s: State, seat: str) -> list[Action]:
    """Each power card of ``seat``'s hand playable now, with each way to play it."""
    acting = window_seat(s) if s.phase in WINDOWS else s.current
    if not plays(s) or discard_due(s, seat) or acting != seat or drawn_closes(s, seat):
        return []
    cards = deck_of(s).cards
    actions: list[Action] = []
    attacks: list[tuple[str, str]] | None = None
    for number in dict.fromkeys(hand(s, seat)):
        card = cards[number]
        if card.kind != POWER or s.phase not in POWER_MOMENTS[card.moment]:
            continue
        if not _window_fits(s, card):
            continue
        if card.moment in (BEFORE_ATTACK, BEFORE_ATTACK_STRONGHOLD):
            if attacks is None:
                attacks = _attacks(s, seat)
            strong = card.moment == BEFORE_ATTACK_STRONGHOLD
            actions.extend(
                _body("play_adventure", number, source=a, target=t)
                for a, t in attacks
                if not strong or t in s.board.strongholds
            )
        elif card.primitive == "withdraw":
            attacked = s.mode_data["defence_window"]["target"]
            actions.extend(
                _body("play_adventure", number, target=t) for t in _withdrawals(s, seat, attacked)
            )
        elif card.primitive in _LISTED:
            actions.extend(_LISTED[card.primitive](s, seat, number, card))
        elif card.primitive == "move_own_leader":
            own = s.leaders.get(seat, ())
            actions.extend(
                _body("play_adventure", number, source=a, target=t)
                for a in own
                for t in s.territories_of(seat)
                if t not in own
            )
        else:
            actions.append(_body("play_adventure", number))
    return actions


def _shift_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    """One ready body per choice (+2 or -2, nothing between: no range to list in
    ``bounds``, which bots read as one to clamp into)."""
    return [
        {"command": {"type": "play_adventure", "adventure": number, "shift": shift}, "bounds": {}}
        for shift in roll_choices(card)
    ]


def _border_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    blocked = blocked_borders(s)
    kind = card.params["kind"]
    ends = sorted(
        sorted(pair)
        for pair, k in s.board.border_kinds.items()
        if k == kind and pair not in blocked
    )
    return [_body("play_adventure", number, source=a, target=b) for a, b in ends]


def _storm_plays(s: State, seat: str, number: int, card: AdventureCard) -> list[Action]:
    attacked = s.mode_data["defence_window"]
    by_sea = s.board.border_kind(attacked["source"], attacked["target"]) == card.params["border"]
    return [_body("play_adventure", number)] if by_sea else []


_LISTED: dict[str, Callable[[State, str, int, AdventureCard], list[Action]]] = {
    "fellowship_roll_choice": _shift_plays,
    "block_border": _border_plays,
    "destroy_attackers": _storm_plays,
}


def _attacks(s: State, seat: str) -> list[tuple[str, str]]:
    from riskcore.rules.actions import BY_PHASE

    (builder,) = [b for name, b in BY_PHASE[ATTACK] if name == "attack"]
    return [(a["command"]["source"], a["command"]["target"]) for a in builder(s, seat)]


def passes(s: State, seat: str) -> list[Action]:
    return [{"command": {"type": "pass_adventure"}, "bounds": {}}] if window_seat(s) == seat else []


def mission_claims(s: State, seat: str) -> list[Action]:
    if not plays(s) or discard_due(s, seat) or s.current != seat or drawn_closes(s, seat):
        return []
    cards = deck_of(s).cards
    leaders = s.leaders.get(seat, ())
    actions: list[Action] = []
    for number in dict.fromkeys(hand(s, seat)):
        card = cards[number]
        if card.kind != MISSION or card.site not in leaders:
            continue
        where = card.effect.get("where", "site")
        if "armies" in card.effect and isinstance(where, dict):
            region = next(g for g in s.board.groups if g.id == where["region"])
            actions.extend(
                _body("claim_adventure", number, territory=t)
                for t in s.territories_of(seat)
                if t in region.territories
            )
        else:
            actions.append(_body("claim_adventure", number))
    return actions


def extra_fortifies(s: State, seat: str, builder: Callable[[State, str], Sequence[Action]]) -> Any:
    """The manoeuvres Move by night still allows, listed as the first one is."""
    if not s.fortified or extra_manoeuvres(s) < 1 or s.current != seat:
        return builder(s, seat)
    fresh = s.copy()
    fresh.fortified = False
    return builder(fresh, seat)


# Views -------------------------------------------------------------------------


def view(state: State, viewer: str | None) -> dict[str, Any]:
    """The adventure cards as ``viewer`` may see them: its own hand, everyone's counts,
    the played cards and discards; the pile's order and other hands only at the end."""
    if not plays(state):
        return {"deck": NO_DECK}
    over = state.phase == FINISHED
    data = state.mode_data
    storm = data.get("storm")
    return {
        "deck": state.rules.adventure_deck,
        "catalogue": list(_catalogue(state.rules.adventure_deck, state.board.name)),
        "pile_size": len(state.adventure_deck),
        "adventure_order": list(state.adventure_deck) if over else None,
        "hands": {
            seat: {
                "count": len(hand(state, seat)),
                "adventure_hand": list(hand(state, seat)) if over or seat == viewer else None,
            }
            for seat in state.order
        },
        "played": {s: list(v) for s, v in data.get("adventure_played", {}).items()},
        "discard": list(data.get("adventure_discard", [])),
        "discard_due": [s for s in state.order if discard_due(state, s)],
        "second_leader_due": sorted(data.get("second_leader_due", {})),
        "mission_leader": _this_turn(state, "mission_leader"),
        "storm": storm["territories"] if storm else [],
        "stronghold_off": (_this_turn(state, "stronghold_off") or {}).get("territories", []),
        "extra_manoeuvres": extra_manoeuvres(state),
        "window": _window_view(state),
        "defence_window": _defence_view(state),
        "blocked": sorted(sorted(b) for b in blocked_borders(state)),
        "uprisings": {
            seat: {
                "count": len(uprising_cards(state, seat)),
                "cards": list(uprising_cards(state, seat)) if over or seat == viewer else None,
            }
            for seat in state.order
            if uprising_cards(state, seat)
        },
    }


def _defence_view(state: State) -> dict[str, Any] | None:
    attacked = defence_window(state)
    if attacked is None:
        return None
    return {k: attacked[k] for k in ("seat", "defender", "source", "target")}


def _window_view(state: State) -> dict[str, Any] | None:
    open_now = window(state)
    if open_now is None:
        return None
    return {
        "roll": open_now["roll"],
        "waiting": list(open_now["waiting"]),
        "effects": dict(open_now["effects"]),
    }


@cache
def _catalogue(name: str, board: str) -> tuple[dict[str, Any], ...]:
    """Every card of the deck as the view lists it (made once: views are asked often)."""
    return tuple(c.to_dict() for c in load_deck(name, board).cards)


def unseen(state: State, seat: str) -> list[int]:
    """Card numbers ``seat`` cannot place: the other hands and the pile."""
    if not plays(state):
        return []
    data = state.mode_data
    known = set(hand(state, seat)) | set(data.get("adventure_discard", ()))
    for played in data.get("adventure_played", {}).values():
        known |= set(played)
    return [n for n in deck_of(state).numbers() if n not in known]


def deal_unseen(real: State, state: State, seat: str, rng: random.Random) -> None:
    """A bot's guess: the other hands (their counts are public) and the pile, dealt at
    random from the cards ``seat`` cannot place (``SeatView.determinize``)."""
    cards = unseen(real, seat)
    rng.shuffle(cards)
    hands: dict[str, list[int]] = {}
    for holder, held in real.adventure_hands.items():
        if holder == seat:
            hands[holder] = list(held)
        else:
            hands[holder], cards = cards[: len(held)], cards[len(held) :]
    state.adventure_hands = hands
    state.adventure_deck = cards
    _own_uprisings(real, state, seat)


def _own_uprisings(real: State, state: State, seat: str) -> None:
    """The territory cards are dealt to every hand the seat cannot see, its own
    uprisings' hand too: that one is put back, the cards it held swapped away."""
    key = UPRISING + seat
    mine = list(real.hands.get(key, ()))
    dealt = state.hands.get(key, [])
    if key not in real.hands or dealt == mine:
        return
    spare = iter([c for c in dealt if c not in mine])
    swap = {c: next(spare) for c in mine if c not in dealt}
    for hand_id, cards in state.hands.items():
        if hand_id != key:
            state.hands[hand_id] = [swap.get(c, c) for c in cards]
    state.deck = [swap.get(c, c) for c in state.deck]
    state.hands[key] = mine
