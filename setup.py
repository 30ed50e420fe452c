"""The optional compiled build of riskcore (everything else is in pyproject.toml).

By default this builds the pure-Python package. With ``RISKCORE_COMPILE=1`` it
compiles riskcore's modules with mypyc (as black ships compiled wheels of its
pure-Python source), apart from those listed in ``LEFT_PURE``. mypyc comes with
mypy, which the build then needs installed beside setuptools, so the compiled
build runs without build isolation::

    pip install 'setuptools>=77' wheel 'mypy>=1.10'
    RISKCORE_COMPILE=1 pip install --no-build-isolation '.[dev]'

``make compiled`` does that in its own virtualenv, ``.venv-compiled``.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

# What the compiled build compiles: the modules a game runs through on every
# command (deciding, applying, listing legal actions, the modes' hooks, the
# random bot's choices and views), and the heuristic bot, which plays the
# strong bot's rollouts.
COMPILED = (
    "riskcore/protocol/events.py",
    "riskcore/protocol/commands.py",
    "riskcore/protocol/codec.py",
    "riskcore/protocol/dice.py",
    "riskcore/engine/decide.py",
    "riskcore/engine/decision.py",
    "riskcore/engine/evolve.py",
    "riskcore/engine/legal.py",
    "riskcore/rules/actions.py",
    "riskcore/rules/battle.py",
    "riskcore/rules/cards.py",
    "riskcore/rules/flow.py",
    "riskcore/rules/fortify.py",
    "riskcore/rules/reinforce.py",
    "riskcore/rules/setup.py",
    "riskcore/rules/turns.py",
    "riskcore/modes/*.py",
    "riskcore/modes/adventure/*.py",
    "riskcore/modes/lotr/*.py",
    "riskcore/views/*.py",
    "riskcore/bots/random_bot.py",
    "riskcore/bots/heuristic.py",
    "riskcore/bots/features.py",
    "riskcore/bots/evaluate.py",
    "riskcore/bots/allies.py",
    "riskcore/bots/losses.py",
    "riskcore/bots/mission_progress.py",
    "riskcore/bots/end_score.py",
    "riskcore/bots/adventure.py",
    "riskcore/simulate.py",
    "riskcore/model/state.py",  # every rule reads the state: native attributes
    "riskcore/boards/board.py",  # and the board's neighbours
)
# What stays Python, and why (README, "Benchmarks", and docs/engine.md say more).
LEFT_PURE = {
    "riskcore/mypyc_hints.py": "the no-op stand-in for mypyc_attr must stay Python",
    "riskcore/errors.py": (
        "each error's `code` is a class attribute its subclasses override; compiled, it is "
        "an instance attribute's default that the inherited constructor never set"
    ),
    "riskcore/model/options.py riskcore/rules/odds.py": (
        "frozen values copied with the state (a compiled frozen class refuses its own state "
        "restorer) and, for the rule options, type errors raised at a compiled function's "
        "boundary instead of the clear RuleOptionError"
    ),
    "riskcore/engine/registry.py": (
        "GameMode imported only for the type checker (the modes import the registry); "
        "state.py, compiled, types its `mode` field Any for the same cycle"
    ),
    "riskcore/audit/ riskcore/tournament.py": (
        "not on the engine's path per command (records, tournaments)"
    ),
    "riskcore/bots/strong.py riskcore/bots/levels.py riskcore/bots/base.py": (
        "the search's own loop costs little beside its rollouts (the heuristic, compiled), "
        "and tests subclass StrongBot"
    ),
    "riskcore/protocol/{declared,frozen,upcasters,legacy}.py, riskcore/engine/snapshot.py": (
        "run at import or on old records only: nothing to gain"
    ),
    "riskcore/__init__.py and the packages' __init__.py": "imports only",
}


def compiled_modules() -> list[str]:
    root = Path(__file__).parent
    found = {p.relative_to(root).as_posix() for pattern in COMPILED for p in root.glob(pattern)}
    return sorted(name for name in found if not name.endswith("__init__.py"))


if os.environ.get("RISKCORE_COMPILE") == "1":
    from mypyc.build import mypycify

    # One C file per module, compiled side by side (build_ext's ``parallel``): the
    # build took 167 s as one file and 111 s so on two cores, and a game runs the
    # same (callgrind: 1,791 M against 1,790 M instructions for 10 games).
    ext_modules = mypycify(
        compiled_modules(), opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"), multi_file=True
    )
else:
    ext_modules = []

setup(ext_modules=ext_modules, options={"build_ext": {"parallel": os.cpu_count() or 1}})
