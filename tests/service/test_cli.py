"""The `risk` command line: engine and audit commands, through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from riskcore.bots import get_bot
from riskcore.simulate import play_game, record_of
from service.cli import main

SEED = b"c" * 32


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_odds_json_gives_exact_fractions() -> None:
    code, out = run("odds", "3", "2", "--json")
    assert code == 0
    assert json.loads(out)["win"]["fraction"] == "6610505/10077696"


def test_map_json_lists_the_classic_board() -> None:
    code, out = run("map", "classic", "--json")
    board = json.loads(out)
    assert code == 0
    assert len(board["territories"]) == 42 and len(board["borders"]) == 83


def test_simulate_reports_speed_and_winners() -> None:
    code, out = run("simulate", "--players", "3", "--games", "3", "--json")
    summary = json.loads(out)
    assert code == 0
    assert summary["games"] == 3 and sum(summary["wins"].values()) == 3
    assert summary["games_per_second"] > 0


def test_simulate_refuses_an_unknown_bot() -> None:
    code, out = run("simulate", "--bot", "nobody")
    assert code == 2 and "nobody" in out


def test_verify_and_replay_a_record(tmp_path: Path) -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="cli")
    record = tmp_path / "game.jsonl"
    record.write_text(record_of(result, SEED))
    code, out = run("verify", str(record), "--json")
    assert code == 0 and json.loads(out)["ok"] is True
    code, out = run("replay", str(record), "--to", "50")
    assert code == 0 and "at version 50" in out
    code, out = run("replay", str(record), "--summary")
    assert code == 0 and json.loads(out)["winner"] == result.winner


def test_verify_exits_1_and_names_the_divergence(tmp_path: Path) -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="cli")
    lines = record_of(result, SEED).splitlines()
    record = tmp_path / "cut.jsonl"
    record.write_text("\n".join(lines[:10] + lines[11:]))
    code, out = run("verify", str(record))
    assert code == 1
    assert "FAILED at version 10" in out
