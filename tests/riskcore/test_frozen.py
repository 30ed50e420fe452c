"""Events and commands keep every dataclass promise with their fast constructors
(``riskcore.protocol.frozen``): the same fields and defaults, equality, and
immutability (events are immutable, past-tense facts; docs/engine.md, "Commands,
events, decide and evolve")."""

from __future__ import annotations

import ast
import dataclasses
import pickle
from pathlib import Path

import pytest

from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.frozen import fast_init


def test_an_event_is_built_with_its_fields_and_defaults() -> None:
    shuffled = ev.DeckShuffled(order=(3, 1, 2))
    assert shuffled.reshuffle is False and shuffled.order == (3, 1, 2)
    assert shuffled == ev.DeckShuffled(order=(3, 1, 2), reshuffle=False)
    assert repr(shuffled) == "DeckShuffled(order=(3, 1, 2), reshuffle=False)"


def test_commands_stay_frozen() -> None:
    command = cmd.PlaceArmies(seat="p1", territory="peru")
    with pytest.raises(dataclasses.FrozenInstanceError):
        command.count = 3  # type: ignore[misc]
    assert command.count == 1


def test_the_base_events_are_immutable_to_the_type_checker() -> None:
    """The base events are plain slotted objects at run time (built natively in the
    compiled build, with no frozen check per field); every field is ``Final``, so
    the type checker refuses any assignment (``event.seat = ...``: "Cannot assign to
    final attribute"), and each class writes its constructor itself."""
    for cls in ev.BASE_EVENT_TYPES:
        written = {f.name: f.type for f in dataclasses.fields(cls) if isinstance(f.type, str)}
        # (The compiled build keeps run-time classes of the annotations, not their text.)
        # ``setup_turn`` is completed by ``Decision.amend`` before the event is returned.
        assert all(t.startswith("Final[") for n, t in written.items() if n != "setup_turn"), cls
        assert "__init__" in cls.__dict__ and not cls.__dataclass_params__.init  # type: ignore[attr-defined]
        assert not cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_each_written_constructor_sets_exactly_its_class_fields() -> None:
    """The base events write their constructors out (above): each must take, as
    keyword-only parameters, exactly the fields its class declares, and assign each
    once. Read from the source, so both builds check the code that is compiled."""
    source = Path(__file__).resolve().parents[2] / "riskcore" / "protocol" / "events.py"
    names = {cls.__name__ for cls in ev.BASE_EVENT_TYPES}
    checked: dict[str, list[str]] = {}
    for node in ast.parse(source.read_text()).body:
        if not isinstance(node, ast.ClassDef) or node.name not in names:
            continue
        fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign)]  # type: ignore[union-attr]
        # An event extending another base event (game_forked a game_created) takes the
        # base's fields first and hands them to the base's constructor.
        bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        inherited = [f for b in bases for f in checked.get(b, [])]
        init = next(s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
        taken = [a.arg for a in init.args.kwonlyargs]
        assert not init.args.args[1:] and taken == inherited + fields, node.name
        assigned = [s.targets[0].attr for s in init.body if isinstance(s, ast.Assign)]  # type: ignore[attr-defined]
        assert assigned == fields, node.name
        checked[node.name] = inherited + fields
    assert set(checked) == names


def test_missing_or_unknown_fields_are_refused_as_before() -> None:
    with pytest.raises(TypeError):
        ev.TurnEnded()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ev.TurnEnded(seat="p1", extra=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ev.TurnEnded("p1")  # type: ignore[misc]


def test_replace_and_pickle_still_work() -> None:
    battle = ev.BattleResolved(
        seat="p1",
        source="peru",
        target="brazil",
        defender="p2",
        attacker_dice=(6, 5, 1),
        defender_dice=(4, 4),
        attacker_losses=1,
        defender_losses=1,
    )
    assert dataclasses.replace(battle, attacker_losses=0).attacker_losses == 0
    assert pickle.loads(pickle.dumps(battle)) == battle
    attack = cmd.Attack(seat="p1", source="peru", target="brazil")
    assert pickle.loads(pickle.dumps(attack)) == attack and attack.dice is None


def test_fast_init_refuses_what_it_could_not_build_the_same_way() -> None:
    """A mode's own event with validation or a computed field keeps the plain
    dataclass constructor: registering it says why instead."""

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Checked(ev.Event):
        TYPE = "checked_test_event"
        n: int

        def __post_init__(self) -> None:
            assert self.n >= 0

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Computed(ev.Event):
        TYPE = "computed_test_event"
        n: int = dataclasses.field(default=0, init=False)

    for cls in (Checked, Computed):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_bots_with_their_frozen_parameters_pickle_and_copy() -> None:
    """``bench/bots.py`` and ``risk simulate --workers`` hand bots to worker
    processes by pickling them; on the compiled build a frozen class's own state
    restorer refuses to assign its fields, so they go through the constructor."""
    import copy

    from riskcore.bots.evaluate import Weights
    from riskcore.bots.heuristic import HeuristicBot, Params
    from riskcore.bots.strong import SearchConfig, StrongBot

    heuristic = HeuristicBot(Params(min_win=0.55))
    strong = StrongBot(SearchConfig(iterations=7, weights=Weights(income_turns=2.5)))
    assert copy.deepcopy(heuristic).policy.params == Params(min_win=0.55)
    assert pickle.loads(pickle.dumps(heuristic)).policy.params == Params(min_win=0.55)
    again = pickle.loads(pickle.dumps(strong))
    assert again.config.weights == Weights(income_turns=2.5) and again.config.iterations == 7
    assert copy.deepcopy(Params(kill_weight=0.7)) == Params(kill_weight=0.7)
