"""``legal_actions``: what a seat may do now, as ready-to-send commands.

Each action is ``{"command": {...}, "bounds": {...}}``: the command body is
accepted by ``decide`` as it is (its numeric fields set to the most useful
value), and ``bounds`` gives the inclusive range each numeric field may
take. Clients and bots build their moves from this list alone.

The list comes as ``LegalActions``, grouped by command type and built one
group at a time on first use: a bot that wants only the blitzes does not
pay for listing every attack, and listing is most of what a simulated game
costs after the rules themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any, overload

from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FINISHED,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    State,
)
from riskcore.rules.battle import _chooser, defending_seat
from riskcore.rules.cards import sets_in_hand
from riskcore.rules.fortify import reachable
from riskcore.rules.reinforce import may_trade

Action = dict[str, Any]


def _action(command: dict[str, Any], **bounds: tuple[int, int]) -> Action:
    return {"command": command, "bounds": {k: list(v) for k, v in bounds.items()}}


def _placement(entry: tuple[str, int]) -> Action:
    territory, left = entry
    return {
        "command": {"type": "place_armies", "territory": territory, "count": left},
        "bounds": {"count": [1, left]},
    }


def _placements(territories: list[str], left: int) -> list[tuple[str, int]]:
    """Place up to ``left`` armies on any of ``territories``, as ``_placement`` entries."""
    return [(t, left) for t in territories]


# The command fields of a ``_placement``, read from its entry (``command_values``).
_PLACEMENT_FIELDS = {"territory": itemgetter(0), "count": itemgetter(1)}


Builder = Callable[[State, str], Sequence[Action]]
# Shared by groups without field readers; a Mapping, never written to (a plain
# dict, so groups can be copied and pickled).
_NO_FIELDS: Mapping[str, Callable[[Any], Any]] = {}


class ActionGroup(Sequence[Action]):
    """One command type's actions, kept compact and made into dicts on access.

    ``entries`` are small tuples and ``make`` turns one into its action, so
    picking one action at random from a group of thirty builds one dict,
    not thirty (a simulated game lists attacks hundreds of times). ``fields``
    may read some command fields straight from an entry, for
    ``command_values``: a bot that looks at where every placement goes then
    builds no action it does not pick.
    """

    __slots__ = ("_entries", "_fields", "_make")

    def __init__(
        self,
        entries: list[Any],
        make: Callable[[Any], Action],
        fields: Mapping[str, Callable[[Any], Any]] = _NO_FIELDS,
    ) -> None:
        self._entries = entries
        self._make = make
        self._fields = fields

    def command_values(self, field: str) -> list[Any]:
        """``[action["command"][field] for action in self]``, from the entries if it can."""
        read = self._fields.get(field)
        if read is None:
            return [action["command"][field] for action in self]
        return list(map(read, self._entries))

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...
    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return [self._make(entry) for entry in self._entries[index]]
        return self._make(self._entries[index])

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Action]:
        return map(self._make, self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionGroup | LegalActions | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionGroup({list(self)!r})"


class LegalActions(Sequence[Action]):
    """Every action a seat may take at one version, grouped by command type.

    A read-only sequence in listing order (equal to a list of the same
    actions), plus ``of_type``, which builds one group only. It reads the
    state lazily, so it belongs to the version it was made at: reading a
    group after the game moved on raises instead of listing the wrong moves.
    """

    __slots__ = ("_all", "_builders", "_groups", "_seat", "_state", "_version")

    def __init__(self, state: State, seat: str, builders: Sequence[tuple[str, Builder]]) -> None:
        self._state = state
        self._seat = seat
        self._version = state.version
        self._builders = builders
        self._groups: dict[str, Sequence[Action]] = {}
        self._all: list[Action] | None = None

    def of_type(self, kind: str) -> Sequence[Action]:
        """The actions whose command has this ``type`` (empty if none)."""
        self._check_current()
        group = self._groups.get(kind)
        if group is not None:
            return group
        for listed, builder in self._builders:
            if listed == kind:
                group = self._groups[kind] = builder(self._state, self._seat)
                return group
        return []

    def _check_current(self) -> None:
        """Refuse to answer, built or not, once the state has moved past our version."""
        if self._state.version != self._version:
            raise RuntimeError(
                f"legal actions of version {self._version} read at version "
                f"{self._state.version}; list them again"
            )

    def types(self) -> list[str]:
        """The command types with at least one action, in listing order."""
        return [kind for kind, _ in self._builders if self.of_type(kind)]

    def _list(self) -> list[Action]:
        self._check_current()
        if self._all is None:
            self._all = [action for kind, _ in self._builders for action in self.of_type(kind)]
        return self._all

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...
    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[Action]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionGroup | LegalActions | list):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalActions({self._list()!r})"


def of_type(actions: Sequence[Action], kind: str) -> Sequence[Action]:
    """The actions of one command type, from ``LegalActions`` or any list of actions
    (such as the ``actions`` of the HTTP API's legal-actions document)."""
    if isinstance(actions, LegalActions):
        return actions.of_type(kind)
    return [a for a in actions if a["command"]["type"] == kind]


def command_values(actions: Sequence[Action], field: str) -> list[Any]:
    """One command field of every action, in order, from ``of_type``'s groups
    (without building the actions where it can) or any list of actions."""
    if isinstance(actions, ActionGroup):
        return actions.command_values(field)
    return [a["command"][field] for a in actions]


_NOTHING: tuple[tuple[str, Builder], ...] = ()


def legal_actions(state: State, seat: str) -> LegalActions:
    """Every action ``seat`` may take now (empty when it has none)."""
    if state.phase == FINISHED or seat not in state.seats or not state.is_active(seat):
        return LegalActions(state, seat, _NOTHING)
    if state.phase == DEFEND:
        # Only the seat the game waits for has actions (resigning is always
        # accepted by ``decide``, but listing it would say "your move").
        waited_for = defending_seat(state) == seat
        return LegalActions(state, seat, _BY_PHASE[DEFEND] if waited_for else _NOTHING)
    if state.current != seat:
        return LegalActions(state, seat, _NOTHING)
    return LegalActions(state, seat, _BY_PHASE[state.phase])


def _claim_action(territory: str) -> Action:
    return {"command": {"type": "claim_territory", "territory": territory}, "bounds": {}}


def _claim(s: State, seat: str) -> Sequence[Action]:
    owner = s.owner
    return ActionGroup([t for t in s.board.territory_names if t not in owner], _claim_action)


def _setup_place(s: State, seat: str) -> Sequence[Action]:
    entries = []
    for player, left in s.setup_quota.items():
        if left > 0:
            entries += _placements(s.territories_of(player), left)
    return ActionGroup(entries, _placement, _PLACEMENT_FIELDS)


def _trades(s: State, seat: str) -> list[Action]:
    """Each set in hand; with a choice of +2 territories, one action per choice."""
    if not may_trade(s):
        return []
    actions = []
    cards = s.board.cards
    for chosen in sets_in_hand(s.board, s.hand(seat)):
        body = {"type": "trade_cards", "cards": list(chosen)}
        pictured = [cards[c].territory for c in chosen]
        held = [t for t in pictured if t is not None and s.owner.get(t) == seat]
        if s.bonus_taken or len(held) < 2:
            actions.append(_action(body))
        else:
            actions += [_action({**body, "bonus_territory": t}) for t in held]
    return actions


def _reinforcements(s: State, seat: str) -> Sequence[Action]:
    left = s.reserve.get(seat, 0)
    if s.must_trade_until is not None or left < 1:
        return []
    return ActionGroup(_placements(s.territories_of(seat), left), _placement, _PLACEMENT_FIELDS)


def _attackable(s: State, seat: str) -> list[tuple[str, str, int, str | None]]:
    """(source, target, armies in source, defender) for every attack ``seat`` could make."""
    owner = s.owner
    armies = s.armies
    neighbours = s.board.neighbours
    return [
        (source, target, in_source, defender)
        for source in s.territories_of(seat)
        if (in_source := armies[(source, seat)]) > 1
        for target in neighbours[source]
        if (defender := owner.get(target)) != seat
    ]


def _attack_action(entry: tuple[str, str, int, str | None]) -> Action:
    source, target, armies, _ = entry
    dice = 3 if armies > 3 else armies - 1
    return {
        "command": {"type": "attack", "source": source, "target": target, "dice": dice},
        "bounds": {"dice": [1, dice]},
    }


def _blitz_action(entry: tuple[str, str, int, str | None]) -> Action:
    source, target, armies, _ = entry
    return {
        "command": {"type": "blitz", "source": source, "target": target, "stop_at": 1},
        "bounds": {"stop_at": [1, armies - 1]},
    }


def _attacks(s: State, seat: str) -> Sequence[Action]:
    return ActionGroup(_attackable(s, seat), _attack_action)


def _blitzes(s: State, seat: str) -> Sequence[Action]:
    """Blitz needs no defender's choice: every attack unless defenders choose dice."""
    entries = _attackable(s, seat)
    if s.rules.defender_chooses_dice:
        entries = [e for e in entries if e[3] is None or _chooser(s, e[3], seat) is None]
    return ActionGroup(entries, _blitz_action)


def _end_phase(s: State, seat: str) -> list[Action]:
    return [_action({"type": "end_phase"})]


def _resign(s: State, seat: str) -> list[Action]:
    return [_action({"type": "resign"})]


def _defend(s: State, seat: str) -> list[Action]:
    assert s.pending_battle is not None
    most = min(2, s.troops(s.pending_battle.target))
    return [_action({"type": "defend", "dice": most}, dice=(1, most))]


def _occupy(s: State, seat: str) -> list[Action]:
    occ = s.occupation
    assert occ is not None
    # Written out rather than through ``_action``: every conquest lists it.
    return [
        {
            "command": {"type": "occupy", "count": occ.max_move},
            "bounds": {"count": [occ.min_move, occ.max_move]},
        }
    ]


def _fortify(s: State, seat: str) -> list[Action]:
    if s.fortified:
        return []
    actions: list[Action] = []
    for source in s.territories_of(seat):
        most = s.armies[(source, seat)] - 1
        if most < 1:
            continue
        for target in sorted(reachable(s, seat, source)):
            actions.append(
                {
                    "command": {
                        "type": "fortify",
                        "source": source,
                        "target": target,
                        "count": most,
                    },
                    "bounds": {"count": [1, most]},
                }
            )
    return actions


_RESIGN = ("resign", _resign)
_BY_PHASE: dict[str, tuple[tuple[str, Builder], ...]] = {
    SETUP_CLAIM: (("claim_territory", _claim), _RESIGN),
    SETUP_PLACE: (("place_armies", _setup_place), _RESIGN),
    REINFORCE: (("trade_cards", _trades), ("place_armies", _reinforcements), _RESIGN),
    ATTACK: (("attack", _attacks), ("blitz", _blitzes), ("end_phase", _end_phase), _RESIGN),
    DEFEND: (("defend", _defend), _RESIGN),
    OCCUPY: (("occupy", _occupy), _RESIGN),
    FORTIFY: (("fortify", _fortify), ("end_phase", _end_phase), _RESIGN),
}
