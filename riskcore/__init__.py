"""riskcore: a pure, event-sourced Risk rules engine.

Pure means: standard library only, no I/O, no clock, no global randomness.
Everything random or time-dependent arrives inside commands (as a seeded
generator) or events (as recorded outcomes), so folding the same events
always rebuilds the same state.

The public API is re-exported here; the modules behind it are:
``decide`` (commands to events), ``evolve`` (events to state), ``legal``
(what a seat may do), ``views`` (what a viewer may see), ``odds`` (exact
battle odds), ``codec``/``record``/``gamerecord`` (the wire and file
formats), ``verify`` (offline audit), ``bots`` and ``simulate``.
"""

from riskcore.boards.board import Board, board_names, load_board
from riskcore.engine.decide import decide, execute, new_game
from riskcore.engine.evolve import evolve, fold
from riskcore.engine.legal import legal_actions
from riskcore.errors import MalformedCommand, RiskError, RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.protocol.commands import Command, command_from_dict
from riskcore.rules.dice import GameRng, commitment
from riskcore.views.view import redact, view

__all__ = [
    "Board",
    "Command",
    "GameRng",
    "MalformedCommand",
    "RiskError",
    "RuleSet",
    "RuleViolation",
    "State",
    "board_names",
    "command_from_dict",
    "commitment",
    "decide",
    "evolve",
    "execute",
    "fold",
    "legal_actions",
    "load_board",
    "new_game",
    "redact",
    "view",
]
