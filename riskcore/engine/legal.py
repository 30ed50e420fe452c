"""``legal_actions``: what a seat may do now, as ready-to-send commands.

Each action is ``{"command": {...}, "bounds": {...}}``: the command body is
accepted by ``decide`` as it is (its numeric fields set to the most useful
value), and ``bounds`` gives the inclusive range each numeric field may
take. Clients and bots build their moves from this list alone.

The list comes as ``LegalActions``, grouped by command type and built one
group at a time on first use: a bot that wants only the blitzes does not
pay for listing every attack, and listing is most of what a simulated game
costs after the rules themselves. A group may also build the ``Command`` of
one of its actions straight from its compact entry (``ActionGroup.command``):
a bot playing in process hands that to the engine, with no dict to build and
parse again (``riskcore.simulate``); dicts are for the HTTP edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from riskcore.model.state import FINISHED, State
from riskcore.protocol.commands import Command

Action = dict[str, Any]
# Builds the command of an entry's action, with its default values, for a seat.
CommandMaker = Callable[[Any, str], Command]


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
    builds no action it does not pick. ``command``, where given, builds an
    entry's ``Command`` directly (the one ``command_from_dict`` makes of its
    action's body).
    """

    __slots__ = ("_command", "_entries", "_fields", "_make")

    def __init__(
        self,
        entries: list[Any],
        make: Callable[[Any], Action],
        fields: Mapping[str, Callable[[Any], Any]] = _NO_FIELDS,
        command: CommandMaker | None = None,
    ) -> None:
        self._entries = entries
        self._make = make
        self._fields = fields
        self._command = command

    @property
    def builds_commands(self) -> bool:
        """Whether ``command`` can build this group's actions as commands."""
        return self._command is not None

    def command(self, index: int, seat: str) -> Command:
        """Action ``index`` as ``seat``'s command, its values as listed: equal to
        ``command_from_dict(self[index]["command"], seat)``, without the dicts."""
        if self._command is None:
            raise TypeError("this group builds its actions as dicts only")
        return self._command(self._entries[index], seat)

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


def builders_by_type(builders: Sequence[tuple[str, Builder]]) -> dict[str, Builder]:
    """Each command type's builder; a type listed twice keeps its first, as listing
    by the table does."""
    found: dict[str, Builder] = {}
    for kind, builder in builders:
        found.setdefault(kind, builder)
    return found


class LegalActions(Sequence[Action]):
    """Every action a seat may take at one version, grouped by command type.

    A read-only sequence in listing order (equal to a list of the same
    actions), plus ``of_type``, which builds one group only. It reads the
    state lazily, so it belongs to the version it was made at: reading a
    group after the game moved on raises instead of listing the wrong moves.
    """

    __slots__ = ("_all", "_builders", "_by_type", "_groups", "_seat", "_state", "_version")

    def __init__(
        self,
        state: State,
        seat: str,
        builders: Sequence[tuple[str, Builder]],
        by_type: Mapping[str, Builder] | None = None,
    ) -> None:
        """``by_type``: ``builders_by_type(builders)``, where the caller keeps one (a
        mode keeps one per phase: ``GameMode.builders_by_phase``)."""
        self._state = state
        self._seat = seat
        self._version = state.version
        self._builders = builders
        self._by_type = builders_by_type(builders) if by_type is None else by_type
        self._groups: dict[str, Sequence[Action]] = {}
        self._all: list[Action] | None = None

    def of_type(self, kind: str) -> Sequence[Action]:
        """The actions whose command has this ``type`` (empty if none)."""
        if self._state.version != self._version:  # ``_check_current``: asked per move
            self._check_current()
        group = self._groups.get(kind)
        if group is not None:
            return group
        builder = self._by_type.get(kind)
        if builder is None:
            return []
        group = self._groups[kind] = builder(self._state, self._seat)
        return group

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
_NO_BUILDERS: Mapping[str, Builder] = {}


def legal_actions(state: State, seat: str) -> LegalActions:
    """Every action ``seat`` may take now (empty when it has none).

    Only the seat the game waits for has actions (``GameMode.waiting_for``:
    resigning is always accepted by ``decide``, but listing it to another
    seat would say "your move"); the mode lists them per phase.
    """
    phase = state.phase
    if phase == FINISHED or seat not in state.seats or not state.is_active(seat):
        return LegalActions(state, seat, _NOTHING, _NO_BUILDERS)
    mode = state.mode
    if mode.waiting_for(state) != seat:
        return LegalActions(state, seat, _NOTHING, _NO_BUILDERS)
    return LegalActions(
        state,
        seat,
        mode.actions_by_phase.get(phase, _NOTHING),
        mode.builders_by_phase.get(phase, _NO_BUILDERS),
    )
