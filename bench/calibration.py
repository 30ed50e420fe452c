"""How well the analysis's win chances are calibrated, and what an analysis costs.

    nice -n 10 python bench/calibration.py                 # 200 games of four heuristic bots
    nice -n 10 python bench/calibration.py --games 20 --depth 8 --every 1
    nice -n 10 python bench/calibration.py --timing 3      # only: seconds to analyse 3 games

Self-play games of the heuristic bots (four players, seeded by their index,
so a run replays exactly) are played to the end; at the start of every
``--every``-th turn, each player's win chance is estimated as the analysis
does it (``riskcore.analysis.rollouts.mean_outcome``, ``--depth`` rollouts)
and set against whether that player went on to win. Prints one JSON object:
the reliability table by decile of the predicted chance (predictions, mean
prediction, observed win rate), the Brier score against the base rate's
(always predicting 1/players), and the CPU seconds per game analysed in full
(``riskcore.analysis.analyse`` at the default depth, decisions included) for
``--timing`` games. Progress goes to stderr. CPU seconds (``process_time``)
are what one worker spends; on a shared machine the wall clock says more
about the neighbours than about the analysis.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from riskcore.analysis import DEFAULT_DEPTH, analyse
from riskcore.analysis.positions import read_game
from riskcore.analysis.rollouts import analysis_key, mean_outcome
from riskcore.audit.record import Envelope
from riskcore.bots.base import get_bot
from riskcore.simulate import GameResult, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    parser.add_argument("--every", type=int, default=2, help="judge every n-th turn start")
    parser.add_argument("--timing", type=int, default=3, help="games analysed in full, timed")
    parser.add_argument("--only-timing", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {"players": args.players, "depth": args.depth}
    if not args.only_timing:
        result.update(calibrate(args.games, args.players, args.depth, args.every))
    result["timing"] = timing(args.timing, args.players)
    print(json.dumps(result, indent=2))


def game(index: int, players: int) -> GameResult:
    bots = [get_bot("heuristic") for _ in range(players)]
    return play_game(bots, seed=f"calibration/{index}".encode(), game_id=f"cal{index}")


def wrapped(result: GameResult) -> list[Envelope]:
    """The game's events in envelopes, each command on its batch's first event."""
    found: list[Envelope] = []
    position = result.opening
    for i, event in enumerate(result.events[:position]):
        found.append(Envelope(version=i + 1, time_ms=0, actor="system", event=event))
    for seat, body, count in result.batches:
        for offset in range(count):
            version = position + offset + 1
            command = body if offset == 0 else None
            event = result.events[position + offset]
            found.append(
                Envelope(version=version, time_ms=0, actor=seat, event=event, command=command)
            )
        position += count
    return found


def calibrate(games: int, players: int, depth: int, every: int) -> dict[str, Any]:
    pairs: list[tuple[float, float]] = []
    started = time.process_time()
    for index in range(games):
        result = game(index, players)
        played = read_game(wrapped(result))
        key = analysis_key("calibration", str(index))
        for turn in played.turns[::every]:
            chances = mean_outcome(turn.state, key, depth)
            pairs += [(p, 1.0 if seat in played.winners else 0.0) for seat, p in chances.items()]
        print(f"game {index + 1}/{games}: {len(pairs)} predictions", file=sys.stderr, flush=True)
    return {
        "games": games,
        "every": every,
        "predictions": len(pairs),
        "cpu_s": round(time.process_time() - started, 1),
        "brier": round(brier(pairs), 4),
        "brier_base_rate": round(brier([(1 / players, won) for _, won in pairs]), 4),
        "deciles": deciles(pairs),
    }


def brier(pairs: list[tuple[float, float]]) -> float:
    return sum((p - won) ** 2 for p, won in pairs) / len(pairs)


def deciles(pairs: list[tuple[float, float]]) -> list[dict[str, Any]]:
    """Predictions by tenth of the chance (the last tenth holds 1.0 as well)."""
    rows = []
    for tenth in range(10):
        low, high = tenth / 10, (tenth + 1) / 10
        inside = [(p, w) for p, w in pairs if low <= p < high or (tenth == 9 and p == 1.0)]
        row: dict[str, Any] = {"from": low, "to": high, "predictions": len(inside)}
        if inside:
            row["mean_predicted"] = round(sum(p for p, _ in inside) / len(inside), 3)
            row["observed"] = round(sum(w for _, w in inside) / len(inside), 3)
        rows.append(row)
    return rows


def timing(games: int, players: int) -> list[dict[str, Any]]:
    """CPU seconds of a full analysis (default depth) of games past the calibration's."""
    found = []
    for index in range(10_000, 10_000 + games):
        envelopes = wrapped(game(index, players))
        started = time.process_time()
        report = analyse(envelopes, seed="timing", head=str(index))
        seconds = time.process_time() - started
        turns = len(report["points"]) - 1
        found.append({"turns": turns, "cpu_s": round(seconds, 1)})
        print(f"timed game {index}: {turns} turns, {seconds:.1f} s", file=sys.stderr)
    return found


if __name__ == "__main__":
    main()
