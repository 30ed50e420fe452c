"""What the optional compiled build (``make compiled``, docs in the README) reads
from the source and plain Python ignores.

``mypyc_attr(allow_interpreted_subclasses=True)`` on a base class lets classes
that are not compiled (a test's game mode, a mode of one's own) subclass the
compiled one. mypyc knows the decorator by its name in ``mypy_extensions``, which
the type checker sees here; at run time it is this no-op, so riskcore needs
nothing beyond the standard library. This module is never compiled itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Any:
        return lambda cls: cls
