"""Game statistics (issue 7): consistent with the events they come from."""

from __future__ import annotations

from fractions import Fraction

from riskcore.audit.summary import summarize
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.protocol import events as ev
from riskcore.rules.odds import roll_outcomes
from riskcore.simulate import play_game


def test_statistics_add_up() -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=b"s" * 32, game_id="stats")
    stats = summarize(result.events)
    players = stats["players"]
    destroyed = sum(p["armies_destroyed"] for p in players.values())
    lost = sum(p["armies_lost"] for p in players.values())
    assert destroyed == lost > 0
    battles = [e for e in result.events if isinstance(e, ev.BattleResolved)]
    assert sum(p["battles_attacking"] for p in players.values()) == len(battles)
    assert stats["winner"] == result.winner
    for point in stats["timeline"]:
        assert sum(point["territories"].values()) == 42


def test_luck_is_actual_minus_exact_expectation() -> None:
    """Expected losses come from the exact one-roll table (reference/battle-odds.txt)."""
    result = play_game([get_bot("random") for _ in range(3)], seed=b"t" * 32, game_id="luck")
    stats = summarize(result.events)
    seat = "p1"
    expected = Fraction(0)
    destroyed = 0
    for event in result.events:
        if not isinstance(event, ev.BattleResolved):
            continue
        table = roll_outcomes(len(event.attacker_dice), len(event.defender_dice))
        if event.seat == seat:  # attacking: destroys defenders
            expected += sum(p * d for (_, d), p in table.items())
            destroyed += event.defender_losses
        elif event.defender == seat:  # defending: destroys attackers
            expected += sum(p * a for (a, _), p in table.items())
            destroyed += event.attacker_losses
    mine = stats["players"][seat]
    assert mine["expected_destroyed"] == round(float(expected), 2)
    assert mine["luck"] == round(destroyed - float(expected), 2)


def test_the_timeline_ends_at_the_games_end() -> None:
    """Issue 14: the last point was the start of the final turn (the winner at 31, not 42)."""
    result = play_game([get_bot("random") for _ in range(3)], seed=b"e" * 32, game_id="end")
    stats = summarize(result.events)
    last = stats["timeline"][-1]
    assert last["version"] == stats["version"] == len(result.events)
    assert last["territories"][result.winner] == 42


def test_the_luck_line_ends_at_each_players_luck() -> None:
    """Each timeline point carries the luck so far, so it can be drawn as a line per turn."""
    result = play_game([get_bot("random") for _ in range(3)], seed=b"l" * 32, game_id="line")
    stats = summarize(result.events)
    first, last = stats["timeline"][0], stats["timeline"][-1]
    assert first["luck"] == {"p1": 0.0, "p2": 0.0, "p3": 0.0}  # no battle before turn 1
    assert last["luck"] == {seat: stats["players"][seat]["luck"] for seat in last["luck"]}


def test_a_lord_of_the_rings_summary_has_the_score_table() -> None:
    """docs/rules.md, "Lord of the Rings Risk" (end and scoring): 1 per territory, region bonuses, 2
    per stronghold; the summary of a finished game shows each player's table, the winner's total the
    best."""
    result = play_game(
        [get_bot("heuristic"), get_bot("random"), get_bot("random")], seed=b"score", mode="lotr"
    )
    state = fold(result.events)
    scores = summarize(result.events)["scores"]
    assert set(scores) == set(state.order)
    for seat, row in scores.items():
        held = set(state.territories_of(seat))
        assert row["territories"] == len(held)
        assert row["strongholds"] == len(held & set(state.board.strongholds))
        assert row["regions"] == sum(g.bonus for g in state.board.groups if g.territories <= held)
    if result.reason == "fellowship_left":
        assert scores[result.winner]["total"] == max(r["total"] for r in scores.values())
    assert summarize(play_game([get_bot("random")] * 3, seed=b"c").events)["scores"] == {}
