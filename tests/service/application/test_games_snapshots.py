"""Snapshots with the real engine (issue 4): loading from a snapshot plus the
events after it gives exactly the state a fold of every event gives."""

from __future__ import annotations

import random

import redis as redis_lib

from riskcore.audit.record import decode_envelope
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.engine.snapshot import SNAPSHOT_STAMP
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.games import GameService, SeatPlan
from service.store.keys import KeySpace


def test_snapshot_loads_equal_full_folds_at_every_stage(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    service = GameService(redis, KeySpace(key_prefix), snapshot_every=25)
    seats = [SeatPlan("human", name=n) for n in ("Ada", "Bo", "Cy")]
    game = service.create(seats=seats).info.game_id
    bot, rng = get_bot("random"), random.Random(7)
    checked = 0
    for _ in range(400):
        state = service.load(game).state
        if state.phase == FINISHED:
            break
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        service.execute(game, seat, body, expected_version=state.version)
        if state.version % 7 == 0:
            fresh = GameService(redis, KeySpace(key_prefix), snapshot_every=25)
            everything = fold(decode_envelope(e.payload).event for e in service.store.read(game))
            assert fresh.load(game).state == everything
            checked += 1
    snapshot = service.store.load_snapshot(game, SNAPSHOT_STAMP)
    assert snapshot is not None and snapshot.version >= 25
    assert checked >= 10
