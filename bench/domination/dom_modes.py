"""Domination's AIs in our other games: secret missions and the two-player game.

The shared Domination arena (docs/bots.md, "Against Domination's AI"; not
part of the project) plays the classic four-player game. This module adds
our game modes to it, importing its game loop (``Match``, the seats, the map
check, the JSON) from its ``dom_arena.py`` and running a Java bridge of our
own (``java/arena/ModesBridge.java``: the shared bridge plus one operation,
``mission``), built by ``build.sh`` beside this file::

    bench/domination/build.sh /tmp/arena-dom/domination /tmp/arena-dom/build-dom
    export RISK_DOM_ARENA=/path/to/dom_arena.py
    nice -n 10 .venv/bin/python bench/domination/dom_modes.py --mode secret_missions \\
        --lineup 'hard,DomHard*3' --games 200 --seed 1 --out /tmp/sm-hard.json

Our rules decide every game (``new_game`` with the mode's own rules);
Domination's AI is only asked for its decisions.

``secret_missions``: each Domination seat is told its own mission card (the
rest stay secret, as in Domination), and the Java game is switched to
Domination's secret-mission mode, so its AI plays ``AIMission`` for that
mission (``dom_mission`` maps our card to Domination's: a destroy card names
the Java player of that seat and falls back to 24 territories, as our
``mission_target_gone=occupy_24`` does).

``two_player``: the two players are Java players 0 and 1 in turn order, the
two neutral seats Java players 2 and 3, "human" players that are never asked
anything (passive). A neutral defends with the most dice allowed (our rules'
default), so nobody is asked for its dice. In the setup, a turn
places three of the player's own armies and one on each neutral: the AI
places its own; a neutral's army goes to that neutral's territory with the
most of the opponent's territories around it (ties by the seat's generator).
``two_player_active`` is not played (bribes and allies have no Domination
counterpart).

``classic`` runs the same loop on our classic rules (a check that this
module agrees with the shared arena).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from riskcore import fold, legal_actions, new_game
from riskcore.boards.board import load_board
from riskcore.bots import bot_names
from riskcore.bots.levels import LEVELS
from riskcore.model.state import SETUP_PHASES, SETUP_PLACE
from riskcore.modes import mode_named
from riskcore.modes.missions import card_named, load_deck

# bench/ is no package: the arena loader shared with win_data.py and arena_kinds.py
# is imported from its folder.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from win_data import load_arena

HERE = Path(__file__).resolve().parent
# The shared arena beside the project's checkout (``RISK_DOM_ARENA`` or
# ``--domination`` name another place).
SHARED = str(HERE.parents[2] / "shared" / "arena" / "domination" / "dom_arena.py")
MODES = ("secret_missions", "two_player", "classic")
MISSION_DECK = "secret-missions"
# Domination's destroy cards: when the target is the holder or was put out by
# another player, hold 24 territories (one army each), as our occupy_24 rule.
DESTROY_FALLBACK = (24, 1)


# The mission table -------------------------------------------------------------


def dom_mission(
    goal: Mapping[str, Any], continent: Mapping[str, int], java_player: Mapping[str, int]
) -> tuple[int, int, int, str, str, str]:
    """One of our mission goals as Domination's mission: (player to destroy or -1,
    territories, armies on each, three continents as their 1-based place in
    Domination's map, ``0`` none, ``*`` any). ``continent`` maps our continent
    ids to those places, ``java_player`` our seats to Java players."""
    unknown = set(goal) - {"continents", "more_continents", "territories", "min_armies", "destroy"}
    if unknown:
        raise ValueError(f"no Domination mission for a goal with {sorted(unknown)}")
    target = goal.get("destroy")
    if target is not None:
        return (java_player[target], *DESTROY_FALLBACK, "0", "0", "0")
    named = [str(continent[c]) for c in goal.get("continents", ())]
    more = goal.get("more_continents", 0)
    wanted = [*named, *["*"] * more]
    if len(wanted) > 3:
        raise ValueError("Domination's missions name at most three continents")
    wanted += ["0"] * (3 - len(wanted))
    countries = goal.get("territories", 0)
    armies = goal.get("min_armies", 1) if countries else 0
    return (-1, countries, armies, wanted[0], wanted[1], wanted[2])


def mission_table(continent: Mapping[str, int], seats: Sequence[str]) -> dict[str, list[Any]]:
    """Every card of our deck as Domination's mission (seat i as Java player i)."""
    java = {seat: i for i, seat in enumerate(seats)}
    return {
        card.id: list(dom_mission(card.goal, continent, java))
        for card in load_deck(MISSION_DECK)
        if card.goal.get("destroy", seats[0]) in java
    }


