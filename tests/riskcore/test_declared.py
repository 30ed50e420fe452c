"""How events and commands declare their wire form (riskcore/protocol/declared.py):
a statement after the class, which the registry checks, and the script that
rewrites the old form (scripts/convert_declarations.py)."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from riskcore.protocol import codec
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev

ROOT = Path(__file__).resolve().parents[2]


def _converter() -> Any:
    spec = importlib.util.spec_from_file_location(
        "convert_declarations", ROOT / "scripts/convert_declarations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def registries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are undone after it."""
    monkeypatch.setattr(ev, "EVENT_CLASSES", dict(ev.EVENT_CLASSES))
    monkeypatch.setattr(codec, "EVENT_CLASSES", ev.EVENT_CLASSES)
    monkeypatch.setattr(cmd, "COMMAND_TYPES", dict(cmd.COMMAND_TYPES))


def test_an_old_declaration_is_refused_naming_the_class(registries: None) -> None:
    """The wire name in the class body (the form before the compiled build) is
    refused loudly, with the class and the script that rewrites it."""

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class OldStyle(ev.Event):
        TYPE = "old_style_test_event"
        seat: str

    for call in (lambda: ev.register_event(OldStyle), lambda: ev.register_event(OldStyle, "x")):
        with pytest.raises(TypeError) as caught:
            call()
        assert "OldStyle" in str(caught.value)
        assert "scripts/convert_declarations.py" in str(caught.value)
    assert "old_style_test_event" not in ev.EVENT_CLASSES and "x" not in ev.EVENT_CLASSES


def test_a_decorator_without_a_name_is_refused(registries: None) -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Undeclared(cmd.Command):
        territory: str

    with pytest.raises(TypeError, match="Undeclared is registered without a wire name"):
        cmd.register_command(Undeclared)


def test_a_command_declares_each_fields_wire_type_as_annotated(registries: None) -> None:
    """The parser reads the declared wire types (a compiled class keeps no annotations);
    the pure build checks them against the class."""

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Move(cmd.Command):
        source: str
        count: int = 1

    with pytest.raises(TypeError, match=r"Move\.count is 'int', declared 'str'"):
        cmd.register_command(Move, "move_test", fields={"source": "str", "count": "str"})
    with pytest.raises(TypeError, match="Move: fields= names"):
        cmd.register_command(Move, "move_test", fields={"source": "str"})
    cmd.register_command(Move, "move_test", fields={"source": "str", "count": "int"})
    assert cmd.command_from_dict({"type": "move_test", "source": "x"}, "p1") == Move(
        seat="p1", source="x"
    )
    with pytest.raises(cmd.MalformedCommand, match=r"move_test\.count has the wrong type"):
        cmd.command_from_dict({"type": "move_test", "source": "x", "count": "2"}, "p1")


def test_an_event_names_its_tuple_fields(registries: None) -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Rolled(ev.Event):
        seat: str
        dice: tuple[int, ...]

    with pytest.raises(TypeError, match=r"Rolled: tuples=\(\), its tuple fields \('dice',\)"):
        ev.register_event(Rolled, "rolled_test")
    ev.register_event(Rolled, "rolled_test", tuples=("dice",))
    rolled = Rolled(seat="p1", dice=(6, 1))
    assert codec.decode_event(codec.encode_event(rolled)) == rolled


OLD = '''\
from dataclasses import dataclass

from riskcore.protocol.events import Event, register_event


@register_event
@dataclass(frozen=True, slots=True, kw_only=True)
class Spotted(Event):
    """A card seen."""

    TYPE = "spotted_test_event"
    # 2: the card
    VERSION = 2
    SECRET = ("card",)  # only the spotter sees it
    seat: str
    card: int
    seen: tuple[int, ...] = ()
'''

NEW = '''\
from dataclasses import dataclass

from riskcore.protocol.events import Event, register_event


@dataclass(frozen=True, slots=True, kw_only=True)
class Spotted(Event):
    """A card seen."""

    seat: str
    card: int
    seen: tuple[int, ...] = ()


register_event(
    Spotted,
    "spotted_test_event",
    # 2: the card
    version=2,
    # only the spotter sees it
    secret=("card",),
    tuples=("seen",),
)
'''


def test_the_converter_rewrites_an_old_declaration_once(registries: None) -> None:
    """The script the lead runs after merging work in the old form: the same wire
    name, version and secret fields, and a second run changes nothing."""
    convert = _converter().convert_source
    assert convert(OLD) == NEW
    assert convert(NEW) == NEW
    namespace: dict[str, Any] = {"__name__": "spotted_test"}
    sys.modules["spotted_test"] = type(sys)("spotted_test")
    exec(compile(NEW, "spotted_test.py", "exec"), namespace)
    spotted = namespace["Spotted"]
    assert ev.EVENT_CLASSES["spotted_test_event"] is spotted
    assert (spotted.TYPE, spotted.VERSION, spotted.SECRET) == ("spotted_test_event", 2, ("card",))
    del sys.modules["spotted_test"]


def test_every_declaration_in_the_tree_is_converted() -> None:
    """Nothing in riskcore or the tests is left in the old form."""
    converter = _converter()
    for path in converter._python_files([str(ROOT / "riskcore"), str(ROOT / "tests")]):
        source = path.read_text(encoding="utf-8")
        assert converter.convert_source(source, path in converter.BASE_DECLARATIONS) == source, path
