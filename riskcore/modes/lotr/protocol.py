"""The numbers, commands and events of Lord of the Rings Risk."""

from __future__ import annotations

from dataclasses import dataclass

from riskcore.model.state import ATTACK, FORTIFY, REINFORCE
from riskcore.modes.middle_earth import (
    EVIL,
    GOOD,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol.commands import register_command
from riskcore.protocol.events import Event, register_event

SETUP_LEADER = "setup_leader"  # each player in turn puts a leader on the board


IN_TURN = (REINFORCE, ATTACK, FORTIFY)  # a second leader may be put on in these


# docs/rules.md (Lord of the Rings Risk): 35 armies each for 2 or 3 players, 30 for 4.
ARMIES = {2: 35, 3: 35, 4: 30}


# The side of each seat p1..pN: as the deal tables seat them in turn order.
SIDES = {2: (GOOD, EVIL), 3: (EVIL, GOOD, EVIL), 4: (GOOD, EVIL, GOOD, EVIL)}


# The deal by side: per side, the rows its players take in turn order, each row
# (cards of the side, neutral cards). Three players: 5 evil + 4 neutral, 9 good,
# 4 evil + 5 neutral; four: 5 good, 5 evil, 4 good, 4 evil.
DEALS: dict[int, dict[str, tuple[tuple[int, int], ...]]] = {
    3: {EVIL: ((5, 4), (4, 5)), GOOD: ((9, 0),)},
    4: {GOOD: ((5, 0), (4, 0)), EVIL: ((5, 0), (4, 0))},
}


LEADER_BONUS = 1


STRONGHOLD_BONUS = 1


STRONGHOLD_POINTS = 2


LEAVE_ROLL = 4  # a marked square is left on a roll of 4 or more


TIE_DICE = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceLeader(cmd.Command):
    """Put a leader on an own territory: in setup, or when none of yours is left."""

    territory: str


register_command(PlaceLeader, "place_leader", fields={"territory": "str"})


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveLeader(cmd.Command):
    """Move a leader on its own in the manoeuvre phase, along own territories."""

    source: str
    target: str


register_command(MoveLeader, "move_leader", fields={"source": "str", "target": "str"})


@dataclass(frozen=True, slots=True, kw_only=True)
class LeadersCalled(Event):
    """Every army is placed: the players put their leaders on, ``seat`` first."""

    seat: str


register_event(LeadersCalled, "leaders_called")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderPlaced(Event):
    """``seat`` put a leader on ``territory``: ``setup``, or ``return`` (none was left).
    In setup, ``next_seat`` places next (None: every player has)."""

    seat: str
    territory: str
    reason: str
    next_seat: str | None = None


register_event(LeaderPlaced, "leader_placed")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderMoved(Event):
    """``seat``'s leader went from ``source`` to ``target``: with a ``conquest`` it won,
    or as a ``manoeuvre``."""

    seat: str
    source: str
    target: str
    reason: str


register_event(LeaderMoved, "leader_moved")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderLost(Event):
    """The last army with ``seat``'s leader in ``territory`` fell to ``by``."""

    seat: str
    territory: str
    by: str


register_event(LeaderLost, "leader_lost")


@dataclass(frozen=True, slots=True, kw_only=True)
class FellowshipMoved(Event):
    """End of ``seat``'s turn: the Fellowship's try to move on. ``roll`` is the die on a
    marked square (None elsewhere); ``step`` is its place on the path afterwards
    (the path's length: it has left the Dead Marshes)."""

    seat: str
    roll: int | None
    moved: bool
    step: int


register_event(FellowshipMoved, "fellowship_moved")


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreTieRolled(Event):
    """Players level on score, territories, strongholds and adventure points rolled three
    dice each (``rounds``: each round's dice per seat, ties among the highest re-rolled)."""

    rounds: tuple[dict[str, list[int]], ...]
    winner: str


register_event(ScoreTieRolled, "score_tie_rolled", tuples=("rounds",))
