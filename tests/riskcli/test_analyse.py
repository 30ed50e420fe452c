"""`risk analyse RECORD` (issue 37): the analysis offline, from a record file."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from riskcli.main import main
from riskcore.bots import get_bot
from riskcore.simulate import play_game, record_of

SEED = b"an1"  # a 20-turn game of three, won by p1


def write_record(path: Path, cut: int = 0) -> Path:
    bots = [get_bot("heuristic"), get_bot("random"), get_bot("heuristic")]
    text = record_of(play_game(bots, seed=SEED, game_id="t"), SEED)
    lines = text.splitlines()
    path.write_text("\n".join(lines[: len(lines) - cut]) + "\n")
    return path


def test_analyse_prints_json_the_same_each_run_and_draws_a_chart(tmp_path: Path) -> None:
    record = write_record(tmp_path / "game.jsonl")
    chart = tmp_path / "chances.png"
    args = ["analyse", str(record), "--depth", "1", "--seed", "x", "--json"]
    first = CliRunner().invoke(main, [*args, "--chart", str(chart)])
    second = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["depth"] == 1 and report["points"][-1]["chances"]["p1"] == 1.0
    assert report == json.loads(second.stdout)
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_analyse_prints_a_line_per_player(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["analyse", str(write_record(tmp_path / "g.jsonl")), "--depth", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "points to dice" in result.stdout and "turning points:" in result.stdout


def test_analyse_refuses_a_game_that_has_not_ended(tmp_path: Path) -> None:
    record = write_record(tmp_path / "cut.jsonl", cut=40)
    result = CliRunner().invoke(main, ["analyse", str(record)])
    assert result.exit_code == 1
    assert "only a finished game is analysed" in result.output
