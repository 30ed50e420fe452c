"""The adventure deck as data: card kinds, moments and effects, loading and checking a deck file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from riskcore.boards.board import Board, load_board
from riskcore.errors import RuleOptionError
from riskcore.model.state import ATTACK, FORTIFY, REINFORCE, State

DECKS = Path(__file__).parents[1] / "decks"


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
    text = entry.get("text", "")
    if kind == MISSION:
        _check_reward(effect, board)
        if site not in board.sites_of_power:
            raise ValueError(f"site {site!r} is no site of power on the {board.name} board")
        text = text or mission_text(effect, site, board)
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
        text=text,
    )
    return card, copies


def mission_text(reward: Mapping[str, Any], site: str, board: Board) -> str:
    """What a mission card gives, in words, from its reward (the deck files write no
    text for missions: their reward says it all). Issue 51: the board said only when a
    mission is claimed, never what it brings."""
    gives = []
    if "armies" in reward:
        where = reward.get("where", "site")
        region = next(
            (g.name for g in board.groups if isinstance(where, dict) and g.id == where["region"]),
            "",
        )
        place = f"on a territory of yours in {region}" if region else "there"
        gives.append(_per_side(reward["armies"], place))
    cards = reward.get("territory_cards", 0)
    if cards:
        gives.append(f"draw {cards} territory card{'s' if cards > 1 else ''}")
    return f"With a leader of yours in {board.territory_names[site]}: {' and '.join(gives)}."


def _per_side(armies: Mapping[str, int], place: str) -> str:
    """ "4 armies there", or "4 armies there for a good player, 2 for an evil one"."""
    good, evil = armies["good"], armies["evil"]
    said = f"{good} arm{'y' if good == 1 else 'ies'} {place}"
    return said if good == evil else f"{said} for a good player, {evil} for an evil one"


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
