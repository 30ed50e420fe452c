"""The `risk` command line through click's runner: engine and audit commands,
and the server commands' stand-ins in `risk --help`."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import click
from click.testing import CliRunner

from riskcli.audit import verify_offline
from riskcli.main import SERVER_COMMANDS, main
from riskcore.bots import get_bot
from riskcore.rules.odds import attack_outcome, to_json
from riskcore.simulate import play_game, record_of

SEED = b"c" * 32


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_odds_json_gives_exact_fractions() -> None:
    code, out = run("odds", "3", "2", "--json")
    assert code == 0
    assert json.loads(out)["win"]["fraction"] == "6610505/10077696"


def test_odds_take_the_lord_of_the_rings_modifiers() -> None:
    code, out = run("odds", "1", "2", "--defender-bonus", "2", "--one-die-vs-one", "--json")
    assert code == 0
    expected = attack_outcome(1, 2, defender_bonus=2, defender_one_die_vs_one=True)
    assert json.loads(out) == json.loads(json.dumps(to_json(expected)))


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
    # Commands as bench/workers.py compares them: every bot decision, so more than events' third
    assert summary["commands_per_second"] > 0
    assert summary["mean_commands_per_game"] * 3 > summary["mean_events_per_game"]


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


def test_verify_pauses_the_garbage_collector_only_while_it_runs() -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="gc")
    text = record_of(result, SEED)
    assert gc.isenabled()
    assert verify_offline(text).ok
    assert gc.isenabled()
    assert not verify_offline(text.replace('"a":"p1"', '"a":"p2"', 1)).ok
    assert gc.isenabled()
    gc.disable()
    try:
        assert verify_offline(text).ok
        assert not gc.isenabled()  # a caller's choice is left as it was
    finally:
        gc.enable()


def test_verify_exits_1_and_names_the_divergence(tmp_path: Path) -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="cli")
    lines = record_of(result, SEED).splitlines()
    record = tmp_path / "cut.jsonl"
    record.write_text("\n".join(lines[:10] + lines[11:]))
    code, out = run("verify", str(record))
    assert code == 1
    assert "FAILED at version 10" in out


def test_help_lists_every_command_as_click_would_without_importing_them() -> None:
    """The stand-in summaries of the server commands must not drift from their docstrings.

    The reference is a plain click group holding the real commands (loaded
    here, where the server extra is installed): its listing is what
    `risk --help` printed before the server commands became lazy.
    """
    context = click.Context(main)
    real = {name: main.get_command(context, name) for name in main.list_commands(context)}
    reference = click.Group("risk", commands=real, help=main.help)
    ours = CliRunner().invoke(main, ["--help"])
    theirs = CliRunner().invoke(reference, ["--help"])
    assert ours.exit_code == theirs.exit_code == 0
    commands = ours.output[ours.output.index("Commands:") :]
    assert commands == theirs.output[theirs.output.index("Commands:") :]
    assert set(SERVER_COMMANDS) <= set(real) and "serve" in commands


def test_a_server_command_runs_through_the_lazy_group() -> None:
    code, out = run("serve", "--help")
    assert code == 0 and "--bind" in out


def test_verify_exits_2_for_a_record_without_the_seed_and_never_says_verified(
    tmp_path: Path,
) -> None:
    """Issue 13 item 2: a running game's record (no seed yet) printed VERIFIED, exit 0."""
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="cli")
    lines = [json.loads(line) for line in record_of(result, SEED).splitlines()[:120]]
    lines[0]["complete"] = False
    record = tmp_path / "running.jsonl"
    record.write_text("\n".join(json.dumps(line) for line in lines))
    code, out = run("verify", str(record))
    assert code == 2
    assert "VERIFIED" not in out and "CHAIN VALID, NOT FINAL" in out
    code, out = run("verify", str(record), "--json")
    assert code == 2 and json.loads(out)["status"] == "not_final"


def test_verify_expect_head_finds_the_head_a_client_saw(tmp_path: Path) -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="cli")
    text = record_of(result, SEED)
    record = tmp_path / "game.jsonl"
    record.write_text(text)
    seen = json.loads(text.splitlines()[200])["hash"]
    assert run("verify", str(record), "--expect-head", seen)[0] == 0
    code, out = run("verify", str(record), "--expect-head", "ab" * 32)
    assert code == 1 and "does not contain the expected head" in out


def test_the_chart_names_the_players_and_ends_with_the_game(tmp_path: Path) -> None:
    """Issue 14: the legend showed seat ids, and the last point was the final turn's start."""
    from riskcli.audit import chart_figure
    from riskcore.audit.summary import summarize

    result = play_game([get_bot("random") for _ in range(3)], seed=b"c" * 32, game_id="chart")
    names = {"p1": "Ada", "p2": "Grace", "p3": "Alan"}
    figure = chart_figure(summarize(result.events), names)
    armies, territories = figure.axes
    assert [text.get_text() for text in armies.get_legend().get_texts()] == list(names.values())
    winner = next(line for line in territories.lines if line.get_label() == names[result.winner])
    assert winner.get_ydata()[-1] == 42


def test_simulate_shows_progress_on_stderr_and_keeps_json_clean() -> None:
    """Issue 14: a long simulation ran minutes with no output at all."""
    text = CliRunner().invoke(main, ["simulate", "--players", "3", "--games", "2"])
    assert text.exit_code == 0
    assert "simulating" in text.stderr
    assert "simulating" not in text.stdout
    piped = CliRunner().invoke(main, ["simulate", "--players", "3", "--games", "2", "--json"])
    assert piped.stderr == ""
    assert json.loads(piped.stdout)["games"] == 2


def test_tournament_plays_every_game_and_prints_the_table() -> None:
    code, out = run("tournament", "easy", "random", "heuristic", "--players", "3", "--json")
    document = json.loads(out)
    assert code == 0 and document["games"] == 3  # one pairing, three seat orders
    rows = document["standings"]
    assert [row["games"] for row in rows] == [3, 3, 3]
    assert sum(row["wins"] for row in rows) == 3
    assert [row["rank"] for row in rows] == [1, 2, 3]
    ordinals = [row["rating"]["ordinal"] for row in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    code, out = run("tournament", "easy", "random", "--players", "2")
    assert code == 0 and "rating" in out.splitlines()[0] and "Easy bot" in out


def test_tournament_refuses_too_few_entrants_and_unknown_levels() -> None:
    code, out = run("tournament", "easy", "random", "--players", "3")
    assert code == 2 and "cannot fill games of 3" in out
    code, out = run("tournament", "expert", "random")
    assert code == 2 and "expert" in out
