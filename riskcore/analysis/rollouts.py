"""Playing a position out to the end with the strong bot's rollout policy.

The strong bot (``riskcore.bots.strong``) judges its options by playing them
out with the heuristic policy for every seat; the analysis does the same from
a game's *full* state, which is public once the game is over (nothing is
determinised: the deck's order is the one the game had). A rollout plays to
the game's end, so its result is a win or a loss, not an evaluation; one that
runs past ``MAX_COMMANDS`` is scored by the evaluation's shares instead
(``riskcore.bots.evaluate``), which happens in long stalemates only.

Dice come from a ``GameRng`` keyed by the analysis key, the position's
version, the rollout's number and the command's place in it: the same key
and depth give the same analysis on any machine.
"""

from __future__ import annotations

import hashlib

from riskcore.bots.evaluate import evaluate
from riskcore.bots.heuristic import Body, HeuristicPolicy
from riskcore.bots.strong import claim, step
from riskcore.model.state import FINISHED, State
from riskcore.protocol.dice import GameRng
from riskcore.views.seatview import SeatView

# A rollout that has not ended after this many commands is scored by the
# evaluation (a heuristic game of four takes ~1,500 commands in all).
MAX_COMMANDS = 6_000

POLICY = HeuristicPolicy()


def analysis_key(seed: str, head: str) -> bytes:
    """The rollouts' key: the caller's seed and the game's head hash, so two
    analyses of one game at one seed and depth agree, and of two games do not."""
    return hashlib.sha256(f"analysis|{seed}|{head}".encode()).digest()


def players(state: State) -> list[str]:
    """The seats that can win (neutral seats never do)."""
    return [seat for seat, info in state.seats.items() if info.plays]


def outcome(state: State) -> dict[str, float]:
    """Each player's result: 1 won, 0 lost; an unfinished game, its shares."""
    return {seat: evaluate(state, seat) for seat in players(state)}


def play_out(state: State, key: bytes, label: str, first: Body | None = None) -> dict[str, float]:
    """Play ``state`` (a copy the caller gives up) to the end: ``first`` for the
    seat to act, then the policy for everyone. ``label`` names the rollout in
    its dice (version and number), so rollouts that share it share their dice:
    the options of one decision are compared on the same rolls."""
    body = first
    for index in range(MAX_COMMANDS):
        acting = state.mode.waiting_for(state)
        if state.phase == FINISHED or acting is None:
            break
        if body is None:
            body = claim(state, acting) or POLICY.body(SeatView(state, acting))
        step(state, acting, body, GameRng(key, label, index))
        body = None
    return outcome(state)


def mean_outcome(state: State, key: bytes, depth: int) -> dict[str, float]:
    """Each player's win chance from ``state``: the mean of ``depth`` rollouts."""
    totals = dict.fromkeys(players(state), 0.0)
    for number in range(depth):
        result = play_out(state.copy(), key, f"chance/{state.version}/{number}")
        for seat, value in result.items():
            totals[seat] += value
    return {seat: total / depth for seat, total in totals.items()}
