"""Game state, shaped for every game mode of the rule books.

Armies are kept per (territory, player) so that team-mates can share a
territory (the team game, docs/rules.md). *Control* follows them: the controller of a
territory is the player with the most armies there, nobody on a tie
(``owner`` maps it to ``None``), and a territory nobody has claimed yet is
simply absent from ``owner``. ``owner`` is a cache of that rule, kept by
``gain`` and ``lose``, which every change of armies goes through; every
rule asks it (``controller``, ``territories_of``) rather than a single
owner of its own.

Each field is declared once, with how it is copied and what a seat may
know of it (``copying`` and ``secrecy`` in its metadata). ``copy``, the
snapshot codec and bots' determinised states are all derived from that
declaration, so a new field cannot be forgotten by one of them. Three fields
are no part of the game but kept from ``owner`` (``held_by``: a player's
territories; ``borders``: the attacks from a territory; the places in
``owner``'s order that keep the first in order), because the rules ask them
on nearly every move; ``FIELDS`` leaves them out, and ``owner`` changes
only through ``take_over`` and ``settle``, which keep them true.

``State`` is mutable only inside the engine: ``evolve`` returns a new
state, and ``fold`` copies once and then applies events in place, which is
what makes rebuilding a long game fast.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Final

from riskcore.boards.board import Board
from riskcore.model.options import RuleSet
from riskcore.mypyc_hints import copied_by_constructor

# Phases of the classic game, in the order a game goes through them. Modes
# may add their own (a phase is a name the mode's commands and actions know).
SETUP_CLAIM = "setup_claim"
SETUP_PLACE = "setup_place"
REINFORCE = "reinforce"
ATTACK = "attack"
DEFEND = "defend"  # waiting for the defender's dice choice
OCCUPY = "occupy"
FORTIFY = "fortify"
FINISHED = "finished"
PHASES = (SETUP_CLAIM, SETUP_PLACE, REINFORCE, ATTACK, DEFEND, OCCUPY, FORTIFY, FINISHED)
SETUP_PHASES = frozenset({SETUP_CLAIM, SETUP_PLACE})


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat at the table. ``kind`` is "player" (takes turns) or "neutral"
    (armies only); ``team`` and ``side`` are set by the modes that use them."""

    id: str
    kind: str
    name: str
    team: str | None = None
    side: str | None = None

    @property
    def plays(self) -> bool:
        """Players take turns; neutral seats only hold armies (and maybe cards)."""
        return self.kind == "player"


copied_by_constructor(Seat)  # copied and pickled with the state, compiled too


# The two records below are made at every attack and every conquest, so they are
# plain slotted objects with their own ``__init__`` (immutable to the type checker
# through ``Final``), which the compiled build makes natively; a frozen dataclass's
# generated ``__init__`` stays interpreted there and costs several times as much.


@dataclass(slots=True, init=False, unsafe_hash=True)
class PendingBattle:
    """An attack waiting for the defender's dice: from where, where, with how many."""

    source: Final[str]
    target: Final[str]
    dice: Final[int]
    defender: Final[str]

    def __init__(self, source: str, target: str, dice: int, defender: str) -> None:
        self.source = source
        self.target = target
        self.dice = dice
        self.defender = defender


copied_by_constructor(PendingBattle)  # copied and pickled with the state, compiled too


@dataclass(slots=True, init=False, unsafe_hash=True)
class Occupation:
    """A conquest waiting for its move: the bounds on the armies that go in."""

    source: Final[str]
    target: Final[str]
    min_move: Final[int]
    max_move: Final[int]

    def __init__(self, source: str, target: str, min_move: int, max_move: int) -> None:
        self.source = source
        self.target = target
        self.min_move = min_move
        self.max_move = max_move


copied_by_constructor(Occupation)  # copied and pickled with the state, compiled too


@dataclass(frozen=True, slots=True)
class Mission:
    """A secret mission (the mission games): its card id, grade, and whether it is
    claimed (done) and revealed (shown to everyone)."""

    card: str
    grade: int = 0
    claimed: bool = False
    revealed: bool = False


copied_by_constructor(Mission)  # copied and pickled with the state, compiled too


