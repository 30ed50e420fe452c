"""Fit the strong bot's win model (``riskcore.bots.win_model``) on played games.

Every turn start of every game is a row: each player's features and who went
on to win. The model is a conditional logit (each player's chance is
``exp(w · f)`` over the sum over the players still in), fitted by Newton's
method with a little L2 shrinkage, on 80% of the games; the other 20% say
how well it predicts against the strength share the bot scored before
(log loss and Brier score of the winner's chance, lower is better), and
against the strength feature alone (the share sharpened by a fitted power).

Games come from files of JSON lines, one game each
(``{"w": winner, "rows": [{"f": {seat: features}, "share": {seat: share}}]}``),
as bench/win_data.py writes them from games against Domination's AI, or are
played here by the heuristic in every seat (``--self-play N``)::

    .venv/bin/python scripts/fit_win_model.py --self-play 2000
    .venv/bin/python scripts/fit_win_model.py /tmp/arena-games.jsonl

It prints the fit as JSON; the weights go into ``riskcore/bots/win_model.py``
(``CLASSIC``) by hand, with the figures in docs/bots.md. numpy (a dependency
of the ``charts`` extra) does the algebra.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from riskcore import RuleSet
from riskcore.bots import get_bot
from riskcore.bots.evaluate import evaluate
from riskcore.bots.win_model import FEATURES, features
from riskcore.simulate import play_game, turn_starts


def self_play(games: int, seed: int) -> Iterator[dict[str, Any]]:
    """Four heuristic seats a game; a row at every turn start."""
    bots = [get_bot("heuristic") for _ in range(4)]
    for index in range(games):
        game_seed = f"win-model|{seed}|{index}".encode()
        result = play_game(bots, seed=game_seed, game_id=f"wm-{index}", rules=RuleSet())
        if result.winner is None:
            continue
        rows = [
            {
                "f": features(state),
                "share": {p: evaluate(state, p) for p in state.active_players()},
            }
            for state in turn_starts(result)
        ]
        yield {"w": result.winner, "rows": rows}


def read_files(paths: list[str]) -> Iterator[dict[str, Any]]:
    for path in paths:
        with Path(path).open() as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)


def arrays(games: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows as (features [rows, 6 seats, k], mask, winner one-hot, share), padded to six seats."""
    rows = [(row, game["w"]) for game in games for row in game["rows"] if game["w"] in row["f"]]
    k = len(FEATURES)
    x = np.zeros((len(rows), 6, k))
    mask = np.zeros((len(rows), 6), dtype=bool)
    y = np.zeros((len(rows), 6))
    share = np.zeros((len(rows), 6))
    for i, (row, winner) in enumerate(rows):
        for j, seat in enumerate(sorted(row["f"])):
            x[i, j] = row["f"][seat]
            mask[i, j] = True
            y[i, j] = seat == winner
            share[i, j] = row["share"].get(seat, 0.0)
    return x, mask, y, share


def probabilities(w: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    s = np.where(mask, x @ w, -np.inf)
    s -= s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def fit(x: np.ndarray, mask: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Newton's method on the conditional logit's log likelihood."""
    k = x.shape[2]
    w = np.zeros(k)
    for _ in range(50):
        p = probabilities(w, x, mask)
        mean = np.einsum("rs,rsk->rk", p, x)
        grad = np.einsum("rs,rsk->k", y - p, x) - l2 * w
        centred = x - mean[:, None, :]
        hess = np.einsum("rs,rsk,rsl->kl", p, centred, centred) + l2 * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def scores(p: np.ndarray, y: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """Log loss of the winner's chance and the Brier score over the players in."""
    winner = (p * y).sum(axis=1)
    brier = (((p - y) ** 2) * mask).sum() / mask.sum()
    return {"log_loss": float(-np.log(np.clip(winner, 1e-9, 1)).mean()), "brier": float(brier)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="JSON lines of games")
    parser.add_argument(
        "--self-play", type=int, default=0, help="also play this many heuristic games"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    games = list(read_files(args.files)) + list(self_play(args.self_play, args.seed))
    if not games:
        parser.error("no games: give files or --self-play N")
    train = [g for i, g in enumerate(games) if i % 5]
    test = [g for i, g in enumerate(games) if not i % 5]
    x, mask, y, _ = arrays(train)
    w = fit(x, mask, y, args.l2)
    tx, tmask, ty, tshare = arrays(test)
    share = np.where(tmask, tshare, 0.0)
    share /= np.clip(share.sum(axis=1, keepdims=True), 1e-9, None)
    # The share sharpened by a fitted power (the strength feature alone): how much
    # of the gain is calibration and how much the other features.
    alone = fit(x[:, :, :1], mask, y, args.l2)
    report = {
        "games": len(games),
        "rows": int(len(x) + len(tx)),
        "weights": dict(zip(FEATURES, (round(float(v), 4) for v in w), strict=True)),
        "held_out": {
            "model": scores(probabilities(w, tx, tmask), ty, tmask),
            "strength_alone": scores(probabilities(alone, tx[:, :, :1], tmask), ty, tmask),
            "share": scores(share, ty, tmask),
        },
        "uniform_log_loss": float(np.mean(np.log(tmask.sum(axis=1)))),
    }
    json.dump(report, sys.stdout, indent=1)
    print()
    print("weights =", tuple(round(float(v), 4) for v in w))
    if not all(math.isfinite(v) for v in w):
        raise SystemExit("the fit did not converge")


if __name__ == "__main__":
    main()