# The game ----------------------------------------------------------------------


def classes(arena: ModuleType) -> tuple[type, type, type]:
    """The arena's Bridge, Match and DominationSeat, made to know our modes."""

    class ModesBridge(arena.Bridge):  # type: ignore[name-defined,misc]
        def __init__(self, build: str, maps: str, map_file: str = "luca.map") -> None:
            self.proc = subprocess.Popen(
                ["java", "-Xss8m", "-cp", build, "arena.ModesBridge", maps, map_file, "risk.cards"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
            self.calls = 0
            self.seconds = 0.0

    class ModeSeat(arena.DominationSeat):  # type: ignore[name-defined,misc]
        """The arena's Domination seat, the neutrals shown as passive Java players."""

        checked = False

        def ask(
            self,
            dstate: int,
            *,
            att: str | None = None,
            dfd: str | None = None,
            rounds: int = 0,
            must: int = 0,
            tradecap: bool = False,
        ) -> list[str] | None:
            m = self.match
            s = m.state
            own, arm = [], []
            for color in m.colors:
                t = m.to_rc[color]
                holder = s.owner.get(t)
                own.append(str(m.index[holder]) if holder is not None else "-1")
                arm.append(str(s.troops(t)))
            hand = []
            for cid in s.hand(self.seat):
                card = s.board.cards[cid]
                if card.symbol == "wild" or card.territory is None:
                    hand.append("W")
                else:
                    hand.append(f"{m.to_dom[card.territory]}:{arena.SYMBOLS[card.symbol]}")
            players = m.java_players
            nc = ",".join(str(len(s.hand(p))) for p in players)
            turns = ",".join(str(m.turns_started[p]) for p in players)
            last_value = s.rules.trade_value(s.sets_traded - 1, ()) if s.sets_traded > 0 else 0
            deck = len(s.deck) + len(s.discard)
            line = (
                f"decide {m.game_id} seat={self.idx} state={dstate} "
                f"setup={0 if s.phase in SETUP_PHASES else 1} "
                f"own={','.join(own)} arm={','.join(arm)} "
                f"res={s.reserve.get(self.seat, 0)} hand={','.join(hand)} nc={nc} deck={deck} "
                f"cs={last_value} cap={int(bool(s.conquered))} tc={int(tradecap)} "
                f"att={m.to_dom[att] if att else 0} def={m.to_dom[dfd] if dfd else 0} br={rounds} "
                f"mm={must} turns={turns}"
            )
            self.count(f"asked.{dstate}")
            reply = m.bridge.ask(line)
            if not self.checked:  # which of Domination's AIs answered (once a game)
                self.checked = True
                playing = m.bridge.ask(f"ai {m.game_id} {self.idx}")
                self.count(f"ai.{playing[3:] if playing.startswith('ai ') else 'unknown'}")
            if reply.startswith("cmd "):
                return reply[4:].split()
            m.stats.add(self.kind, f"ai_error.state{dstate}")
            if len(m.stats.errors) < 10 and reply not in m.stats.errors:
                m.stats.errors.append(reply)
            return None

        def setup(self) -> None:
            """The two-player setup: the AI places its own armies, the adapter a
            neutral's (next to the most of the opponent's territories)."""
            s = self.match.state
            if s.phase != SETUP_PLACE or not s.non_players():
                return super().setup()
            places = legal_actions(s, self.seat).of_type("place_armies")
            if any(s.owner.get(a["command"]["territory"]) == self.seat for a in places):
                return super().setup()
            if not places:
                return self.match.fall_back(self.seat)
            rival = next(p for p in s.order if p != self.seat)

            def near(territory: str) -> int:
                return sum(1 for n in s.board.neighbours[territory] if s.owner.get(n) == rival)

            ranked = sorted(a["command"]["territory"] for a in places)
            best = max(near(t) for t in ranked)
            choice = self.rng.choice([t for t in ranked if near(t) == best])
            self.count("neutral_placed")
            self.body({"type": "place_armies", "territory": choice, "count": 1})

    class ModeMatch(arena.Match):  # type: ignore[name-defined,misc]
        """The arena's game on one of our modes (its ``__init__``, with the mode,
        the neutral seats as Java players and the Domination seats' missions)."""

        def __init__(
            self,
            kinds: list[str],
            seed: bytes,
            game_id: str,
            bridge: Any,
            to_rc: dict[int, str],
            stats: Any,
            patch: list[tuple[int, int]],
            *,
            mode: str,
            continent: Mapping[str, int],
            tell: bool = True,
        ) -> None:
            self.seed = seed
            self.game_id = game_id
            self.stats = stats
            self.bridge = bridge
            self.mode = mode
            game_mode = mode_named(mode)
            rules = game_mode.rule_set()
            self.state = fold(
                new_game(game_id=game_id, players=kinds, seed=seed, mode=mode, rules=rules)
            )
            self.kinds = {f"p{i}": kind for i, kind in enumerate(kinds, 1)}
            self.commands = 0
            self.to_rc = to_rc
            self.colors = sorted(to_rc)
            self.to_dom = {rc: color for color, rc in to_rc.items()}
            self.java_players = [*self.state.order, *self.state.non_players()]
            self.index = {seat: i for i, seat in enumerate(self.java_players)}
            self.turns_started: Counter[str] = Counter()
            self.last_turn = self.state.turn
            self.seconds: Counter[str] = Counter()
            java_kinds = [
                arena.DOM_KINDS.get(self.kinds.get(s, ""), "human") for s in self.java_players
            ]
            java_seed = int.from_bytes(hashlib.sha256(b"domination|" + seed).digest()[:6], "big")
            if bridge.ask(f"new {game_id} {java_seed} {' '.join(java_kinds)}") != "ok":
                raise RuntimeError("bridge: new")
            for a, b in patch:
                if bridge.ask(f"border {game_id} {a} {b}") != "ok":
                    raise RuntimeError("bridge: border")
            self.controllers: dict[str, Any] = {
                seat: ModeSeat(self, seat, kind)
                if kind in arena.DOM_KINDS
                else arena.BotSeat(self, seat, kind)
                for seat, kind in self.kinds.items()
            }
            self.told: dict[str, str] = {}
            if tell:
                self.tell_missions(continent)

        def tell_missions(self, continent: Mapping[str, int]) -> None:
            """Each Domination seat's mission, as Domination's, to its AI."""
            if not self.state.missions:
                return
            deck = load_deck(MISSION_DECK)
            for seat, held in self.state.missions.items():
                if seat not in self.kinds or self.kinds[seat] not in arena.DOM_KINDS:
                    continue
                card = card_named(deck, held[0].card)
                mission = dom_mission(card.goal, continent, self.index)
                line = " ".join(str(x) for x in (self.index[seat], *mission))
                if self.bridge.ask(f"mission {self.game_id} {line}") != "ok":
                    raise RuntimeError("bridge: mission")
                self.told[seat] = card.id

        def play(self, max_turns: int) -> dict[str, Any]:
            result: dict[str, Any] = super().play(max_turns)
            winner = self.state.winner
            if self.state.missions and winner:
                card = self.state.missions[winner][0].card
                result["winner_mission"] = card
                result["by_mission"] = bool(mode_named(self.mode).mission_done(self.state, winner))
            return result

    return ModesBridge, ModeMatch, ModeSeat


# Runs ---------------------------------------------------------------------------


def parse_lineup(text: str, known: set[str], mode: str) -> list[str]:
    kinds: list[str] = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\w+)\s*(?:\*\s*(\d+))?\s*", part)
        if not match:
            raise SystemExit(f"bad lineup part {part!r}")
        name, times = match.group(1), int(match.group(2) or 1)
        if name not in known:
            raise SystemExit(f"unknown seat kind {name!r}; one of {sorted(known)}")
        kinds += [name] * times
    low, high = mode_named(mode).players
    if not low <= len(kinds) <= high:
        raise SystemExit(f"{mode} games have {low}-{high} players, not {len(kinds)}")
    return kinds


def check_map(
    arena: ModuleType, bridge: Any
) -> tuple[dict[int, str], list[tuple[int, int]], dict[str, int]]:
    """The shared arena's map check (it must agree), the borders to add, and our
    continent ids -> their 1-based place in Domination's map."""
    if bridge.ask("new mapcheck 1 human human human human") != "ok":
        raise SystemExit("the bridge could not start a game")
    dom = json.loads(bridge.ask("map mapcheck")[4:])
    bridge.ask("end mapcheck")
    board = load_board("classic")
    to_rc, report = arena.check_map(board, dom)
    if (
        report["problems"]
        or report["continent_differences"]
        or report["borders_only_in_domination"]
    ):
        raise SystemExit(json.dumps({"map_check": report}, indent=1))
    to_dom = {rc: color for color, rc in to_rc.items()}
    patch = [(to_dom[a], to_dom[b]) for a, b in report["borders_only_in_riskcore"]]
    continent = {
        arena.ALIASES.get(co["id"], arena.normalise(co["id"])): i
        for i, co in enumerate(dom["continents"], 1)
    }
    if set(continent) != {g.id for g in board.groups}:
        raise SystemExit(f"continents differ: {sorted(continent)}")
    return to_rc, patch, continent


def outcomes(results: list[dict[str, Any]]) -> dict[str, Any]:
    """How the games were won: by a mission (which card, by which kind) or otherwise."""
    by_mission = Counter(r["winner_kind"] for r in results if r.get("by_mission"))
    cards = Counter(
        f"{r['winner_kind']}:{r['winner_mission']}" for r in results if r.get("by_mission")
    )
    other = Counter(
        r["winner_kind"] for r in results if r["winner_kind"] and not r.get("by_mission")
    )
    return {
        "by_mission": dict(by_mission),
        "otherwise": dict(other),
        "winning_cards": dict(sorted(cards.items())),
    }


def summary(
    arena: ModuleType,
    lineup: list[str],
    results: list[dict[str, Any]],
    stats: Any,
    started: float,
    args: argparse.Namespace,
    bridge: Any,
    calls0: int,
    secs0: float,
) -> dict[str, Any]:
    """The shared arena's summary of a lineup, with the mode and how its games were won."""
    rules = mode_named(args.mode).rule_set()
    seconds = time.perf_counter() - started
    done: dict[str, Any] = arena.summarise(lineup, results, stats, seconds, rules, args, bridge)
    done["bridge"] = {"calls": bridge.calls - calls0, "seconds": round(bridge.seconds - secs0, 1)}
    done["mode"] = args.mode
    done["outcomes"] = outcomes(results)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="secret_missions")
    parser.add_argument(
        "--lineup", action="append", default=[], help="seat kinds, e.g. hard,DomHard*3"
    )
    parser.add_argument("--games", type=int, default=20, help="games per lineup (at most)")
    parser.add_argument(
        "--seconds", type=float, default=None, help="per lineup: start no game after this"
    )
    parser.add_argument("--seed", type=int, default=1, help="base seed; game i uses seed (base, i)")
    parser.add_argument("--first-game", type=int, default=0, help="index of the first game")
    parser.add_argument("--max-turns", type=int, default=1000, help="player turns before a draw")
    parser.add_argument(
        "--domination",
        default=os.environ.get("RISK_DOM_ARENA", SHARED),
        help="the shared arena's dom_arena.py",
    )
    parser.add_argument("--build", default="/tmp/arena-dom/build-dom", help="classes from build.sh")
    parser.add_argument("--maps", default="/tmp/arena-dom/domination/game/Domination/maps")
    parser.add_argument("--map", default="luca.map")
    parser.add_argument("--out", default=None, help="the JSON (rewritten after every game)")
    parser.add_argument("--missions", action="store_true", help="print the mission table and stop")
    parser.add_argument(
        "--blind",
        action="store_true",
        help="a control: tell Domination's AIs no mission (they play for the world)",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    arena = load_arena(args.domination)
    bridge_class, match_class, _ = classes(arena)
    bridge = bridge_class(args.build, args.maps, args.map)
    try:
        to_rc, patch, continent = check_map(arena, bridge)
        if args.missions:
            print(
                json.dumps(
                    {
                        "continents": continent,
                        "missions": mission_table(continent, ["p1", "p2", "p3", "p4"]),
                    },
                    indent=1,
                )
            )
            return
        if not args.lineup:
            parser.error("give at least one --lineup")
        known = set(bot_names()) | set(LEVELS) | set(arena.DOM_KINDS)
        rules = mode_named(args.mode).rule_set()
        document: dict[str, Any] = {
            "tool": "bench/domination/dom_modes.py",
            "command": " ".join(sys.argv),
            "mode": args.mode,
            "missions_told": not args.blind,
            "rules": rules.to_dict(),
            "arena": args.domination,
            "pairings": [],
        }
        for text in args.lineup:
            lineup = parse_lineup(text, known, args.mode)
            stats = arena.Stats()
            results: list[dict[str, Any]] = []
            started = time.perf_counter()
            calls0, secs0 = bridge.calls, bridge.seconds

            for index in range(args.first_game, args.first_game + args.games):
                if args.seconds is not None and time.perf_counter() - started > args.seconds:
                    break
                seed = arena.game_seed(args.seed, index)
                kinds = list(lineup)
                random.Random(seed).shuffle(kinds)
                game_stats = arena.Stats()
                match = match_class(
                    kinds,
                    seed,
                    f"dom-{args.seed}-{index}",
                    bridge,
                    to_rc,
                    game_stats,
                    patch,
                    mode=args.mode,
                    continent=continent,
                    tell=not args.blind,
                )
                result = match.play(args.max_turns)
                stats.merge(game_stats)
                results.append(result)
                if not args.quiet:
                    how = f" by {result['winner_mission']}" if result.get("by_mission") else ""
                    print(
                        f"[{args.mode} {text}] game {index}: "
                        f"winner {result['winner_kind'] or 'draw (cap)'}{how} "
                        f"turns {result['turns']} {result['seconds']}s order {result['order']}",
                        file=sys.stderr,
                        flush=True,
                    )
                arena.write_json(
                    args.out,
                    {
                        **document,
                        "pairings": [
                            *document["pairings"],
                            summary(
                                arena, lineup, results, stats, started, args, bridge, calls0, secs0
                            ),
                        ],
                    },
                )
            document["pairings"].append(
                summary(arena, lineup, results, stats, started, args, bridge, calls0, secs0)
            )
            arena.write_json(args.out, document)
        print(json.dumps(document, indent=1))
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
