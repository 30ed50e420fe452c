"""Ratings (issue 19): openskill's Plackett-Luce over the winners and the rest, with
an interval of mu ± 2 sigma, rated in schedule order."""

from __future__ import annotations

from riskcore.tournament import Entrant, Outcome
from service.application.ratings import rate, table

ENTRANTS = [Entrant("e1", "a"), Entrant("e2", "b"), Entrant("e3", "c")]


def won_by(index: int, winner: str) -> Outcome:
    others = [e.id for e in ENTRANTS if e.id != winner]
    return Outcome(index, {winner: 1, others[0]: 2, others[1]: 3}, (winner,))


def test_before_any_game_everyone_is_rated_alike_and_unsure() -> None:
    ratings = rate(["e1", "e2"], [])
    assert ratings["e1"] == ratings["e2"]
    assert ratings["e1"].mu == 25 and round(ratings["e1"].sigma, 3) == round(25 / 3, 3)


def test_winning_raises_the_rating_and_every_game_narrows_the_interval() -> None:
    outcomes = [won_by(i, "e1") for i in range(6)]
    ratings = rate(["e1", "e2", "e3"], outcomes)
    assert ratings["e1"].mu > 25 > ratings["e2"].mu
    assert ratings["e2"].mu == ratings["e3"].mu  # losers tie, whatever order they went out
    assert all(r.sigma < 25 / 3 for r in ratings.values())
    rows = table(ENTRANTS, outcomes)
    assert rows[0]["entrant"] == "e1" and rows[0]["rank"] == 1
    first = rows[0]["rating"]
    assert first["low"] < first["mu"] < first["high"]
    assert abs((first["high"] - first["low"]) - 4 * first["sigma"]) < 0.01
    assert abs(first["ordinal"] - (first["mu"] - 3 * first["sigma"])) < 0.01
    assert rows[0]["wins"] == 6 and rows[1]["wins"] == 0


def test_games_are_rated_in_schedule_order_whatever_order_they_finished_in() -> None:
    outcomes = [won_by(0, "e1"), won_by(1, "e2"), won_by(2, "e3"), won_by(3, "e2")]
    assert rate(["e1", "e2", "e3"], outcomes) == rate(["e1", "e2", "e3"], outcomes[::-1])
