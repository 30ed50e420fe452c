"""`risk analyse RECORD` (issue 37): the analysis offline, from a record file."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from riskcli.main import main
from riskcore.bots import get_bot
from riskcore.simulate import play_game, record_of
from tests.riskcore.fork_games import fork_record, parent

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


def test_verify_checks_a_fork_alone_and_with_its_parent(tmp_path: Path) -> None:
    """`risk verify FORK` replays the fork from its own record; `--parent` also
    checks the position against the parent's record (a stranger's fails)."""
    fork = tmp_path / "fork.jsonl"
    fork.write_text(fork_record())
    parent_record = tmp_path / "parent.jsonl"
    parent_record.write_text(parent()[1])
    stranger = write_record(tmp_path / "stranger.jsonl")  # another game of the same id
    alone = CliRunner().invoke(main, ["verify", str(fork)])
    assert alone.exit_code == 0 and "VERIFIED" in alone.stdout
    both = CliRunner().invoke(main, ["verify", str(fork), "--parent", str(parent_record), "--json"])
    assert both.exit_code == 0 and json.loads(both.stdout)["checks"]["parent"] == "passed"
    wrong = CliRunner().invoke(main, ["verify", str(fork), "--parent", str(stranger), "--json"])
    assert wrong.exit_code == 1
    assert json.loads(wrong.stdout)["divergence"]["check"] == "parent"
