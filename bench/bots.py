"""Bot strength: seeded games between bots, with win rates and their confidence.

    python bench/bots.py                      # 300 three-player games: random, heuristic, strong
    python bench/bots.py --games 60 --budget 4
    python bench/bots.py --pair heuristic,random   # head-to-head, two-player rules (docs/rules.md)
    python bench/bots.py --teams heuristic,random --games 200   # the team game, two against two
    python bench/bots.py --teams strong+heuristic,heuristic    # a side of two different bots
    python bench/bots.py --mode mission_game --bots heuristic,random,random --games 201
    python bench/bots.py --bots strong,heuristic,heuristic,heuristic --turn-ms 500   # 4 players
    python bench/bots.py --bots strong,heuristic,heuristic,heuristic --turn-rollouts 160
    python bench/bots.py --mode secret_missions --bots heuristic,heuristic:missions=false
    python bench/bots.py --mode two_player_active --bots heuristic,heuristic:bribes=false
    RISK_DOM_ARENA=/path/to/dom_arena.py python bench/bots.py --domination-only \
        --dom-lineup 'heuristic,DomHard*3' --dom-games 400

Seats rotate through every order of the bots, so each bot sits in each seat
(and after each other bot) equally often. In the team game (``--teams``) the
two sides swap places game by game (team A plays first as often as B), and a
side of two bots swaps its two seats too; a side's wins are its team's.
Every game is seeded by its index, so a run replays exactly. Prints one JSON
object on stdout; progress goes to stderr. Win rates carry 95% Wilson score
intervals; ``decision_ms`` is the wall-clock time of the strong bot's
decisions (all of them, and the ones it searched, i.e. the slower than 2 ms);
``strong_turn_s`` and ``strong_turn_cpu_s`` its thinking per own turn (every
decision of the turn summed; p50, p99) in wall-clock and CPU seconds, and
``load_average`` the machine's load when the run started and ended: a time
budget (``--turn-ms``, ``--time-budget``) buys fewer rollouts on a busy
machine, unless ``--clock cpu``; a rollout budget (``--turn-rollouts``,
``--budget``) plays the same games on any machine. ``strong_setup_s`` is
the strong bot's thinking over a game's whole setup (its claims are
searched, each budgeted as a turn of its own; ``--searched`` without
``setup_claim`` plays the bot from before that), apart from its turns.
``--domination PATH`` (or ``RISK_DOM_ARENA``): the arena that plays
Domination's AIs on our rules (``dom_arena.py``, outside the project: see
docs/bots.md); its lineups (``--dom-lineup``, by default ``DOM_LINEUPS``:
heuristic, medium and hard each against three Domination hard AIs, and
Domination hard against three of our hard) are then played too and reported under
``domination`` beside ours, each with the lone seat kind's wins and Wilson
interval; without an arena the key says it was skipped.
``--domination-only`` plays only those.
``--rule KEY=VALUE`` sets a rule option over the mode's (``--rule
setup=deal``: territories dealt, no claims). ``first_out`` counts each
game's first elimination (``strong>heuristic``: the strong bot put a heuristic
out) and who then won.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from typing import Any

from riskcore.bots import get_bot
from riskcore.bots.strong import SearchConfig, StrongBot
from riskcore.engine.legal import Action
from riskcore.engine.registry import mode_named
from riskcore.modes.missions import MissionClaimed
from riskcore.protocol.events import PlayerEliminated
from riskcore.simulate import play_game
from riskcore.views.seatview import SeatView

Z95 = 1.959963984540054
SEARCHED_MS = 2.0


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (sound near 0 and 1, unlike p ± z·se)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (max(0.0, centre - half), min(1.0, centre + half))


class Timed:
    """Wraps a bot and keeps the time of each of its decisions."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name
        self.version = bot.version
        self.times: list[float] = []
        self.turns: dict[int, float] = {}  # seconds of thought per own turn
        self.cpu: dict[int, float] = {}  # and of this process's CPU time (load-proof)
        self.setup = 0.0  # seconds of thought in the setup (claiming, placing)

    def choose(self, view: SeatView, actions: list[Action], rng: Any) -> dict[str, Any]:
        start, cpu = time.perf_counter(), time.thread_time()
        body: dict[str, Any] = self.bot.choose(view, actions, rng)
        spent = time.perf_counter() - start
        self.times.append(spent)
        if view.turn > 0 and view.current == view.seat:  # setup is not a turn
            self.turns[view.turn] = self.turns.get(view.turn, 0.0) + spent
            self.cpu[view.turn] = self.cpu.get(view.turn, 0.0) + time.thread_time() - cpu
        elif view.turn == 0:
            self.setup += spent
        return body


