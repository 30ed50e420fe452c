"""The archive's summary rows (issue 48): read from both ends of each stream and a
cache of the games' setups, they must say what the folded game says, at every
point of its life, for a fork, and for a game created again under an old id."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
import redis as redis_lib

from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.archived import info_json
from service.application.forks import fork
from service.application.games import GameService, SeatPlan
from service.application.lobby import FINISHED as DONE
from service.application.lobby import RUNNING
from service.store.archive import GameRow, SeatRow
from service.store.keys import KeySpace
from workers.archiving import Summaries


@pytest.fixture
def service(redis: redis_lib.Redis, key_prefix: str) -> GameService:
    return GameService(redis, KeySpace(key_prefix))


def folded(service: GameService, game_id: str) -> GameRow:
    """What the row must say, from the game folded to its newest version."""
    info, loaded = service.current(game_id)
    assert loaded is not None
    state = loaded.state
    end = state.phase == FINISHED
    winners = set(state.winners) | ({state.winner} if state.winner else set())
    last = service.log.envelopes(game_id, loaded.version, loaded.version)[0]
    seats = tuple(
        SeatRow(
            s.seat, s.kind, s.shown_name, s.bot, s.level, s.account,
            ("won" if s.seat in winners else "lost") if end else None,
        )
        for s in info.seats
    )  # fmt: skip
    return GameRow(
        game_id, info.mode, info.board, DONE if end else RUNNING, info.created_ms, 0,
        loaded.version, loaded.hash.hex(), info_json(info), seats, state.winner,
        state.finish_reason if end else None, info.tournament, None,
        last.time_ms if end else None,
    )  # fmt: skip


def step(service: GameService, game_id: str, rng: random.Random, commands: int) -> bool:
    """Up to ``commands`` random commands; True once the game has finished."""
    bot = get_bot("random")
    for _ in range(commands):
        state = service.load(game_id).state
        if state.phase == FINISHED:
            return True
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        service.execute(game_id, seat, body, expected_version=state.version)
    return service.load(game_id).state.phase == FINISHED


def row(summaries: Summaries, game_id: str) -> GameRow:
    found = summaries.rows([game_id])
    assert len(found) == 1
    return replace(found[0], updated_ms=0)


def test_rows_say_what_the_folded_game_says_from_start_to_finish(service: GameService) -> None:
    """No fold: the version, head, status, winner, outcome, seats' results and end time
    come from the last event (only GameFinished ends a game), the rest from the setup
    read once; at each point they equal the folded game's."""
    names = [SeatPlan("human", name=n) for n in ("ann", "bob", "cy")]
    game_id = service.create(seats=names).info.game_id
    summaries, rng = Summaries(service), random.Random(48)
    checked = 0
    while not step(service, game_id, rng, rng.randrange(1, 60)):
        assert row(summaries, game_id) == folded(service, game_id)
        checked += 1
    final = row(summaries, game_id)
    assert final == folded(service, game_id) and checked > 3
    assert final.status == DONE and final.outcome and final.finished_ms
    assert sorted(s.result or "" for s in final.seats) == ["lost", "lost", "won"]
    assert [s.name for s in final.seats] == ["ann", "bob", "cy"]


def test_many_games_are_summarised_in_one_read_and_gone_ones_left_out(
    service: GameService,
) -> None:
    games = [service.create(seats=[SeatPlan("human")] * 3).info.game_id for _ in range(4)]
    lobby = service.create(seats=[SeatPlan("human"), SeatPlan("human"), SeatPlan("open")])
    lobby_id = lobby.info.game_id
    rng = random.Random(1)
    for game_id in games:
        step(service, game_id, rng, 10)
    service.delete(games[1])
    rows = Summaries(service).rows([*games, lobby_id, "gnone"])
    assert [r.game_id for r in rows] == [games[0], games[2], games[3]]
    assert [replace(r, updated_ms=0) for r in rows] == [
        folded(service, g) for g in (games[0], games[2], games[3])
    ]


def test_a_fork_names_the_game_it_was_forked_from(service: GameService) -> None:
    parent = service.create(seats=[SeatPlan("human")] * 3).info.game_id
    rng = random.Random(3)
    while not step(service, parent, rng, 200):
        pass
    created, _, _ = fork(service, parent, 5, [SeatPlan("human")] * 3)
    child = created.info.game_id
    assert row(Summaries(service), child).parent == parent
    assert row(Summaries(service), parent).parent is None


def test_a_game_created_again_under_its_id_is_read_afresh(service: GameService) -> None:
    """The setup is kept for a game's life: a game deleted and created again under the
    same id (its first event's hash differs) is read again, never the old one's."""
    summaries = Summaries(service)
    first = [SeatPlan("human", name=n) for n in ("ann", "bob", "cy")]
    service.create(seats=first, game_id="gsame")
    assert [s.name for s in row(summaries, "gsame").seats] == ["ann", "bob", "cy"]
    service.delete("gsame")
    assert summaries.rows(["gsame"]) == []
    again = [SeatPlan("human", name=n) for n in ("dee", "eve", "fay", "gus")]
    service.create(seats=again, game_id="gsame", board="middle_earth")
    found = row(summaries, "gsame")
    assert [s.name for s in found.seats] == ["dee", "eve", "fay", "gus"]
    assert found == folded(service, "gsame") and found.board == "middle_earth"


def test_a_finished_game_a_crash_left_listed_running_is_listed_finished(
    service: GameService,
) -> None:
    """Its last append lists a finished game as finished; a crash just before leaves
    it running, and its summary lists it finished (as a read of the game would)."""
    game_id = service.create(seats=[SeatPlan("human")] * 3).info.game_id
    rng = random.Random(5)
    while not step(service, game_id, rng, 200):
        pass
    info = service.lobby.get(game_id)
    service.lobby.move(info, RUNNING)  # the crash: the index says running
    assert service.lobby.get(game_id).status == RUNNING
    assert row(Summaries(service), game_id).status == DONE
    assert service.lobby.get(game_id).status == DONE
