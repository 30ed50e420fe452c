"""``analyse``: win chances per turn, turning points, and where the points went.

The report (a JSON object; docs/analysis.md shows one):

- ``points``: at the start of every turn, each player's chance to win
  (``rollouts.mean_outcome``), and a last point with the game's result;
- ``turning_points``: the turns whose swing (the largest change of one
  player's chance from the turn's start to the next turn's) was largest,
  each with the events' range that caused it, the dice luck of every player
  in it (armies against expectation) and the costly decisions played in it;
- ``decisions``: the costly decisions found (``decisions.judge``);
- ``players``: per player, the win-chance points lost and gained to dice and
  lost to decisions, and the line a person reads ("lost 18 points to dice,
  11 to decisions").

How a turn's swing is split: the mover's decisions cost what ``judge``
measured. What is left of each player's change in that turn is put down to
the dice when the player's own dice luck in the turn (the summary's) points
the same way, and to the rest of the table (rivals' play, the course of the
game) otherwise. The split is an attribution, not a measurement: the
decisions part is measured, the dice part is what the dice can explain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from riskcore.analysis.decisions import judge_turns
from riskcore.analysis.positions import Game, Turn, read_game
from riskcore.analysis.rollouts import analysis_key, mean_outcome, players
from riskcore.audit.record import Envelope

DEFAULT_DEPTH = 8  # rollouts per turn start (and per option of a judged decision)
MAX_DEPTH = 64
TURNING_POINTS = 5  # turns reported as turning points
JUDGED_TURNS = 6  # turns whose decisions are judged: the mover's largest falls
PER_TURN = 3  # decisions judged in each of those turns
Progress = Callable[[int, int], None]  # (done, total) units of work


def analyse(
    envelopes: Sequence[Envelope],
    *,
    depth: int = DEFAULT_DEPTH,
    seed: str = "",
    head: str = "",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The analysis of a finished game; the same for the same events, seed and depth."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be from 1 to {MAX_DEPTH}: {depth!r}")
    game = read_game(envelopes)
    key = analysis_key(seed, head)
    total = len(game.turns) + JUDGED_TURNS * PER_TURN
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    chances = []
    for turn in game.turns:
        chances.append(mean_outcome(turn.state, key, depth))
        tick()
    chances.append(_result(game))
    swings = _swings(game.turns, chances, depth)
    # The turns to judge: the mover's largest falls, noise and all (the filter
    # would leave few turns to choose from at a low depth).
    raw = _swings(game.turns, chances, 0)
    falls = [i for i, turn in enumerate(game.turns) if raw[i].get(turn.seat, 0.0) < 0]
    falls.sort(key=lambda i: raw[i][game.turns[i].seat])
    chosen = [game.turns[i] for i in sorted(falls[:JUDGED_TURNS])]
    total = len(game.turns) + len(chosen) * PER_TURN  # now known: fewer falls, less to judge
    if progress is not None:
        progress(done, total)
    decisions = judge_turns(chosen, key, depth, PER_TURN, tick)
    return {
        "depth": depth,
        "seed": seed,
        "head": head,
        "players": _players(game, swings, decisions),
        "points": _points(game, chances),
        "turning_points": _turning_points(game, swings, decisions),
        "decisions": sorted(decisions, key=lambda d: -float(d["cost"])),
    }


def _result(game: Game) -> dict[str, float]:
    return {p: 1.0 if p in game.winners else 0.0 for p in players(game.final)}


def _swings(
    turns: list[Turn], chances: list[dict[str, float]], depth: int
) -> list[dict[str, float]]:
    """Each turn's change of every player's chance (to the next point), 0 where it
    is within the rollouts' noise: two standard errors of the difference of two
    means of ``depth`` wins and losses (else at depth 8 the noise of 60 turns
    adds up to more "points lost" than the game ever had)."""
    found = []
    for i in range(len(turns)):
        before, after = chances[i], chances[i + 1]
        found.append({p: _beyond_noise(before[p], after.get(p, 0.0), depth) for p in before})
    return found


def _beyond_noise(before: float, after: float, depth: int) -> float:
    if depth == 0:
        return after - before
    noise = 2 * math.sqrt((_variance(before) + _variance(after)) / depth)
    return after - before if abs(after - before) > noise else 0.0


def _variance(chance: float) -> float:
    """A win/loss mean's variance, at least a 1-in-8 chance's: a mean of 0 or 1
    over few rollouts is not a certainty."""
    return max(chance * (1 - chance), 7 / 64)


def _points(game: Game, chances: list[dict[str, float]]) -> list[dict[str, Any]]:
    points = [
        {"turn": t.number, "version": t.version, "seat": t.seat, "chances": _rounded(c)}
        for t, c in zip(game.turns, chances, strict=False)
    ]
    last = {"turn": game.final.turn, "version": game.final.version, "seat": None}
    points.append({**last, "chances": _rounded(chances[-1])})
    return points


def _rounded(chances: dict[str, float]) -> dict[str, float]:
    return {p: round(v, 3) for p, v in chances.items()}


def _turning_points(
    game: Game, swings: list[dict[str, float]], decisions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The turns of the largest swings, in game order."""
    size = [max((abs(v) for v in s.values()), default=0.0) for s in swings]
    biggest = sorted(range(len(swings)), key=lambda i: -size[i])[:TURNING_POINTS]
    found = []
    for i in sorted(i for i in biggest if size[i] > 0):
        turn = game.turns[i]
        end = game.turns[i + 1].version if i + 1 < len(game.turns) else game.final.version
        found.append(
            {
                "turn": turn.number,
                "seat": turn.seat,
                "from_version": turn.version,
                "to_version": end,
                "swing": _rounded(swings[i]),
                "dice_luck": turn.luck,
                "decisions": [
                    d["version"] for d in decisions if turn.version <= d["version"] < end
                ],
            }
        )
    return found


def _players(
    game: Game, swings: list[dict[str, float]], decisions: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per player: points lost and gained to dice, lost to decisions (in points)."""
    table = {
        p: {"dice_lost": 0.0, "dice_gained": 0.0, "decisions_lost": 0.0, "others": 0.0}
        for p in players(game.final)
    }
    for decision in decisions:
        table[decision["seat"]]["decisions_lost"] += float(decision["cost"])
    for i, turn in enumerate(game.turns):
        cost = sum(float(d["cost"]) for d in decisions if d["turn"] == turn.number)
        for p, change in swings[i].items():
            rest = change + (cost if p == turn.seat else 0.0)
            luck = turn.luck.get(p, 0.0)
            if luck * rest > 0:
                table[p]["dice_lost" if rest < 0 else "dice_gained"] += abs(rest)
            else:
                table[p]["others"] += rest
    return {p: _line(game, p, row) for p, row in table.items()}


def _line(game: Game, seat: str, row: dict[str, float]) -> dict[str, Any]:
    points = {k: round(100 * v, 1) for k, v in row.items()}
    name = game.final.seats[seat].name
    text = (
        f"{name} lost {points['dice_lost']:g} points to dice, "
        f"{points['decisions_lost']:g} to decisions (gained {points['dice_gained']:g} from dice)"
    )
    return {"name": name, "won": seat in game.winners, **points, "line": text}
