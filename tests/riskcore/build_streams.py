"""Plays a fixed set of games and prints, as JSON, a digest of each game's event
stream (its events' canonical bytes, riskcore.protocol.codec) and which build of
riskcore played them. Run as a script by tests/riskcore/test_compiled_build.py
under the other build's interpreter, so that it imports that build's riskcore
(run as a file, the repository is not put first on the module path)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from riskcore.bots.base import Bot
from riskcore.bots.heuristic import HeuristicBot
from riskcore.bots.random_bot import RandomBot
from riskcore.protocol import codec
from riskcore.simulate import play_game

# (mode, bots, seed): every built-in mode, with random and heuristic bots.
GAMES: tuple[tuple[str, str, int], ...] = (
    ("classic", "rrrh", 1),
    ("classic", "hhh", 2),
    ("two_player", "rh", 3),
    ("team", "rhrh", 4),
    ("secret_missions", "rrh", 5),
    ("mission_game", "hrr", 6),
    ("middle_earth", "rrh", 7),
    ("lotr", "rh", 8),
    ("lotr", "hrh", 9),
    ("two_player_active", "hr", 10),
)


def build() -> str:
    """``compiled`` when the codec is a mypyc-built extension module, else ``pure``."""
    return "pure" if (codec.__file__ or "").endswith(".py") else "compiled"


def streams() -> list[dict[str, Any]]:
    played = []
    for mode, kinds, seed in GAMES:
        bots: list[Bot] = [HeuristicBot() if k == "h" else RandomBot() for k in kinds]
        result = play_game(bots, seed=f"build {seed}".encode(), mode=mode, game_id=f"g{seed}")
        stream = b"\n".join(codec.encode_event(event) for event in result.events)
        played.append(
            {
                "game": f"{mode} {kinds} {seed}",
                "events": len(result.events),
                "sha256": hashlib.sha256(stream).hexdigest(),
            }
        )
    return played


if __name__ == "__main__":
    print(json.dumps({"build": build(), "streams": streams()}))
