"""What the optional compiled build (``make compiled``, docs in the README) reads
from the source and plain Python ignores.

``mypyc_attr(allow_interpreted_subclasses=True)`` on a base class lets classes
that are not compiled (a test's game mode, a mode of one's own) subclass the
compiled one. ``copied_by_constructor`` lets a compiled frozen class be
copied and pickled (here, below every layer: the state and boards need it).
mypyc knows the decorator by its name in ``mypy_extensions``, which
the type checker sees here; at run time it is this no-op, so riskcore needs
nothing beyond the standard library. This module is never compiled itself.
"""

from __future__ import annotations

import copyreg
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T", bound=type)

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:
        return lambda cls: cls


def copied_by_constructor(cls: T) -> T:
    """Copy and pickle a frozen dataclass through its constructor.

    A compiled class's own state restorer assigns each field, which a frozen
    class refuses: without this, the compiled build could not hand a bot's
    frozen parameters to a worker process, nor copy an event.
    """
    copyreg.pickle(cls, _reduce)
    return cls


def _reduce(obj: Any) -> tuple[Any, ...]:
    cls = type(obj)
    names = [f.name for f in fields(cls)]
    return (_rebuild, (cls, tuple(getattr(obj, name) for name in names)))


def _rebuild(cls: Any, values: tuple[Any, ...]) -> Any:
    """``cls`` with its fields, in order, set to ``values`` (see ``_reduce``)."""
    return cls(**dict(zip((f.name for f in fields(cls)), values, strict=True)))
