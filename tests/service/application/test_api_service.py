"""GameService directly: the functions the workers call, and its cache between processes."""

from __future__ import annotations

from typing import Any

import pytest
import redis as redis_lib

from riskcore.audit.record import decode_envelope
from riskcore.engine.snapshot import SNAPSHOT_STAMP
from riskcore.simulate import acting_seat
from service.application.games import GameService, SeatPlan
from service.application.lobby import SeatInfo
from service.store.keys import KeySpace

QUICK = {"setup": "deal", "starting_armies": 14}
HUMANS = [SeatPlan("human"), SeatPlan("human"), SeatPlan("human")]


@pytest.fixture
def games(redis: redis_lib.Redis, key_prefix: str) -> GameService:
    return GameService(redis, KeySpace(key_prefix), snapshot_every=10)


def _acting(games: GameService, game: str) -> str:
    seat = acting_seat(games.load(game).state)
    assert seat is not None
    return seat


def _own(games: GameService, game: str, seat: str) -> str:
    return next(t for t, p in games.load(game).state.owner.items() if p == seat)


def _step(games: GameService, game: str) -> None:
    """One quiet move: place an army where armies are placed, otherwise end the phase."""
    seat = _acting(games, game)
    phase = games.load(game).state.phase
    body = (
        {"type": "place_armies", "territory": _own(games, game, seat), "count": 1}
        if phase in ("reinforce", "setup_place")
        else {"type": "end_phase"}
    )
    games.execute(game, seat, body)


def test_execute_stores_actor_command_and_bot_provenance(games: GameService) -> None:
    game = games.create(seats=HUMANS, rules=QUICK).info.game_id
    seat = _acting(games, game)
    body = {"type": "place_armies", "territory": _own(games, game, seat), "count": 1}
    bot = {"name": "random", "version": "1", "ms": 0.1}
    result = games.execute(game, seat, body, bot=bot)
    first = decode_envelope(games.store.read(game, result.envelopes[0].version)[0].payload)
    assert (first.actor, first.command, first.bot) == (seat, body, bot)
    forfeit = games.execute(game, _acting(games, game), {"type": "resign"}, actor="system")
    assert forfeit.envelopes[0].actor == "system"


def test_notifications_name_the_seat_to_act_and_go_quiet_at_the_end(games: GameService) -> None:
    game = games.create(seats=HUMANS, rules=QUICK).info.game_id
    partition = games.keys.partition(game)
    kinds = [n.kind for n in games.store.notifications(partition)]
    assert kinds == [_acting(games, game)]
    for _ in range(2):
        games.execute(game, _acting(games, game), {"type": "resign"})
    notes = games.store.notifications(partition)
    assert notes[-1].kind == "" and notes[-1].last_version == games.load(game).version


def test_seat_info_tells_workers_which_seats_are_bots(games: GameService) -> None:
    seats = [SeatPlan("bot", bot="random"), SeatPlan("human", name="Ann"), SeatPlan("open")]
    game = games.create(seats=seats, clock={"turn_seconds": 60, "on_timeout": "bot"}).info.game_id
    info = games.seat_info(game)
    assert [(s.kind, s.bot, s.name) for s in info.values()] == [
        ("bot", "random", None),
        ("human", None, "Ann"),
        ("open", None, None),
    ]
    assert games.lobby.get(game).clock == {"turn_seconds": 60, "on_timeout": "bot"}


def test_another_process_catches_up_by_reading_only_the_new_events(
    games: GameService, redis: redis_lib.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = games.create(seats=HUMANS, rules=QUICK).info.game_id
    other = GameService(redis, games.keys, snapshot_every=10)
    before = other.load(game)

    def no_cold_loads(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a warm cache must not load from the snapshot")

    monkeypatch.setattr(other.store, "events_after_snapshot", no_cold_loads)
    for _ in range(5):
        _step(games, game)
    after = other.load(game)
    assert after.version == games.load(game).version > before.version
    assert after.state == games.load(game).state
    assert before.state.version == before.version  # the cached state was not changed in place


def test_a_cold_load_starts_from_the_snapshot(games: GameService, redis: redis_lib.Redis) -> None:
    game = games.create(seats=HUMANS, rules=QUICK).info.game_id
    while games.load(game).version < 25:
        _step(games, game)
    snapshot = games.store.load_snapshot(game, SNAPSHOT_STAMP)
    assert snapshot is not None and snapshot.version >= 20
    fresh = GameService(redis, games.keys)
    assert fresh.load(game).state == games.load(game).state


def test_a_full_lobby_left_unstarted_is_started_once_by_whoever_looks(
    games: GameService, redis: redis_lib.Redis
) -> None:
    seats = [SeatPlan("human"), SeatPlan("human"), SeatPlan("open")]
    game = games.create(seats=seats).info.game_id
    claimed = SeatInfo("p3", "human", "Late")
    assert games.lobby.claim(game, claimed)  # a join that crashed before starting the game
    rival = GameService(redis, games.keys)
    assert rival.info(game).status == "running"
    assert games.info(game).status == "running"
    created = [
        e for e in games.store.read(game) if decode_envelope(e.payload).event.TYPE == "game_created"
    ]
    assert len(created) == 1
    assert games.list_games("running", 10, None)[0][0].game_id == game
