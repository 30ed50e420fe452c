"""GameService.run: the bots' commands decided one after another, appended at once.

The stream must hold what one append per command would have held (the
record verifies: every command decided again at its version gives the
stored events), and optimistic concurrency must hold for the whole run: a
person's command that came first refuses it whole.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis as redis_lib

from riskcore.audit.record import decode_envelope
from riskcore.audit.verify import verify_text
from riskcore.engine.legal import legal_actions
from riskcore.engine.snapshot import SNAPSHOT_STAMP
from riskcore.model.state import FINISHED, State
from riskcore.simulate import acting_seat
from service.application.errors import IdempotencyMismatch, VersionConflict
from service.application.games import GameService, Planned, SeatPlan
from service.application.records import export
from service.store.keys import KeySpace

HUMANS = [SeatPlan("human"), SeatPlan("human"), SeatPlan("human")]


@pytest.fixture
def games(redis: redis_lib.Redis, key_prefix: str) -> GameService:
    return GameService(redis, KeySpace(key_prefix), snapshot_every=50)


class Random:
    """Names each acting seat's next command at random, up to ``limit`` per run."""

    def __init__(self, seed: int, limit: int = 10_000) -> None:
        self.rng = random.Random(seed)
        self.limit = limit
        self.chosen = 0

    def __call__(self, state: State, version: int) -> Planned | None:
        seat = acting_seat(state)
        if state.phase == FINISHED or seat is None or self.chosen >= self.limit:
            return None
        self.chosen += 1
        actions = [a for a in legal_actions(state, seat) if a["command"]["type"] != "resign"]
        body = self.rng.choice(actions)["command"]
        return Planned(seat, body, f"turn:{version}", {"name": "test", "version": "1"})


def test_a_game_played_in_runs_verifies_command_by_command(games: GameService) -> None:
    """Every stored command, decided again at its version with the revealed seed, gives
    exactly the events stored after it (riskcore.audit.verify), as if each had been
    appended alone; snapshots crossed inside a run are kept too."""
    game = games.create(seats=HUMANS, seed=b"runs-1", game_id="runs-1").info.game_id
    chooser = Random(7)
    runs = 0
    while (loaded := games.load_cached(game)).state.phase != FINISHED:
        chooser.chosen = 0
        chooser.limit = 1 + runs % 40  # runs of every length, 1 to 40 commands
        result = games.run(game, loaded, chooser, max_commands=64)
        assert result.appended is not None
        # All it chose, but one that would have taken the run past its events' bound.
        assert result.commands in (chooser.chosen, chooser.chosen - 1)
        runs += 1
    stored = [decode_envelope(e.payload) for e in games.store.read(game)]
    commands = [e for e in stored if e.command is not None]
    assert len(commands) > runs  # most runs held several commands
    assert verify_text(export(games, game)).ok
    assert games.store.load_snapshot(game, SNAPSHOT_STAMP) is not None


def test_a_run_stops_before_a_command_that_would_pass_its_bound_of_events(
    games: GameService,
) -> None:
    """A blitz can make hundreds of events, more than a run may hold (and than the store
    takes at once): the command that would pass ``max_events`` is left for the next run,
    which decides it again; a run's first command is taken whole, whatever its size."""
    game = games.create(seats=HUMANS, seed=b"runs-2", game_id="runs-2").info.game_id
    chooser = Random(11)
    bound, cut = 12, 0
    while (loaded := games.load_cached(game)).state.phase != FINISHED:
        chooser.chosen = 0
        result = games.run(game, loaded, chooser, max_commands=64, max_events=bound)
        assert result.appended is not None
        size = result.appended.version - loaded.version
        assert size <= bound or result.commands == 1, (size, result.commands)
        cut += result.commands < chooser.chosen
        assert games.load(game).state == games.load_cached(game).state  # the cache is right
    assert cut > 0  # the bound was met, and the game went on
    assert verify_text(export(games, game)).ok


def test_a_run_writes_one_notification_naming_who_acts_next(games: GameService) -> None:
    game = games.create(seats=HUMANS).info.game_id
    partition = games.keys.partition(game)
    before = games.store.notifications(partition)
    loaded = games.load(game)
    result = games.run(game, loaded, Random(1, limit=5), max_commands=64)
    assert result.appended is not None
    [note] = games.store.notifications(partition, after=before[-1].id)
    assert (note.first_version, note.last_version) == (loaded.version + 1, result.appended.version)
    assert note.kind == acting_seat(games.load(game).state)


def test_a_run_decided_before_a_persons_command_is_refused_whole(
    games: GameService, redis: redis_lib.Redis
) -> None:
    game = games.create(seats=HUMANS).info.game_id
    stale = games.load(game)
    person = GameService(redis, games.keys)  # another process: the API
    seat = acting_seat(stale.state)
    assert seat is not None
    person.execute(game, seat, legal_actions(stale.state, seat)[0]["command"])
    moved = games.store.version(game)
    with pytest.raises(VersionConflict):
        games.run(game, stale, Random(2, limit=8), max_commands=64)
    assert games.store.version(game) == moved
    fresh = games.load(game)  # decided again on the new state, it goes in
    assert games.run(game, fresh, Random(2, limit=8), max_commands=64).commands == 8


def test_a_rival_run_at_the_same_version_is_refused_by_its_key(
    games: GameService, redis: redis_lib.Redis
) -> None:
    """Two jobs deciding at one version send the same server key for the first
    command: the second, which chose otherwise, stores nothing."""
    game = games.create(seats=HUMANS).info.game_id
    loaded = games.load(game)
    games.run(game, loaded, Random(3, limit=4), max_commands=64)
    after = games.store.version(game)
    rival = GameService(redis, games.keys)
    with pytest.raises((IdempotencyMismatch, VersionConflict)):
        rival.run(game, loaded, Random(4, limit=6), max_commands=64)
    assert games.store.version(game) == after


def test_an_illegal_command_ends_the_run_and_those_before_it_are_kept(
    games: GameService,
) -> None:
    game = games.create(seats=HUMANS).info.game_id
    legal = Random(5, limit=3)
    calls: list[Any] = []

    def choose(state: State, version: int) -> Planned | None:
        calls.append(version)
        if len(calls) <= 3:
            return legal(state, version)
        seat = acting_seat(state)
        assert seat is not None
        return Planned(seat, {"type": "claim_territory", "territory": "atlantis"}, "k", None)

    loaded = games.load(game)
    result = games.run(game, loaded, choose, max_commands=64)
    assert result.commands == 3 and result.refused is not None
    assert result.refused[0].body["territory"] == "atlantis"
    assert result.appended is not None and games.store.version(game) == result.appended.version
    assert len(calls) == 4
