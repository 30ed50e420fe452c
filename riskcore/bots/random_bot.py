"""The random bot: uniform over legal actions, preferring progress.

Pure uniform play can wander for thousands of turns (progressive card
values keep adding armies faster than random attacks remove them), so it
prefers progress: whatever must be done first (claim, trade, defend), all
reinforcements at once on a random border territory, a blitz (uniform over
the legal ones) whenever one is legal, and every army it can move into a
conquered territory. Otherwise it picks uniformly among the remaining
actions, amounts uniform within their bounds. Measured on 30 four-player
games: about 60 turns a game; dropping any one preference multiplies that.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from typing import Any

from riskcore.bots.base import register
from riskcore.engine.legal import Action, ActionGroup, LegalActions, command_values, of_type
from riskcore.model.state import ATTACK, DEFEND, OCCUPY, REINFORCE, SETUP_CLAIM, SETUP_PLACE
from riskcore.protocol.commands import Command
from riskcore.views.seatview import SeatView

# What the bot chose: a command body, or an action by its group and index in it.
Choice = dict[str, Any] | tuple[Sequence[Action], int]


class RandomBot:
    name = "random"
    version = "2"

    def choose(
        self, view: SeatView, actions: Sequence[Action], rng: random.Random
    ) -> dict[str, Any]:
        chosen = _choose(view, actions, rng)
        if isinstance(chosen, dict):
            return chosen
        group, index = chosen
        return dict(group[index]["command"])

    def choose_command(
        self, view: SeatView, actions: Sequence[Action], rng: random.Random
    ) -> Command | dict[str, Any]:
        """``choose``'s move (the same draws), as a ``Command`` where its group builds
        one (``ActionGroup.command``), else as its body: for games played in process
        (``riskcore.simulate``), which then build and parse no dict for it."""
        chosen = _choose(view, actions, rng)
        if isinstance(chosen, dict):
            return chosen
        group, index = chosen
        if isinstance(group, ActionGroup) and group.builds_commands:
            return group.command(index, view.seat)
        return dict(group[index]["command"])


_PREFERRED = {
    SETUP_CLAIM: ("claim_territory",),
    SETUP_PLACE: ("place_armies",),
    REINFORCE: ("trade_cards", "place_armies"),
    DEFEND: ("defend",),
    OCCUPY: ("occupy",),
    ATTACK: ("blitz", "attack"),
}


def _choose(view: SeatView, actions: Sequence[Action], rng: random.Random) -> Choice:
    # What each phase can list, most wanted first (the phase only says
    # where to look: the bot still answers from ``actions``).
    listed = actions.of_type if isinstance(actions, LegalActions) else partial(of_type, actions)
    for kind in _PREFERRED.get(view.phase, ()):
        group = listed(kind)
        if group:
            return group, _pick(kind, group, view, rng)
    return _any_playable(actions, rng)


def _pick(kind: str, group: Sequence[Action], view: SeatView, rng: random.Random) -> int:
    """The index of the action of ``group`` to take. Drawing from a range of
    indices draws exactly as drawing from the actions would, and builds none."""
    if kind == "place_armies":
        return _border_placement(view, group, rng)
    if kind == "occupy":
        return 0  # every army it may move
    return below(rng, len(group))


def _any_playable(actions: Sequence[Action], rng: random.Random) -> dict[str, Any]:
    """Any action but resigning (uniformly, over the listing), amounts within bounds.

    From ``LegalActions``, only the action drawn is built: the draw is over the
    groups' lengths, in listing order.
    """
    if isinstance(actions, LegalActions):
        groups = [actions.of_type(kind) for kind in actions.types() if kind != "resign"]
    else:
        groups = [[a for a in actions if a["command"]["type"] != "resign"]]
    total = sum(map(len, groups))
    if not total:
        return {"type": "resign"}
    index = below(rng, total)
    for group in groups:
        if index < len(group):
            break
        index -= len(group)
    return _within_bounds(group[index], rng)


def _border_placement(view: SeatView, placements: Sequence[Action], rng: random.Random) -> int:
    """The index of a random placement on a territory that touches an enemy
    (of any placement if none does).

    Indices rather than actions, so only the chosen action is built; drawing
    from the list of indices draws exactly as drawing from the actions would.
    """
    owner = view.owners().get  # once per neighbour of every placement: kept at hand
    neighbours = view.board.neighbours
    border = []
    for index, territory in enumerate(command_values(placements, "territory")):
        holder = owner(territory)
        for neighbour in neighbours[territory]:
            if owner(neighbour) != holder:
                border.append(index)
                break
    return border[below(rng, len(border))] if border else below(rng, len(placements))


def below(rng: random.Random, n: int) -> int:
    """A uniform index below ``n`` (> 0), drawn exactly as ``rng.choice`` of
    ``n`` items draws it (the fewest bits that hold ``n``, again while too big),
    so games replay as before; here compiled, not the standard library's
    Python (a tenth of a random game's time went to ``choice``)."""
    bits = n.bit_length()
    drawn = rng.getrandbits(bits)
    while drawn >= n:
        drawn = rng.getrandbits(bits)
    return drawn


def _within_bounds(action: Action, rng: random.Random) -> dict[str, Any]:
    command = dict(action["command"])
    for field, (low, high) in action["bounds"].items():
        command[field] = rng.randint(low, high)
    return command


register("random")(RandomBot)
