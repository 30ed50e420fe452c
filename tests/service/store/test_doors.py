"""One door to each store (issue 47; docs/store.md, "Where each stored thing lives").

The application reaches storage through ``service.store`` only: a Redis outage
comes out of a door as the store's own ``StoreUnavailable``, and a command
goes from its caller to the append script in four calls of the server's own
(docs/engine.md, "The server around the engine").
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import redis as redis_lib
from redis.backoff import NoBackoff
from redis.retry import Retry

from riskcore.engine.legal import legal_actions
from riskcore.simulate import acting_seat
from service.application.games import GameService, SeatPlan
from service.store.analyses import Analyses, PendingAnalyses
from service.store.errors import StoreUnavailable
from service.store.idempotency import CreationRecords
from service.store.keys import KeySpace
from service.store.lobby_index import Lobby
from service.store.quotas import ActiveGames
from service.store.scripts import HeldConnectionScript
from service.store.tournaments import TournamentRecords

ROOT = Path(__file__).resolve().parents[3]
OURS = tuple(str(ROOT / package) for package in ("service", "workers"))


def test_a_redis_outage_comes_out_of_every_door_as_the_stores_own_error() -> None:
    """Nothing listens on the port: each door raises StoreUnavailable, not a Redis class
    (so the application and the edge catch one error, whichever store is behind)."""
    away = redis_lib.Redis(port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    keys = KeySpace("door")
    calls = [
        lambda: Lobby(away, keys).get("g1"),
        lambda: Analyses(away, keys).read("g1", 8, "00"),
        lambda: PendingAnalyses(away, keys).weight("1.2.3.4"),  # issue 54
        lambda: CreationRecords(away, keys).claim("1.2.3.4", "key-1", "f" * 64),  # issue 54
        lambda: ActiveGames(away, keys).members(keys.game_quota("ip", "1.2.3.4")),
        lambda: TournamentRecords(away, keys).status("t0123456789abcdef"),
    ]
    for call in calls:
        with pytest.raises(StoreUnavailable):
            call()


def test_a_command_reaches_the_append_script_in_four_calls_of_our_own(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    """From the caller of ``GameService.execute`` (an HTTP view, a worker) to the Lua
    append: Commands.execute, GameLog.append, EventStore.append, the script runner."""
    service = GameService(redis, KeySpace(key_prefix))
    game = service.create(seats=[SeatPlan("human"), SeatPlan("human"), SeatPlan("human")])
    gid = game.info.game_id
    state = service.load(gid).state
    seat = acting_seat(state)
    assert seat is not None
    body = next(iter(legal_actions(state, seat)))["command"]
    stacks: list[list[str]] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is HeldConnectionScript.__call__.__code__:
            stacks.append(_our_callers(frame))

    def view() -> None:  # stands for the HTTP view, or a worker's job
        service.execute(gid, seat, body)

    sys.setprofile(profile)
    try:
        view()
    finally:
        sys.setprofile(None)
    assert stacks, "the append script was not run"
    hops = stacks[0][: stacks[0].index("view")]
    assert hops == ["append", "append", "execute"], hops  # the script runner's callers


def _our_callers(frame: FrameType) -> list[str]:
    """The functions of our own below ``frame`` (innermost first), up to the test's."""
    names = []
    caller = frame.f_back
    while caller is not None:
        name = caller.f_code.co_name
        if caller.f_code.co_filename.startswith(OURS) or name == "view":
            names.append(name)
        if name == "view":
            break
        caller = caller.f_back
    return names
