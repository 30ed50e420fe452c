"""riskcore: a pure, event-sourced Risk rules engine.

Pure means: standard library only, no I/O, no clock, no global randomness.
Everything random or time-dependent arrives inside commands (as a seeded
generator) or events (as recorded outcomes), so folding the same events
always rebuilds the same state.

The public API is re-exported here. The packages behind it, each layer
importing only those below it (``.importlinter`` keeps it so):

- ``modes``: one class per game of the rule books, registered by name;
- ``rules``: the rule areas (setup, reinforce, battle, fortify, turns) and
  the classic game's legal actions, asking the mode for what differs;
- ``engine``: ``decide`` (commands to events), ``evolve``/``fold`` (events
  to state), ``legal_actions``, the mode registry, snapshots;
- ``protocol``: commands, events, their codec, the dice;
- ``model``: the state and the rule options; ``boards``: maps as data;
- above the modes: ``views`` (what a viewer may see), ``bots``, ``audit``
  (records, the hash chain, offline verification) and ``simulate``.
"""

from riskcore.boards.board import Board, board_names, load_board
from riskcore.engine.decide import decide, execute, new_game
from riskcore.engine.evolve import evolve, fold
from riskcore.engine.legal import legal_actions
from riskcore.errors import MalformedCommand, RiskError, RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.modes import GameMode, mode_named, mode_names, register_mode
from riskcore.protocol.commands import Command, command_from_dict
from riskcore.protocol.dice import GameRng, commitment
from riskcore.views.view import redact, view

__all__ = [
    "Board",
    "Command",
    "GameMode",
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
    "mode_named",
    "mode_names",
    "new_game",
    "redact",
    "register_mode",
    "view",
]