# How a field is copied: shared (never mutated in place), a one-level copy,
# a copy of each value of a dict (dicts of lists, dicts of dicts), or all the
# way down (a mode's own JSON values).
SHARED = "shared"
FLAT = "flat"
NESTED = "nested"
DEEP = "deep"
DERIVED = "derived"  # worked out from the other fields: a copy starts without it
# What a seat may know of a field: public, secret (nobody until the end), or
# per seat (its own entry only: hands, missions).
PUBLIC = "public"
SECRET = "secret"
PER_SEAT = "per_seat"


# The declarations, as field metadata.
_VALUE = {"copying": SHARED, "secrecy": PUBLIC}
_SECRET_VALUE = {"copying": SHARED, "secrecy": SECRET}
_FLAT = {"copying": FLAT, "secrecy": PUBLIC}
_SECRET_FLAT = {"copying": FLAT, "secrecy": SECRET}
_DEEP = {"copying": DEEP, "secrecy": PUBLIC}
_PER_SEAT = {"copying": NESTED, "secrecy": PER_SEAT}
_DERIVED = {"copying": DERIVED, "secrecy": PUBLIC}


@dataclass(slots=True, eq=False)
class State:
    game_id: str = field(metadata=_SECRET_VALUE)
    board: Board = field(metadata=_VALUE)
    rules: RuleSet = field(metadata=_VALUE)
    # A GameMode, typed Any: a compiled dataclass loads each field's class at
    # import, and GameMode's module (which imports this one) is not loaded yet.
    mode: Any = field(metadata=_VALUE)
    seats: dict[str, Seat] = field(metadata=_VALUE)
    seed_commitment: str = field(metadata=_SECRET_VALUE)
    player_seeds: dict[str, str] = field(metadata=_SECRET_VALUE)
    record_format: int = field(default=1, metadata=_VALUE)  # game_created's (docs/records.md)
    version: int = field(default=0, metadata=_VALUE)
    phase: str = field(default=SETUP_CLAIM, metadata=_VALUE)
    order: tuple[str, ...] = field(default=(), metadata=_VALUE)
    current: str | None = field(default=None, metadata=_VALUE)
    turn: int = field(default=0, metadata=_VALUE)
    owner: dict[str, str | None] = field(default_factory=dict, metadata=_FLAT)
    armies: dict[tuple[str, str], int] = field(default_factory=dict, metadata=_FLAT)
    shared: set[str] = field(
        default_factory=set, metadata=_FLAT
    )  # territories holding armies of more than one seat
    reserve: dict[str, int] = field(default_factory=dict, metadata=_FLAT)
    setup_quota: dict[str, int] = field(default_factory=dict, metadata=_FLAT)
    hands: dict[str, list[int]] = field(default_factory=dict, metadata=_PER_SEAT)
    deck: list[int] = field(default_factory=list, metadata=_SECRET_FLAT)
    discard: list[int] = field(default_factory=list, metadata=_FLAT)
    sets_traded: int = field(default=0, metadata=_VALUE)
    must_trade_until: int | None = field(default=None, metadata=_VALUE)
    bonus_taken: bool = field(default=False, metadata=_VALUE)
    conquered: bool = field(default=False, metadata=_VALUE)
    fortified: bool = field(default=False, metadata=_VALUE)
    last_battle_dice: int = field(default=0, metadata=_VALUE)
    pending_battle: PendingBattle | None = field(default=None, metadata=_VALUE)
    occupation: Occupation | None = field(default=None, metadata=_VALUE)
    out: dict[str, str] = field(default_factory=dict, metadata=_FLAT)
    winner: str | None = field(default=None, metadata=_VALUE)
    winners: tuple[str, ...] = field(default=(), metadata=_VALUE)  # a team, or a ranking by score
    finish_reason: str | None = field(default=None, metadata=_VALUE)
    revealed_seed: str | None = field(default=None, metadata=_SECRET_VALUE)
    # Places of the other modes (active neutrals, missions, teams, Lord of the
    # Rings); empty in the classic game.
    alliances: dict[str, str | None] = field(
        default_factory=dict, metadata=_FLAT
    )  # active neutral -> allied player
    # giver -> the cards it gave to active neutrals (which card went where is the giver's to know)
    bribes: dict[str, list[int]] = field(default_factory=dict, metadata=_PER_SEAT)
    missions: dict[str, list[Mission]] = field(default_factory=dict, metadata=_PER_SEAT)
    leaders: dict[str, tuple[str, ...]] = field(
        default_factory=dict, metadata=_FLAT
    )  # player -> territories of its leaders
    adventure_hands: dict[str, list[int]] = field(default_factory=dict, metadata=_PER_SEAT)
    adventure_deck: list[int] = field(default_factory=list, metadata=_SECRET_FLAT)  # top first
    fellowship: int | None = field(default=None, metadata=_VALUE)
    scores: dict[str, int] = field(default_factory=dict, metadata=_FLAT)
    # A mode's own state: names to JSON values (scalars, lists, string-keyed
    # dicts, nested as deep as it likes). Public: a secret belongs in a typed place.
    mode_data: dict[str, Any] = field(default_factory=dict, metadata=_DEEP)
    # Derived from ``owner`` and the board, for the questions asked on every move
    # (``held_by``, ``borders``): built on first ask, dropped where a territory
    # changes hands (``_changed_hands``). Not part of the game: never copied,
    # compared, snapshotted nor shown (``FIELDS`` leaves them out).
    held: dict[str | None, list[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False, metadata=_DERIVED
    )
    frontier: dict[str, tuple[tuple[str, str | None], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, metadata=_DERIVED
    )
    places: dict[str, int] = field(  # each territory's place in ``owner``'s order
        default_factory=dict, init=False, repr=False, compare=False, metadata=_DERIVED
    )

    def copy(self) -> State:
        """A copy safe to mutate (see ``_copier``)."""
        return _COPY(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in FIELD_NAMES)

    # No ``__hash__ = None``: defining ``__eq__`` already leaves the class unhashable,
    # and the compiled build would take that line for a field.

    # Control: the one query every rule asks ---------------------------

    def controller(self, territory: str) -> str | None:
        """The player with most armies in ``territory``; None on a tie or unclaimed."""
        return self.owner.get(territory)

    def is_claimed(self, territory: str) -> bool:
        return territory in self.owner

    def troops(self, territory: str) -> int:
        """Armies of the controlling player in a territory."""
        holder = self.owner.get(territory)
        return self.armies.get((territory, holder), 0) if holder else 0

    def wiped_out(self, player: str) -> bool:
        """No army of ``player`` is left on the board (docs/rules.md, "Elimination").

        Only a shared territory can hold armies of a player who controls it
        not, so those are the only ones looked at beyond ``owner``.
        """
        if player in self.owner.values():
            return False
        armies = self.armies
        return not any(armies.get((t, player), 0) > 0 for t in self.shared)

    def territories_of(self, player: str) -> list[str]:
        return list(self.held_by(player))

    def held_by(self, player: str | None) -> list[str]:
        """The territories ``player`` controls, in ``owner``'s order: a list kept
        until a territory changes hands, not to be changed by the caller (the
        rules list a seat's territories on nearly every move)."""
        found = self.held.get(player)
        if found is None:
            found = self.held[player] = [t for t, p in self.owner.items() if p == player]
        return found

    def borders(self, territory: str) -> tuple[tuple[str, str | None], ...]:
        """Each neighbour of ``territory`` that its controller does not control, with
        its own controller, in the board's order: the attacks from ``territory``.
        Kept until ``territory`` or a neighbour changes hands."""
        found = self.frontier.get(territory)
        if found is None:
            holder = self.owner.get(territory)
            controller = self.owner.get
            found = self.frontier[territory] = tuple(
                (t, other)
                for t in self.board.neighbours[territory]
                if (other := controller(t)) != holder
            )
        return found

    def _changed_hands(self, territory: str, new: str | None) -> None:
        """Bring what ``held_by`` and ``borders`` kept up to date before ``territory``
        passes to ``new``: the two lists it leaves and joins, in ``owner``'s order
        (a territory claimed for the first time drops them all), and the borders
        of the territory and its neighbours."""
        owner = self.owner
        held = self.held
        if territory not in owner:  # a new place in the order (a claim)
            held.clear()
            self.places.clear()
        elif held:
            left = held.get(owner[territory])
            if left is not None:
                left.remove(territory)
            joined = held.get(new)
            if joined is not None:
                places = self.places
                if not places:
                    places.update((t, i) for i, t in enumerate(owner))
                insort(joined, territory, key=places.__getitem__)
        frontier = self.frontier
        if frontier:
            frontier.pop(territory, None)
            for neighbour in self.board.neighbours[territory]:
                frontier.pop(neighbour, None)

    def gain(self, territory: str, player: str, count: int) -> None:
        """``count`` of ``player``'s armies arrive in ``territory``."""
        key = (territory, player)
        armies = self.armies
        armies[key] = armies.get(key, 0) + count
        holder = self.owner.get(territory, "")
        if holder != player:
            if holder and armies.get((territory, holder), 0) > 0:
                self.shared.add(territory)
            self.settle(territory)

    def lose(self, territory: str, player: str, count: int) -> None:
        """``count`` of ``player``'s armies leave ``territory`` (fall or move out).

        A sole holder whose last army falls still holds the territory until
        the conquest that follows in the same command (``take_over``).
        """
        self.armies[(territory, player)] -= count
        if territory in self.shared or self.owner.get(territory) != player:
            self.settle(territory)

    def take_over(self, territory: str, conqueror: str, defender: str) -> None:
        """The last defender fell: the conqueror controls the empty territory
        until it moves in (docs/rules.md, "A turn")."""
        armies = self.armies
        if territory in self.shared:
            for seat in self.seats:
                if seat != conqueror:
                    armies.pop((territory, seat), None)
            self.shared.discard(territory)
        else:
            armies.pop((territory, defender), None)
        armies.setdefault((territory, conqueror), 0)  # the conqueror's own armies stay
        if self.owner.get(territory, "") != conqueror:
            self._changed_hands(territory, conqueror)
        self.owner[territory] = conqueror

    def settle(self, territory: str) -> None:
        """Recount who controls ``territory``: the most armies, nobody on a tie."""
        armies = self.armies
        best: str | None = None
        most = 0
        present = 0
        for seat in self.seats:
            count = armies.get((territory, seat), 0)
            if count > 0:
                present += 1
                if count > most:
                    best, most = seat, count
                elif count == most:
                    best = None
        if present < 2:
            self.shared.discard(territory)
        if present or territory in self.owner:
            if self.owner.get(territory, "") != best:
                self._changed_hands(territory, best)
            self.owner[territory] = best

    # Seats ------------------------------------------------------------

    def hand(self, seat: str) -> list[int]:
        return self.hands.get(self.hand_id(seat), [])

    def hand_id(self, seat: str) -> str:
        """The hand a seat draws into: its own, or its team's (``GameMode.hand_of``)."""
        hand: str = self.mode.hand_of(self, seat)
        return hand

    def takes_turns(self, seat: str) -> bool:
        """Whether ``seat`` is a player (``Seat.plays``)."""
        return self.seats[seat].kind == "player"

    def is_active(self, seat: str) -> bool:
        return seat not in self.out and self.seats[seat].kind == "player"  # ``plays``

    def active_players(self) -> list[str]:
        # ``is_active`` inlined: asked after every conquest and occupation.
        out, seats = self.out, self.seats
        return [s for s in self.order if s not in out and seats[s].kind == "player"]

    def non_players(self) -> list[str]:
        """Seats in the game that take no turns (the neutral armies)."""
        return [s for s, info in self.seats.items() if not info.plays and s not in self.out]

    def next_player(self, after: str) -> str:
        """The next active player clockwise from ``after``."""
        i = self.order.index(after)
        for step in range(1, len(self.order) + 1):
            candidate = self.order[(i + step) % len(self.order)]
            if self.is_active(candidate):
                return candidate
        return after

    def summary(self) -> dict[str, Any]:
        return {"version": self.version, "phase": self.phase, "current": self.current}


FIELDS = tuple(f for f in fields(State) if f.metadata["copying"] != DERIVED)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)


def copy_json(value: Any) -> Any:
    """A copy of a JSON value all the way down (dicts keep their order)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def _copier() -> Callable[[State], State]:
    """``State.copy``, written out from the field declaration.

    Generated once at import (as ``dataclasses`` writes ``__init__``): a
    copy is made on every ``decide``, and a straight-line constructor call
    is several times faster than a loop over the fields.
    """
    forms = {
        SHARED: "s.{0}",
        FLAT: "s.{0}.copy()",
        NESTED: "{{k: v.copy() for k, v in s.{0}.items()}}",
        DEEP: "copy_json(s.{0})",
    }
    arguments = ", ".join(forms[f.metadata["copying"]].format(f.name) for f in FIELDS)
    namespace: dict[str, Any] = {"State": State, "copy_json": copy_json}
    exec(f"def copy_state(s):\n    return State({arguments})\n", namespace)
    copy_state: Callable[[State], State] = namespace["copy_state"]
    return copy_state


_COPY = _copier()
