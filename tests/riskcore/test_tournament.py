"""Tournaments, the engine's part (issue 19): schedules with seats rotated and seeds
recorded, places in a finished game, standings that add up to the results."""

from __future__ import annotations

from collections import Counter

import pytest

from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.simulate import play_game
from riskcore.tournament import (
    TournamentError,
    entrants_from,
    outcome_of,
    places,
    schedule,
    standings,
)

IDS = ["e1", "e2", "e3", "e4"]


def test_round_robin_plays_every_pairing_once_from_each_seat_order() -> None:
    fixtures = schedule(IDS, players=3, seed=b"s")
    assert len(fixtures) == 4 * 3  # C(4, 3) pairings x 3 seat orders
    by_pairing: dict[int, list[tuple[str, ...]]] = {}
    for fixture in fixtures:
        by_pairing.setdefault(fixture.pairing, []).append(fixture.seats)
    for seatings in by_pairing.values():
        assert len(set(seatings)) == 3
        for place in range(3):  # each entrant of the pairing once in each seat
            assert len({seats[place] for seats in seatings}) == 3
    assert [f.index for f in fixtures] == list(range(12))


def test_games_are_played_round_by_round_and_seeds_follow_the_tournament_seed() -> None:
    fixtures = schedule(IDS[:3], players=2, format="games_per_pairing", games=4, seed=b"s")
    assert [f.pairing for f in fixtures] == [0, 1, 2] * 4
    seats = Counter(f.seats[0] for f in fixtures)
    assert set(seats.values()) == {4}  # first seat shared evenly
    again = schedule(IDS[:3], players=2, format="games_per_pairing", games=4, seed=b"s")
    assert [f.seed for f in fixtures] == [f.seed for f in again]
    other = schedule(IDS[:3], players=2, format="games_per_pairing", games=4, seed=b"t")
    assert len({f.seed for f in fixtures} | {f.seed for f in other}) == 24


@pytest.mark.parametrize(
    ("entrants", "players", "format", "games", "code"),
    [
        (IDS[:2], 3, "round_robin", None, "too_few_entrants"),
        (IDS[:1], 2, "round_robin", None, "too_few_entrants"),
        (IDS, 3, "swiss", None, "invalid_format"),
        (IDS, 3, "games_per_pairing", None, "invalid_format"),
        (IDS, 3, "round_robin", 2, "invalid_format"),
        (IDS, 2, "games_per_pairing", 200, "tournament_too_large"),
    ],
)
def test_a_schedule_that_cannot_be_played_names_why(
    entrants: list[str], players: int, format: str, games: int | None, code: str
) -> None:
    with pytest.raises(TournamentError) as error:
        schedule(entrants, players=players, format=format, games=games, seed=b"s")
    assert error.value.code == code


def test_entrants_name_bots_and_levels_and_bad_ones_are_refused() -> None:
    made = entrants_from([{"level": "easy"}, {"bot": "strong", "level": "hard"}, {"bot": "random"}])
    assert [(e.id, e.bot, e.level, e.name) for e in made] == [
        ("e1", "heuristic", "easy", "Easy bot"),
        ("e2", "strong", "hard", "Hard bot"),
        ("e3", "random", None, "Random bot"),
    ]
    twice = entrants_from([{"bot": "random"}, {"bot": "random"}, {"kind": "http", "name": "Mine"}])
    assert [e.name for e in twice] == ["Random bot", "Random bot 2", "Mine"]
    for request, code in [
        ({"bot": "nobody"}, "unknown_bot"),
        ({"level": "expert"}, "unknown_level"),
        ({"bot": "random", "level": "hard"}, "level_not_for_bot"),
    ]:
        with pytest.raises(TournamentError) as error:
            entrants_from([request])
        assert error.value.code == code


def test_a_finished_game_places_its_winner_first_and_the_last_out_next() -> None:
    """docs/rules.md, "Winning" (classic): the last player left holding territories wins."""
    result = play_game([get_bot("heuristic") for _ in range(4)], seed=b"p", game_id="p")
    state = fold(result.events)
    found = places(state)
    assert found[state.winner] == 1
    out = list(state.out)  # in the order they went out
    assert sorted(found[s] for s in out) == [2, 3, 4]
    assert found[out[-1]] == 2 and found[out[0]] == 4


def test_standings_add_up_to_the_outcomes() -> None:
    entrants = ["e1", "e2", "e3"]
    fixtures = schedule(entrants, players=3, seed=b"x")
    outcomes, winning_seats = [], []
    for fixture in fixtures:
        bots = [get_bot("heuristic" if e == "e1" else "random") for e in fixture.seats]
        result = play_game(bots, seed=fixture.seed, game_id=f"x{fixture.index}")
        outcomes.append(outcome_of(fixture, fold(result.events), game_id=result.game_id))
        winning_seats.append(result.winner)
    rows = standings(entrants, outcomes)
    assert all(rows[e].games == 3 for e in entrants)
    assert sum(row.wins for row in rows.values()) == pytest.approx(3)
    for fixture, outcome, seat in zip(fixtures, outcomes, winning_seats, strict=True):
        assert seat is not None
        assert outcome.winners == (fixture.seats[int(seat[1:]) - 1],)  # the winning seat's entrant
        assert outcome.places[outcome.winners[0]] == 1
    wins = Counter(w for o in outcomes for w in o.winners)
    assert {e: rows[e].wins for e in entrants} == {e: wins[e] for e in entrants}


def test_games_per_pairing_seats_each_entrant_after_each_other_as_often() -> None:
    """Rotation alone kept one cyclic order (e1 -> e2 -> e3) in every game, and the
    seat after a weak player wins most 3-player games (issue 52): every other
    round of rotations is played in the reverse order."""
    fixtures = schedule(IDS[:3], players=3, format="games_per_pairing", games=6, seed=b"s")
    follows = Counter(
        (seats[i], seats[(i + 1) % 3]) for seats in (f.seats for f in fixtures) for i in range(3)
    )
    assert set(follows.values()) == {3} and len(follows) == 6  # each ordered pair 3 of 6 games
    for place in range(3):  # and each entrant still in each seat twice
        assert set(Counter(f.seats[place] for f in fixtures).values()) == {2}
