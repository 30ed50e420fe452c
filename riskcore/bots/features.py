"""Reading a position: what the heuristic and strong bots both need to know.

``BoardInfo`` holds what never changes on a board (continents, their
entrances, how attractive each one is), computed once per board.
``Position`` is one seat's reading of the public board at one decision:
who holds what, which of its territories touch an enemy and how hard they
are pressed. Everything is built from a ``SeatView``, so it holds only
what the seat may see.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from riskcore.boards.board import Board, Group
from riskcore.bots.evaluate import strength
from riskcore.bots.mission_progress import Aims, aims
from riskcore.views.seatview import SeatView

# Progressive card values make a card worth about this many armies on average
# early in a game; used to price "conquer at least once per turn" and hands.
CARD_WORTH = 2.5
# A seat with this many times its rivals' armies together counts their armies as
# its own in an attack's price (``Position.dominant``).
DOMINANT = 3


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """Fixed facts about a board that the bots look up on every move."""

    groups: dict[str, Group]
    group_of: dict[str, str]
    neighbours: dict[str, tuple[str, ...]]
    # group -> its territories touching another group, in the board's order (a
    # set's order would hang on the string hash seed, and ties follow it)
    entrances: dict[str, tuple[str, ...]]
    appeal: dict[str, float]  # group -> how worth taking and holding, best = 1

    def size(self, group: str) -> int:
        return len(self.groups[group].territories)


_INFO: dict[tuple[str, int], BoardInfo] = {}


def board_info(board: Board) -> BoardInfo:
    key = (board.name, id(board))
    info = _INFO.get(key)
    if info is None:
        info = _INFO[key] = _build_info(board)
    return info


def _build_info(board: Board) -> BoardInfo:
    groups = {g.id: g for g in board.groups}
    group_of = dict(board.territory_group)
    entrances = {
        g.id: tuple(
            t
            for t in board.territory_names
            if t in g.territories and any(group_of[n] != g.id for n in board.neighbours[t])
        )
        for g in board.groups
    }
    # Bonus per territory to take and per entrance to hold: Australia and
    # South America first, Asia last, as every strategy guide has it.
    raw = {
        g.id: g.bonus / (len(g.territories) * max(1, len(entrances[g.id]))) for g in board.groups
    }
    top = max(raw.values(), default=1.0) or 1.0
    appeal = {g: value / top for g, value in raw.items()}
    return BoardInfo(groups, group_of, dict(board.neighbours), entrances, appeal)


class Position:
    """One seat's reading of the public board, made once per decision.

    Owners and troops are read at once; the per-continent tallies only when
    a rule asks for them, since most decisions (occupy, fortify, defend) do
    not, and rollouts make hundreds of thousands of positions.
    """

    __slots__ = (
        "_aims",
        "_cards",
        "_count",
        "_dominant",
        "_enemies",
        "_held",
        "_pressure",
        "_strengths",
        "_territories",
        "info",
        "me",
        "mine",
        "owner",
        "side",
        "troops",
        "view",
    )

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.me = me = view.seat
        self.info = board_info(view.board)
        self.owner = view.owners()
        self.troops = view.troop_map()
        self.mine = [t for t, p in self.owner.items() if p == me]
        # Seat -> team where seats play in teams (a team-mate is no enemy).
        self.side = view.sides()
        self._count: dict[str, dict[str, int]] | None = None
        self._territories: dict[str, int] = {}
        self._held: dict[str, str] = {}
        self._cards: dict[str, int] | None = None
        self._pressure: dict[str, int] = {}
        self._enemies: dict[str, list[str]] = {}
        self._dominant: bool | None = None
        self._strengths: dict[str, float] | None = None
        self._aims: Aims | bool | None = False  # False: not read yet

    def _tally(self) -> dict[str, dict[str, int]]:
        count: dict[str, dict[str, int]] = {g: {} for g in self.info.groups}
        territories = self._territories
        group_of = self.info.group_of
        for t, p in self.owner.items():
            if p is None:  # contested: nobody's
                continue
            per = count[group_of[t]]
            per[p] = per.get(p, 0) + 1
            territories[p] = territories.get(p, 0) + 1
        self._held = {
            g: next(iter(per)) for g, per in count.items() if len(per) == 1 and _full(self, g, per)
        }
        self._count = count
        return count

    @property
    def count(self) -> dict[str, dict[str, int]]:
        """Group -> player -> territories held there."""
        return self._count if self._count is not None else self._tally()

    @property
    def territories(self) -> dict[str, int]:
        """Player -> territories held."""
        if self._count is None:
            self._tally()
        return self._territories

    @property
    def held_groups(self) -> dict[str, str]:
        """Group -> the player holding all of it."""
        if self._count is None:
            self._tally()
        return self._held

    @property
    def cards(self) -> dict[str, int]:
        """Player still in -> cards held."""
        if self._cards is None:
            view = self.view
            self._cards = {p: view.card_count(p) for p in view.players()}
        return self._cards

    @property
    def aims(self) -> Aims | None:
        """The seat's open missions (the mission games), read once per decision."""
        if self._aims is False:
            self._aims = aims(self.view)
        return self._aims  # type: ignore[return-value]

    # Single territories ---------------------------------------------------

    def enemies_near(self, territory: str) -> list[str]:
        """Neighbours held by someone other than the holder of ``territory``."""
        found = self._enemies.get(territory)
        if found is None:
            owner = self.owner
            me = owner.get(territory, self.me)
            neighbours = self.info.neighbours[territory]
            side = self.side
            if side is None:
                found = [n for n in neighbours if owner.get(n, me) != me]
            else:
                ours = side.get(me or "")
                found = [n for n in neighbours if side.get(owner.get(n, me) or "") != ours]
            self._enemies[territory] = found
        return found

    def is_friend(self, seat: str | None) -> bool:
        """Whether ``seat`` is this seat or, in a team game, a team-mate."""
        if seat == self.me:
            return True
        side = self.side
        return side is not None and seat is not None and side.get(seat) == side[self.me]

    def is_rival(self, seat: str | None) -> bool:
        """Whether ``seat`` is a player who moves against this seat: not free, a
        friend or a neutral."""
        return seat is not None and not self.is_friend(seat) and not self.view.is_neutral(seat)

    def is_border(self, territory: str) -> bool:
        if self.side is not None:
            return bool(self.enemies_near(territory))
        owner = self.owner
        me = owner[territory]
        return any(owner.get(n, me) != me for n in self.info.neighbours[territory])

    def pressure(self, territory: str) -> int:
        """Enemy armies that could attack ``territory`` next turn."""
        cached = self._pressure.get(territory)
        if cached is None:
            troops = self.troops
            cached = sum(troops[n] - 1 for n in self.enemies_near(territory))
            self._pressure[territory] = cached
        return cached

    def borders(self) -> list[str]:
        return [t for t in self.mine if self.is_border(t)]

    # Groups -----------------------------------------------------------------

    def held(self, group: str, player: str) -> int:
        return self.count[group].get(player, 0)

    def holds_group(self, player: str, group: str) -> bool:
        return self.held_groups.get(group) == player

    def dominant(self) -> bool:
        """Whether this seat (with its team-mates) has ``DOMINANT`` times the armies
        of all its rival players together: then an army traded for an army brings
        the end nearer, and holding back only stalls the game."""
        if self._dominant is None:
            rivals = self.cards
            mine = theirs = 0
            for territory, holder in self.owner.items():
                if self.is_friend(holder):
                    mine += self.troops[territory]
                elif holder in rivals:
                    theirs += self.troops[territory]
            self._dominant = mine >= DOMINANT * theirs
        return self._dominant

    def duel(self) -> bool:
        """Whether one rival is left (neutrals aside)."""
        return len(self.cards) == 2

    def income(self, player: str) -> int:
        bonus = sum(self.info.groups[g].bonus for g, p in self.held_groups.items() if p == player)
        return max(3, self.territories.get(player, 0) // 3) + bonus

    def strengths(self, card: float) -> dict[str, float]:
        """Player still in -> its strength as the strong bot's score counts it
        (``evaluate.strength``), its cards at ``card`` armies each: the public
        measure of who is ahead."""
        if self._strengths is None:
            armies = dict.fromkeys(self.cards, 0)
            for territory, holder in self.owner.items():
                if holder in armies:
                    armies[holder] += self.troops[territory]
            self._strengths = {
                p: strength(armies[p], self.income(p), n, card) for p, n in self.cards.items()
            }
        return self._strengths

    def leader(self, card: float, ratio: float) -> str | None:
        """The strongest rival, if ``ratio`` times everyone else's strength or more
        (0: whoever it is), with three players or more still in: the one every
        other seat should hold back (in a duel there is only the one rival)."""
        power = self.strengths(card)
        rivals = [p for p in power if not self.is_friend(p)]
        if len(power) < 3 or not rivals:
            return None
        top = max(rivals, key=lambda p: (power[p], p))
        if all(power[top] >= ratio * v for p, v in power.items() if p != top):
            return top
        return None

    def distance_to_border(self) -> dict[str, int]:
        """Steps through own territories from each of them to the nearest border."""
        dist = {t: 0 for t in self.mine if self.is_border(t)}
        queue = deque(dist)
        while queue:
            here = queue.popleft()
            for n in self.info.neighbours[here]:
                if n not in dist and self.owner.get(n) == self.me:
                    dist[n] = dist[here] + 1
                    queue.append(n)
        return dist


def joined_to(
    source: str, owns: Callable[[str], bool], neighbours: Mapping[str, Sequence[str]]
) -> set[str]:
    """The territories ``owns`` accepts that a chain of such territories joins to
    ``source`` (``source`` itself left out): where a connected fortify or a leader's
    manoeuvre can go."""
    seen, stack = {source}, [source]
    while stack:
        here = stack.pop()
        for n in neighbours[here]:
            if n not in seen and owns(n):
                seen.add(n)
                stack.append(n)
    seen.discard(source)
    return seen


def _full(pos: Position, group: str, per: dict[str, int]) -> bool:
    return sum(per.values()) == pos.info.size(group)