def make_bot(name: str, config: SearchConfig) -> Any:
    """A bot by name; ``heuristic:missions=false;bribes=false`` passes options
    (``true``/``false``, numbers or words) to a bot other than the strong one."""
    if name == "strong":
        return StrongBot(config)
    base, _, given = name.partition(":")
    options = dict(_option(o) for o in given.split(";") if o) if given else {}
    return get_bot(base, options)


def _option(text: str) -> tuple[str, Any]:
    key, _, raw = text.partition("=")
    words = {"true": True, "false": False}
    if raw in words:
        return key, words[raw]
    try:
        return key, float(raw) if "." in raw else int(raw)
    except ValueError:
        return key, raw


Job = tuple[
    int,
    tuple[str, ...],
    tuple[str, ...],
    str,
    SearchConfig,
    str,
    dict[str, Any],
    float | None,
    int | None,
]


def play(job: Job) -> dict[str, Any] | None:
    """One game; ``labels`` name what each seat counts for (its bot, or its side).
    None, unplayed, once the run's ``deadline`` (epoch seconds) has passed."""
    index, order, labels, seed, config, mode, rules, deadline, cap = job
    if deadline is not None and time.time() > deadline:
        return None
    bots = [Timed(make_bot(name, config)) for name in order]
    start = time.perf_counter()
    result = play_game(
        bots,
        seed=f"{seed}-{index}".encode(),
        game_id=f"bench-{index}",
        mode=mode,
        rules=mode_named(mode).rule_set(rules),
        **({} if cap is None else {"max_commands": cap}),
    )
    seats = list(result.seats)
    winner = labels[seats.index(result.winners[0])] if result.winners else None
    claimed = Counter(e.seat for e in result.events if isinstance(e, MissionClaimed))
    label = dict(zip(seats, labels, strict=True))
    out = [e for e in result.events if isinstance(e, PlayerEliminated) and e.player in label]
    return {
        "index": index,
        "order": labels,
        "winner": winner,
        "reason": result.reason,
        "claims": [claimed[seat] for seat in seats],  # missions claimed, by seat
        # who put whom out first ("strong>heuristic"), None when nobody was
        "first_out": f"{label.get(out[0].seat)}>{label[out[0].player]}" if out else None,
        "turns": result.turns,
        "seconds": time.perf_counter() - start,
        "strong_ms": [t * 1000 for b in bots if b.name == "strong" for t in b.times],
        "strong_turn_s": [t for b in bots if b.name == "strong" for t in b.turns.values()],
        "strong_turn_cpu_s": [t for b in bots if b.name == "strong" for t in b.cpu.values()],
        "strong_setup_s": [b.setup for b in bots if b.name == "strong"],
    }


