"""How an event or command class declares what it is on the wire, and the
check that refuses the old way.

A class's wire name (and an event's schema version and secret fields) is given
to ``register_event`` / ``register_command`` in a statement after the class
body, never in the body: a ``ClassVar`` in a dataclass body is taken for a field
by mypyc, which compiles riskcore in the optional compiled build, and a class
decorator would make the class one mypyc cannot compile with its base. Old
declarations (``TYPE = ...`` in the body, the registration as a decorator)
are rewritten by ``scripts/convert_declarations.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

CONVERTER = "scripts/convert_declarations.py"
# What the registration sets on the class, so no class body may say it.
DECLARED = ("TYPE", "VERSION", "SECRET")


def check_declaration(cls: type, name: str | None, register: str) -> None:
    """Refuse, naming the class, a declaration in the old form (or none at all)."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    in_body = [attr for attr in DECLARED if attr in cls.__dict__]
    if in_body or name is None:
        said = (
            f"declares {', '.join(in_body)} in its class body"
            if in_body
            else f"is registered without a wire name (is {register} its decorator?)"
        )
        raise TypeError(
            f"{where} {said}: give the wire name after the class body, as "
            f'{register}({cls.__name__}, "<wire name>", ...); {CONVERTER} rewrites '
            "old declarations"
        )
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{where}: an event or command is a slotted dataclass")


def field_names(cls: Any) -> tuple[str, ...]:
    """A dataclass's field names, in order (the base classes are no dataclasses,
    so the type checker cannot tell that every registered class is one)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def field_annotations(cls: Any) -> dict[str, str]:
    """Each field's annotation as written, for the fields that keep it.

    With postponed annotations a pure-Python dataclass keeps each field's type as
    its source text; a compiled one keeps only a run-time class (``int | None``
    becomes ``type``), which is why nothing at run time depends on them: they
    only let a declaration be checked against its class, wholly in the pure
    build, and for the fields of a class of its own in the compiled one.
    """
    return {f.name: _unwrapped(f.type) for f in dataclasses.fields(cls) if isinstance(f.type, str)}


def _unwrapped(text: str) -> str:
    """A field's type without ``Final[...]`` (the base events' fields, immutable to the
    type checker)."""
    return text[len("Final[") : -1] if text.startswith("Final[") else text
