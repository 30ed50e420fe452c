"""Engine benchmark: full games with random bots, and fold rates.

Prints one JSON object. One process, one core:

    .venv/bin/python bench/engine.py [--games 200]

- play: 4-player classic games with random bots, every event recorded
  (games/s, events/s, commands/s);
- fold: rebuilding state from the recorded events, already decoded
  (events/s), from canonical JSON events, and from stored envelopes;
- breakdown: where a game's time goes, by replaying the recorded games'
  commands with one more part of the play loop each time (the rules alone
  on parsed commands, then parsing, then the bot's view and generator,
  then listing and choosing), in ms per game.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from itertools import pairwise

from riskcore.audit.record import decode_envelope, envelopes
from riskcore.bots import get_bot
from riskcore.engine.decide import execute, new_game
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.protocol.codec import decode_event, encode_event
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import GameResult, acting_seat, bot_rng, play_game
from riskcore.views.seatview import SeatView


def play(i: int) -> GameResult:
    return play_game(
        [get_bot("random") for _ in range(4)], seed=i.to_bytes(32, "big"), game_id=f"b{i}"
    )


def bench_play(games: int, keep: int) -> tuple[dict[str, float], list[GameResult]]:
    """Play ``games`` games; each records all its events in its result.

    Only the first ``keep`` results stay in memory for the fold and
    breakdown runs: hoarding every game would put hundreds of thousands of
    live objects under the garbage collector and charge the harness's
    memory to the engine (about 20 % at 200 games).
    """
    kept = []
    commands = events = 0
    started = time.perf_counter()
    for i in range(games):
        result = play(i)
        events += len(result.events)
        commands += result.commands
        if i < keep:
            kept.append(result)
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "games_per_second": round(games / elapsed, 1),
        "events_per_second": round(events / elapsed),
        "commands_per_second": round(commands / elapsed),
        "mean_events_per_game": round(events / games, 1),
    }, kept


def rate(count: int, fn) -> int:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return round(count / best)


def bench_fold(recorded: list[list]) -> dict[str, int]:
    count = sum(len(g) for g in recorded)
    as_json = [[encode_event(e) for e in g] for g in recorded]
    stored = [
        [e.encode() for e in envelopes(g, first_version=1, time_ms=1_764_000_000_000, actor="p1")]
        for g in recorded
    ]
    return {
        "events": count,
        "fold_decoded_events_per_second": rate(count, lambda: [fold(g) for g in recorded]),
        "fold_json_events_per_second": rate(
            count, lambda: [fold(decode_event(b) for b in g) for g in as_json]
        ),
        "fold_envelope_events_per_second": rate(
            count, lambda: [fold(decode_envelope(b).event for b in g) for g in stored]
        ),
    }


STAGES = ("rules", "parse", "view_and_generator", "list_and_choose")


def replay_stage(results: list[GameResult], stage: int) -> float:
    """Replay every game's commands through the play loop up to ``stage``; ms per game."""
    bot = get_bot("random")
    parsed = [[command_from_dict(body, seat) for seat, body, _ in r.batches] for r in results]
    started = time.perf_counter()
    for i, result in enumerate(results):
        seed, game_id = i.to_bytes(32, "big"), f"b{i}"
        state = fold(new_game(game_id=game_id, players=["random"] * 4, seed=seed))
        generators: dict[tuple[str, int], random.Random] = {}  # as play_game keeps them
        for k, (seat, body, _) in enumerate(result.batches):
            if stage >= 2:
                view = SeatView(state, seat)
                rng = generators.get((seat, state.turn))
                if rng is None:
                    rng = generators[seat, state.turn] = bot_rng(seed, game_id, seat, state.turn)
            if stage >= 3:
                bot.choose(view, legal_actions(state, seat), rng)
            command = parsed[i][k] if stage == 0 else command_from_dict(body, seat)
            assert acting_seat(state) == seat
            execute(state, command, GameRng(seed, game_id, state.version, state.player_seeds))
    return (time.perf_counter() - started) * 1000 / len(results)


def bench_breakdown(results: list[GameResult]) -> dict[str, float]:
    """Each stage's added ms per game (best of three), and the total."""
    totals = [min(replay_stage(results, stage) for _ in range(3)) for stage in range(4)]
    added = [totals[0]] + [b - a for a, b in pairwise(totals)]
    out = {f"{name}_ms": round(ms, 2) for name, ms in zip(STAGES, added, strict=True)}
    out["total_ms"] = round(totals[-1], 2)
    out["mean_events_per_game"] = round(sum(len(r.events) for r in results) / len(results), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    played, recorded = bench_play(args.games, keep=50)
    result = {
        "benchmark": "engine",
        "python": platform.python_version(),
        "play": played,
        "fold": bench_fold([r.events for r in recorded]),
        "breakdown": bench_breakdown(recorded),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
