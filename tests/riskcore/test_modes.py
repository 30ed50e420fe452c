"""The game-mode seam (docs/engine.md, "Game modes"): modes by name, hooks
with classic defaults, and no mode branch outside ``riskcore/modes``.

The test-only mode ``tests/riskcore/capitals.py`` is the worked example of
``docs/engine.md``: a phase, a command, two events, a view and an outcome of its
own, added without touching an engine module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tests.riskcore.capitals as capitals_mode
from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.registry import mode_named, mode_names
from riskcore.engine.snapshot import decode_state, encode_state
from riskcore.model.state import REINFORCE
from riskcore.protocol import commands as cmd
from riskcore.protocol.codec import decode_event, encode_event
from riskcore.simulate import play_game, record_of
from riskcore.views.view import view
from tests.riskcore.helpers import new, set_up, setup_policy

RISKCORE = Path(__file__).resolve().parents[2] / "riskcore"
# Where a mode, a seat kind or a mode's name may be spelled out: the modes
# themselves, and the upcasters of records from before modes existed.
ALLOWED = {
    RISKCORE / "modes",
    RISKCORE / "protocol" / "upcasters.py",
    RISKCORE / "protocol" / "legacy.py",
}
# The one place a seat's kind is read: the model's seat queries (``Seat.plays``,
# ``State.is_active``, ...).
SEAT_KINDS = RISKCORE / "model" / "state.py"
BRANCHES = re.compile(
    r"variant|\"neutral\"|\"two_player\"|mode(\.name)?\s*[=!]=\s*\"|\.kind\s*[=!]=\s*\""
)


def test_the_built_in_modes_are_registered_by_name() -> None:
    assert {"classic", "two_player"} <= set(mode_names())
    assert mode_named("two_player").players == (2, 2)
    assert new(3).state.mode is mode_named("classic")


def test_no_mode_branch_outside_the_modes() -> None:
    """Rule modules ask the mode's hooks; none tests which mode, variant or seat kind it is."""
    assert BRANCHES.search('if s.rules.variant == "two_player":')
    assert BRANCHES.search('if state.mode.name == "team":')
    assert BRANCHES.search('if s.seats[p].kind == "neutral":')
    assert BRANCHES.search('players = [s for s in seats if s.kind == "player"]')
    offenders = []
    for path in RISKCORE.rglob("*.py"):
        if any(path == a or a in path.parents for a in ALLOWED):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if path == SEAT_KINDS and '.kind == "player"' in code:
                continue
            if BRANCHES.search(code) and not _in_docstring(path, number):
                offenders.append(f"{path.relative_to(RISKCORE)}:{number}: {line.strip()}")
    assert offenders == []


def _in_docstring(path: Path, number: int) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.lineno <= number <= (node.end_lineno or node.lineno)
        ):
            return True
    return False


def test_the_capitals_mode_is_small_and_lives_in_the_tests() -> None:
    source = Path(capitals_mode.__file__)
    assert RISKCORE not in source.parents
    assert len(source.read_text().splitlines()) < 150


def test_capitals_are_chosen_after_setup_in_turn_order() -> None:
    game = new(3, mode="capitals")
    while game.state.phase in ("setup_claim", "setup_place"):
        game.do(setup_policy(game.state, game.current))
    assert game.state.phase == capitals_mode.CHOOSE_CAPITAL
    first = game.current
    mine = game.state.territories_of(first)
    theirs = next(t for t in game.state.board.territory_names if t not in mine)
    game.reject(capitals_mode.ChooseCapital(seat=first, territory=theirs), "not_your_territory")
    game.reject(cmd.EndPhase(seat=first), "wrong_phase")
    for _ in range(3):
        seat = game.current
        game.do(
            capitals_mode.ChooseCapital(seat=seat, territory=game.state.territories_of(seat)[0])
        )
    assert game.state.phase == REINFORCE
    assert set(capitals_mode.capitals(game.state)) == {"p1", "p2", "p3"}
    assert view(game.state, None)["mode_state"] == {"capitals": capitals_mode.capitals(game.state)}


def test_another_mode_refuses_the_command_by_rule() -> None:
    game = set_up(3)
    command = capitals_mode.ChooseCapital(seat=game.current, territory="peru")
    game.reject(command, "not_in_this_game")


def test_each_capital_held_is_one_more_army() -> None:
    game = new(3, mode="capitals")
    state = game.state
    state.mode_data["capitals"] = {"p1": "peru", "p2": "brazil"}
    for territory in state.board.territory_names:
        state.gain(territory, "p1" if territory in ("peru", "brazil") else "p2", 1)
    classic = mode_named("classic").reinforcements(state, "p1")
    assert state.mode.reinforcements(state, "p1") == classic + 2


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_bots_play_capitals_to_the_end_and_the_record_verifies(bot: str) -> None:
    seed = bot.encode() * 4
    result = play_game([get_bot(bot) for _ in range(4)], seed=seed, mode="capitals")
    assert result.winner is not None and result.reason in ("capitals", "conquest")
    assert verify_text(record_of(result, seed)).ok
    state = fold(result.events)
    middle = fold(result.events[: len(result.events) // 2])
    assert (
        fold(result.events[len(result.events) // 2 :], decode_state(encode_state(middle))) == state
    )
    chosen = [e for e in result.events if isinstance(e, capitals_mode.CapitalChosen)]
    assert len(chosen) == 4
    assert all(decode_event(encode_event(e)) == e for e in chosen)