def summarise(
    results: list[dict[str, Any]], names: Sequence[str], args: argparse.Namespace
) -> dict[str, Any]:
    games = len(results)
    bots = {}
    for name in names:
        wins = sum(1 for r in results if r["winner"] == name)
        seats = sum(r["order"].count(name) for r in results)
        low, high = wilson(wins, games)
        bots[name] = {
            "wins": wins,
            "win_rate": round(wins / games, 4) if games else 0.0,
            "ci95": [round(low, 4), round(high, 4)],
            "seats_per_game": seats / games if games else 0,
            # how its wins came (conquest, missions, the score ...)
            "wins_by": dict(Counter(r["reason"] for r in results if r["winner"] == name)),
        }
        claims = [
            c
            for r in results
            for label, c in zip(r["order"], r["claims"], strict=True)
            if label == name
        ]
        if any(claims):  # the mission game: missions claimed per seat and game
            bots[name]["missions_claimed_per_seat"] = round(statistics.fmean(claims), 3)
    times = [t for r in results for t in r["strong_ms"]]
    first_out: dict[str, dict[str, Any]] = {}
    for r in results:
        entry = first_out.setdefault(str(r["first_out"]), {"games": 0, "wins": Counter()})
        entry["games"] += 1
        entry["wins"][str(r["winner"])] += 1
    searched = [t for t in times if t > SEARCHED_MS]
    report: dict[str, Any] = {
        "games": games,
        "players": len(results[0]["order"]) if results else 0,
        "mode": args.mode,
        "rules": args.rules,
        "seed": args.seed,
        "strong_config": {
            "iterations": args.budget,
            "candidates": args.candidates,
            "confidence": args.confidence,
            "time_budget": args.time_budget,
            "turn_ms": args.turn_ms,
            "turn_rollouts": args.turn_rollouts,
            "horizon": args.horizon,
            "rounds": args.rounds,
            "power": args.power,
            "versus": args.versus,
            "turn_share": args.turn_share,
            "place_share": args.place_share,
            "place_candidates": args.place_candidates,
            "place_iterations": args.place_iterations,
            "searched": args.searched or ",".join(sorted(SearchConfig().searched)),
            "claim_candidates": args.claim_candidates,
            "claim_iterations": args.claim_iterations,
            "setup_rounds": args.setup_rounds,
            "min_search": args.min_search,
            "clear_win": args.clear_win,
            "hunt": args.hunt,
            "race": args.race,
            "clock": args.clock,
            "mission_weight": args.mission_weight,
        },
        "bots": bots,
        # The first elimination of each game (eliminator>eliminated) and who then won:
        # in 3-player games a heuristic putting the other out first mostly wins.
        "first_out": {
            k: {"games": v["games"], "wins": dict(v["wins"])} for k, v in first_out.items()
        },
        "unfinished": sum(1 for r in results if r["winner"] is None),
        "mean_turns": round(statistics.fmean(r["turns"] for r in results), 2),
        "max_turns": max(r["turns"] for r in results),
        "seconds_per_game": round(statistics.fmean(r["seconds"] for r in results), 3),
    }
    if times:
        report["strong_decision_ms"] = {
            "all": _spread(times),
            "searched": _spread(searched) if searched else None,
            "decisions": len(times),
        }
        for key in ("strong_turn_s", "strong_turn_cpu_s"):
            turns = sorted(t for r in results for t in r[key])
            report[key] = {
                "p50": round(turns[len(turns) // 2], 3),
                "p99": round(turns[int(0.99 * (len(turns) - 1))], 3),
                "mean": round(statistics.fmean(turns), 3),
                "max": round(turns[-1], 3),
                "turns": len(turns),
            }
        setups = sorted(t for r in results for t in r["strong_setup_s"])
        report["strong_setup_s"] = {  # a seat's thought over the whole setup, per game
            "p50": round(setups[len(setups) // 2], 3),
            "max": round(setups[-1], 3),
        }
    return report


def _spread(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "mean": round(statistics.fmean(ordered), 2),
        "median": round(ordered[len(ordered) // 2], 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "max": round(ordered[-1], 2),
    }


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--bots", default="random,heuristic,strong", help="one seat each")
    parser.add_argument("--pair", help="two bots head-to-head under the two-player rules")
    parser.add_argument(
        "--teams", help="the team game: two sides, each a bot or two joined by + (a+b,c)"
    )
    parser.add_argument("--mode", help="the game mode of --bots games (default classic)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        help="a rule option over the mode's, as in docs/rules.md (--rule setup=deal)",
    )
    parser.add_argument(
        "--budget", type=int, default=SearchConfig().iterations, help="rollouts per option"
    )
    parser.add_argument("--candidates", type=int, default=SearchConfig().candidates)
    parser.add_argument("--confidence", type=float, default=SearchConfig().confidence)
    parser.add_argument("--time-budget", type=float, default=None, help="seconds per decision")
    parser.add_argument("--turn-ms", type=int, default=None, help="ms per own turn (time)")
    parser.add_argument(
        "--turn-rollouts", type=int, default=None, help="rollouts per own turn (reproducible)"
    )
    parser.add_argument("--horizon", type=int, default=None, help="rivals' turns a rollout plays")
    parser.add_argument(
        "--rounds", type=int, default=SearchConfig().rounds, help="own turns rolled past the next"
    )
    parser.add_argument(
        "--power", type=float, default=SearchConfig().power, help="strengths' power in the score"
    )
    parser.add_argument(
        "--versus", choices=("all", "leader"), default="all", help="the score's rivals"
    )
    parser.add_argument("--turn-share", type=float, default=SearchConfig().turn_share)
    parser.add_argument("--place-share", type=float, default=SearchConfig().place_share)
    parser.add_argument("--place-candidates", type=int, default=SearchConfig().place_candidates)
    parser.add_argument("--place-iterations", type=int, default=SearchConfig().place_iterations)
    parser.add_argument(
        "--searched",
        default=None,
        help="phases searched (default setup_claim,reinforce,attack,occupy)",
    )
    parser.add_argument("--min-search", type=int, default=SearchConfig().min_search)
    parser.add_argument("--claim-candidates", type=int, default=SearchConfig().claim_candidates)
    parser.add_argument("--claim-iterations", type=int, default=SearchConfig().claim_iterations)
    parser.add_argument(
        "--setup-rounds",
        type=int,
        default=SearchConfig().setup_rounds,
        help="own turns a rollout from the setup plays past the first",
    )
    parser.add_argument("--mission-weight", type=float, default=SearchConfig().weights.mission)
    parser.add_argument(
        "--hunt", type=int, default=SearchConfig().hunt, help="search attacks on rivals this small"
    )
    parser.add_argument(
        "--race", type=float, default=SearchConfig().race, help="score of a rollout's elimination"
    )
    parser.add_argument("--clear-win", type=float, default=SearchConfig().clear_win)
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="what the time budgets count"
    )
    parser.add_argument(
        "--stop-after",
        type=float,
        default=None,
        help="minutes: start no game after this, report the games played",
    )
    parser.add_argument(
        "--max-commands", type=int, default=None, help="end a game unfinished after this many"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", default="bench")
    parser.add_argument(
        "--domination",
        default=os.environ.get("RISK_DOM_ARENA"),
        help="the Domination arena's dom_arena.py (default: $RISK_DOM_ARENA)",
    )
    parser.add_argument(
        "--dom-lineup", action="append", default=None, help="a lineup for the arena (repeatable)"
    )
    parser.add_argument("--dom-games", type=int, default=20, help="games per arena lineup")
    parser.add_argument("--dom-seconds", type=float, default=None, help="per arena lineup")
    parser.add_argument("--domination-only", action="store_true", help="only the arena lineups")
    args = parser.parse_args(argv)
    for rule in args.rule:
        if "=" not in rule:
            parser.error(f"--rule takes KEY=VALUE: {rule!r}")
    args.rules = dict(_option(r) for r in args.rule)
    args.mode = "team" if args.teams else "two_player" if args.pair else args.mode or "classic"
    return args


def seatings(args: argparse.Namespace) -> tuple[list[str], list[tuple[tuple[str, ...], ...]]]:
    """The names win rates are given for, and the seatings games rotate through:
    (bots, labels) per seat. Team A sits in p1 and p3, team B in p2 and p4."""
    if not args.teams:
        names = [n.strip() for n in (args.pair or args.bots).split(",") if n.strip()]
        return names, [(order, order) for order in itertools.permutations(names)]
    sides = [s.strip() for s in args.teams.split(",") if s.strip()]
    if len(sides) != 2:
        raise SystemExit("--teams takes two sides, e.g. strong+heuristic,heuristic")
    pairs = {side: (side.split("+") * 2)[:2] for side in sides}
    rotations = []
    for first, second in (sides, sides[::-1]):
        for swap in (False, True):
            a, c = pairs[first][::-1] if swap else pairs[first]
            b, d = pairs[second][::-1] if swap else pairs[second]
            rotations.append(((a, b, c, d), (first, second, first, second)))
    return sides, rotations


# The lineups of docs/bots.md's table: each of ours alone against three of
# Domination's hard AI, and its hard AI alone against three of our hard level.
DOM_LINEUPS = ("heuristic,DomHard*3", "medium,DomHard*3", "hard,DomHard*3", "DomHard,hard*3")


def domination(args: argparse.Namespace) -> dict[str, Any]:
    """The arena's lineups, each lone seat kind's wins with its interval; or why
    they were skipped (no arena given, or not found, or it failed)."""
    path = args.domination
    if not path:
        return {"skipped": "no arena: give --domination PATH or set RISK_DOM_ARENA"}
    if not os.path.isfile(path):
        return {"skipped": f"no arena at {path}"}
    lineups = args.dom_lineup or list(DOM_LINEUPS)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "arena.json")
        command = [sys.executable, path, "--games", str(args.dom_games), "--out", out, "--quiet"]
        if args.dom_seconds is not None:
            command += ["--seconds", str(args.dom_seconds)]
        for lineup in lineups:
            command += ["--lineup", lineup]
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0 or not os.path.exists(out):
            return {"skipped": f"the arena failed: {done.stderr.strip()[-500:]}"}
        with open(out, encoding="utf-8") as handle:
            document = json.load(handle)
    return {"command": " ".join(command[1:]), "rows": [_dom_row(p) for p in document["pairings"]]}


def _dom_row(pairing: dict[str, Any]) -> dict[str, Any]:
    """One lineup: the kind that sits alone, its wins and their interval."""
    lineup: list[str] = pairing["lineup"]
    lone = min(pairing["wins"], key=lambda kind: (lineup.count(kind), kind))
    wins = pairing["wins"][lone]
    low, high = wilson(wins["wins"], pairing["games"])
    return {
        "lineup": lineup,
        "games": pairing["games"],
        "lone": lone,
        "wins": wins["wins"],
        "rate": wins["rate"],
        "wilson95": [round(low, 4), round(high, 4)],
        "equal_share": wins["equal_strength_rate"],
        "seconds_per_game": pairing["seconds_per_game"],
        "refusals": pairing["refusals"]["total"],
    }


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    if args.domination_only:
        print(json.dumps({"domination": domination(args)}, indent=2))
        return
    names, rotations = seatings(args)
    config = SearchConfig(
        iterations=args.budget,
        candidates=args.candidates,
        confidence=args.confidence,
        time_budget=args.time_budget,
        turn_time=None if args.turn_ms is None else args.turn_ms / 1000,
        turn_rollouts=args.turn_rollouts,
        horizon=args.horizon,
        rounds=args.rounds,
        power=args.power,
        versus=args.versus,
        turn_share=args.turn_share,
        place_share=args.place_share,
        place_candidates=args.place_candidates,
        place_iterations=args.place_iterations,
        searched=SearchConfig().searched
        if args.searched is None
        else frozenset(p.strip() for p in args.searched.split(",") if p.strip()),
        min_search=args.min_search,
        claim_candidates=args.claim_candidates,
        claim_iterations=args.claim_iterations,
        setup_rounds=args.setup_rounds,
        clear_win=args.clear_win,
        hunt=args.hunt,
        race=args.race,
        clock=args.clock,
        weights=replace(SearchConfig().weights, mission=args.mission_weight),
    )
    deadline = None if args.stop_after is None else time.time() + 60 * args.stop_after
    jobs: list[Job] = [
        (
            i,
            *rotations[i % len(rotations)],
            args.seed,
            config,
            args.mode,
            args.rules,
            deadline,
            args.max_commands,
        )
        for i in range(args.games)
    ]
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    start = time.perf_counter()
    # A pool that fails loudly if a worker dies (multiprocessing.Pool would
    # wait forever for the lost game).
    with ProcessPoolExecutor(args.workers) as pool:
        for future in as_completed([pool.submit(play, job) for job in jobs]):
            result = future.result()
            if result is None:
                continue  # past --stop-after: not played
            results.append(result)
            wins = {n: sum(1 for r in results if r["winner"] == n) for n in names}
            elapsed = time.perf_counter() - start
            print(f"{len(results)}/{args.games} {elapsed:.0f}s {wins}", file=sys.stderr, flush=True)
    if not results:
        raise SystemExit("no game finished before --stop-after")
    results.sort(key=lambda r: r["index"])
    report = summarise(results, names, args)
    report["wall_seconds"] = round(time.perf_counter() - start, 1)
    report["games_asked"] = args.games  # more than "games" when --stop-after cut the run
    # The machine's load: a time budget buys fewer rollouts on a busy machine.
    report["load_average"] = {"start": load_before, "end": os.getloadavg()}
    report["domination"] = domination(args)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
