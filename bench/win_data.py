"""Games against Domination's AI as rows for the win model's fit (scripts/fit_win_model.py).

Plays whole games through the Domination arena (docs/bots.md, "Against
Domination's AI"; the arena is not part of the project, give its
``dom_arena.py`` with ``--domination`` or ``RISK_DOM_ARENA``) and writes one
JSON line a finished game: its winner and, at every turn start, each
player's ``win_model.features`` and strength share::

    RISK_DOM_ARENA=/path/to/dom_arena.py nice -n 10 .venv/bin/python bench/win_data.py \\
        --lineup 'heuristic,DomHard*3' --games 2500 --seed 7 --out /tmp/arena-games.jsonl
    .venv/bin/python scripts/fit_win_model.py /tmp/arena-games.jsonl

It drives the arena's own game loop (``Match``, ``Bridge``, ``check_map``),
so it follows the arena's rules for every seat; a refused or unmapped
command is handled there.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from riskcore import RuleSet
from riskcore.bots.evaluate import evaluate
from riskcore.bots.win_model import features


def load_arena(path: str) -> ModuleType:
    """The arena's module, imported from its file (its folder has no package)."""
    sys.path.insert(0, str(Path(path).parent))
    spec = importlib.util.spec_from_file_location("dom_arena", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the arena from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recording(arena: ModuleType) -> type:
    """The arena's ``Match`` with a row written at every turn start."""

    class Recorded(arena.Match):  # type: ignore[name-defined,misc]
        rows: list[dict[str, Any]]

        def play(self, max_turns: int) -> str | None:
            self.rows = []
            seen = -1
            while self.state.phase != arena.FINISHED:
                state = self.state
                if state.turn != seen and state.phase not in arena.SETUP_PHASES:
                    seen = state.turn
                    shares = {p: evaluate(state, p) for p in state.active_players()}
                    self.rows.append({"t": state.turn, "f": features(state), "share": shares})
                if state.turn > max_turns or self.commands > arena.MAX_COMMANDS:
                    break
                seat = arena.acting_seat(state)
                before = state.version
                self.controllers[seat].act()
                if self.state.version == before:
                    self.fall_back(seat)
            self.bridge.ask(f"end {self.game_id}")
            return self.state.winner

    return Recorded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domination", default=os.environ.get("RISK_DOM_ARENA"))
    parser.add_argument("--lineup", default="heuristic,DomHard*3")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first-game", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--build", default="/tmp/arena-dom/build")
    parser.add_argument("--maps", default="/tmp/arena-dom/domination/game/Domination/maps")
    parser.add_argument("--out", required=True, help="JSON lines, appended")
    args = parser.parse_args()
    if not args.domination:
        parser.error("no arena: give --domination PATH or set RISK_DOM_ARENA")
    arena = load_arena(args.domination)
    bridge = arena.Bridge(args.build, args.maps, "luca.map")
    try:
        bridge.ask("new mapcheck 1 human human human human")
        to_rc, report = arena.check_map(
            arena.load_board("classic"), json.loads(bridge.ask("map mapcheck")[4:])
        )
        bridge.ask("end mapcheck")
        to_dom = {rc: color for color, rc in to_rc.items()}
        patch = [(to_dom[a], to_dom[b]) for a, b in report["borders_only_in_riskcore"]]
        known = set(arena.bot_names()) | set(arena.LEVELS) | set(arena.DOM_KINDS)
        lineup = arena.parse_lineup(args.lineup, known)
        match_class = recording(arena)
        with Path(args.out).open("a") as out:
            for index in range(args.first_game, args.first_game + args.games):
                seed = arena.game_seed(args.seed, index)
                kinds = list(lineup)
                random.Random(seed).shuffle(kinds)
                game_id = f"win-{args.seed}-{index}"
                match = match_class(
                    kinds, seed, game_id, RuleSet(), bridge, to_rc, arena.Stats(), patch
                )
                winner = match.play(1000)
                if winner is not None:
                    line = {"game": index, "kinds": match.kinds, "w": winner, "rows": match.rows}
                    out.write(json.dumps(line) + "\n")
                    out.flush()
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
