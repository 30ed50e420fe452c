"""Jobs (docs/store.md, "Workers: relay, clocks and what operators see"): bot turns through the
API's path, clocks, faults.

Real Redis, real RQ: ``SimpleWorker(...).work(burst=True)`` runs what the
relay enqueued, as rq's own tests do.
"""

from __future__ import annotations

import logging
import random
from typing import ClassVar

import pytest
import redis as redis_lib
from freezegun import freeze_time
from rq import SimpleWorker
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer

from riskcore.audit.record import decode_envelope
from riskcore.bots.base import register
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.modes import adventure
from riskcore.simulate import acting_seat
from service.application.commands import stored_idempotency_key
from service.application.games import GameService, SeatPlan
from service.store.keys import KeySpace
from workers import clock, jobs
from workers.claims import Claims
from workers.jobs import server_key
from workers.queues import CLOCKS_QUEUE, CONTINUED_QUEUE, GAMES_QUEUE, WORKER_QUEUES, queue
from workers.relay import Relay


@pytest.fixture
def keys(key_prefix: str) -> KeySpace:
    return KeySpace(key_prefix)


@pytest.fixture
def service(redis: redis_lib.Redis, keys: KeySpace) -> GameService:
    return GameService(redis, keys)


@pytest.fixture
def relay(redis: redis_lib.Redis, keys: KeySpace) -> Relay:
    relay = Relay(redis, keys, queue(redis, keys), consumer="test")
    relay.ensure_groups()
    return relay


def work(redis: redis_lib.Redis, keys: KeySpace, *names: str) -> None:
    """Run what is queued (by default bot jobs, new and continued) until none is left."""
    queues = [queue(redis, keys, n) for n in names or (GAMES_QUEUE, CONTINUED_QUEUE)]
    worker = SimpleWorker(queues, connection=redis, serializer=JSONSerializer)
    worker.work(burst=True, logging_level="WARNING")


def drive(redis: redis_lib.Redis, keys: KeySpace, relay: Relay, rounds: int = 500) -> None:
    """Relay then work, until nothing is left to do."""
    queues = [queue(redis, keys, n) for n in (GAMES_QUEUE, CONTINUED_QUEUE)]
    for _ in range(rounds):
        if relay.run_once(block_ms=1) == 0 and not any(q.count for q in queues):
            return
        work(redis, keys)


def person_and_two_bots() -> list[SeatPlan]:
    return [
        SeatPlan("human", name="Ada"),
        SeatPlan("bot", bot="random"),
        SeatPlan("bot", bot="random"),
    ]


def test_a_bot_only_game_is_played_to_the_end_by_jobs(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = [SeatPlan("bot", bot="random") for _ in range(2)]
    created = service.create(seats=seats, rules={"variant": "two_player"})
    drive(redis, keys, relay, rounds=5000)
    loaded = service.load(created.info.game_id)
    assert loaded.state.phase == FINISHED
    stored = service.store.read(created.info.game_id)
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    firsts = [decode_envelope(e.payload) for e in stored]
    bot_batches = [e for e in firsts if e.command is not None]
    assert bot_batches and all(e.bot and e.bot["name"] == "random" for e in bot_batches)


def test_a_seat_with_a_level_is_played_at_that_level(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """Issue 19: workers play a seat's bot at its level, and each batch says so."""
    seats = [SeatPlan("bot", level="easy"), SeatPlan("bot", bot="random")]
    created = service.create(seats=seats, mode="two_player")
    drive(redis, keys, relay, rounds=5000)
    stored = [decode_envelope(e.payload) for e in service.store.read(created.info.game_id)]
    chosen = {(e.actor, e.bot["name"], e.bot.get("level")) for e in stored if e.bot}
    assert chosen == {("p1", "heuristic", "easy"), ("p2", "random", None)}
    assert service.load(created.info.game_id).state.phase == FINISHED


def test_a_team_game_of_bots_is_played_to_the_end_by_jobs(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """The team game (docs/rules.md) through the workers: a person seated in team B
    (who resigns at once: their team loses) and three bots."""
    seats = [
        SeatPlan("bot", bot="heuristic", team="A"),
        SeatPlan("bot", bot="random", team="A"),
        SeatPlan("bot", bot="random", team="B"),
        SeatPlan("human", name="Ada", team="B"),
    ]
    created = service.create(seats=seats, mode="team")
    game = created.info.game_id
    assert [(s.seat, s.kind) for s in created.info.seats][1::2] == [("p2", "bot"), ("p4", "human")]
    drive(redis, keys, relay)
    state = service.load(game).state
    assert acting_seat(state) == "p4"
    service.execute(game, "p4", {"type": "resign"}, expected_version=state.version)
    loaded = service.load(game).state
    assert loaded.phase == FINISHED and loaded.winners == ("p1", "p3")
    assert loaded.finish_reason == "resignation"


def test_bots_stop_when_a_person_must_act(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = person_and_two_bots()
    created = service.create(seats=seats)
    game = created.info.game_id
    drive(redis, keys, relay)
    state = service.load(game).state
    assert acting_seat(state) == "p1"
    # The person moves; the bots answer.
    body = {
        "type": "claim_territory",
        "territory": next(t for t in state.board.territory_names if t not in state.owner),
    }
    service.execute(game, "p1", body, expected_version=state.version)
    drive(redis, keys, relay)
    after = service.load(game).state
    assert after.version > state.version + 1
    assert acting_seat(after) == "p1"


def test_running_a_job_twice_adds_nothing(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = person_and_two_bots()
    game = service.create(seats=seats).info.game_id
    drive(redis, keys, relay)
    version = service.load(game).version
    games = queue(redis, keys)
    for job_version in range(1, version + 1):
        games.enqueue("workers.jobs.advance_game", game, job_version)
    work(redis, keys)
    assert service.load(game).version == version


class _Broken:
    name = "broken"
    version = "1"

    def choose(self, view, actions, rng):  # type: ignore[no-untyped-def]
        raise RuntimeError("this bot is broken")


class _Illegal:
    name = "illegal"
    version = "1"

    def choose(self, view, actions, rng):  # type: ignore[no-untyped-def]
        return {"type": "claim_territory", "territory": "atlantis"}


register("broken")(_Broken)
register("illegal")(_Illegal)


@pytest.mark.parametrize("bot", ["broken", "illegal"])
def test_a_failing_bot_falls_back_instead_of_stalling(
    redis: redis_lib.Redis,
    keys: KeySpace,
    service: GameService,
    relay: Relay,
    bot: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seats = [SeatPlan("bot", bot=bot), SeatPlan("bot", bot="random"), SeatPlan("bot", bot="random")]
    game = service.create(seats=seats).info.game_id
    with caplog.at_level(logging.ERROR, logger="workers.jobs"):
        drive(redis, keys, relay, rounds=40)
    state = service.load(game).state
    assert state.turn > 0 or state.version > 40  # setup went on past the broken seat
    assert any(bot in r.getMessage() for r in caplog.records)
    batches = [decode_envelope(e.payload) for e in service.store.read(game)]
    assert any(b.bot and b.bot.get("reason", "").startswith("fallback") for b in batches)


def test_a_person_who_walks_away_is_played_by_the_heuristic_bot_after_the_deadline(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = person_and_two_bots()
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(
            seats=seats, clock={"turn_seconds": 30, "on_timeout": "bot"}
        ).info.game_id
        drive(redis, keys, relay)
        waiting = service.load(game).version
        assert acting_seat(service.load(game).state) == "p1"
        clocks = queue(redis, keys, CLOCKS_QUEUE)
        assert len(clocks.scheduled_job_registry) == 1
        frozen.tick(29)
        _run_due_deadlines(redis, keys)
        assert service.load(game).version == waiting
        frozen.tick(2)
        _run_due_deadlines(redis, keys)
        after = service.load(game)
        assert after.version > waiting
        batch = decode_envelope(service.store.read(game, waiting + 1, waiting + 1)[0].payload)
        assert batch.actor == "p1"
        assert batch.bot is not None and batch.bot["reason"] == "timeout"


def test_forfeit_policy_resigns_the_absent_seat(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = person_and_two_bots()
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(
            seats=seats, clock={"turn_seconds": 10, "on_timeout": "forfeit"}
        ).info.game_id
        drive(redis, keys, relay)
        frozen.tick(11)
        _run_due_deadlines(redis, keys)
        state = service.load(game).state
        assert state.out.get("p1") == "resigned"


def _run_due_deadlines(redis: redis_lib.Redis, keys: KeySpace) -> None:
    """One pass of RQ's own scheduler (due jobs to their queue), then run them."""
    clocks = queue(redis, keys, CLOCKS_QUEUE)
    scheduler = RQScheduler([clocks], connection=redis, serializer=JSONSerializer)
    scheduler.acquire_locks()
    scheduler.enqueue_scheduled_jobs()
    scheduler.release_locks()
    work(redis, keys, CLOCKS_QUEUE)


def test_a_job_lost_with_its_worker_is_rescued_when_its_lease_runs_out(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = [SeatPlan("bot", bot="random") for _ in range(3)]
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(seats=seats).info.game_id
        relay.run_once(block_ms=1)
        queue(redis, keys).empty()  # the worker holding the job was killed
        before = service.load(game).version
        drive(redis, keys, relay)
        assert service.load(game).version == before  # nothing left to wake the game
        assert relay.rescue() == 0  # the lease has not run out yet
        frozen.tick(6)
        assert relay.rescue() == 1
        work(redis, keys)
        assert service.load(game).version > before


def test_leases_are_cleared_when_the_game_waits_for_a_person(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = person_and_two_bots()
    game = service.create(seats=seats).info.game_id
    drive(redis, keys, relay)
    assert acting_seat(service.load(game).state) == "p1"
    assert redis.zscore(keys.worker_leases(), game) is None


def test_the_deadline_is_in_the_view_while_it_runs(
    redis: redis_lib.Redis, redis_url: str, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    from riskcore.views.view import view
    from service.application.clocks import deadline
    from service.http.app import create_app
    from service.settings import Settings
    from tests.service.api_helpers import ApiClient

    seats = person_and_two_bots()
    with freeze_time("2026-11-29 12:00:00"):
        game = service.create(seats=seats, clock={"turn_seconds": 45, "on_timeout": "bot"})
        drive(redis, keys, relay)
        state = service.load(game.info.game_id).state
        shown = deadline(service.clocks, game.info.game_id, state)
        assert shown == {"seat": "p1", "at": "2026-11-29T12:00:45.000+00:00"}
        assert view(state, "p1")["current"] == "p1"
    app = create_app(Settings(redis_url=redis_url, key_prefix=keys.prefix))
    api = ApiClient(app.test_client())  # checks the response against openapi.yaml
    document = api.get(f"/v1/games/{game.info.game_id}").json
    assert document["deadline"] == shown


class _Deleter:
    """Plays like the random bot, but an operator deletes the game while it thinks;
    then it either answers (its append finds the game gone) or raises (its seat falls
    back to the timeout policy, which finds the game gone)."""

    name = "deleter"
    version = "1"
    delete: ClassVar[list[tuple[GameService, str]]] = []
    then_raise = False

    def choose(self, view, actions, rng):  # type: ignore[no-untyped-def]
        for service, game in self.delete:
            service.delete(game)
        self.delete.clear()
        if self.then_raise:
            raise RuntimeError("deleter")
        return rng.choice(actions)["command"]


register("deleter")(_Deleter)


@pytest.mark.parametrize("then_raise", [False, True])
def test_a_game_deleted_during_a_bot_turn_ends_its_job_quietly_as_gone(
    redis: redis_lib.Redis,
    keys: KeySpace,
    service: GameService,
    relay: Relay,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    then_raise: bool,
) -> None:
    monkeypatch.setattr(_Deleter, "then_raise", then_raise)
    seats = [SeatPlan("bot", bot="deleter") for _ in range(3)]
    game = service.create(seats=seats).info.game_id
    _Deleter.delete.append((service, game))
    with caplog.at_level(logging.INFO):
        drive(redis, keys, relay)
    assert not service.store.exists(game)
    games = queue(redis, keys)
    assert games.failed_job_registry.count == 0
    finished = [games.fetch_job(j) for j in games.finished_job_registry.get_job_ids()]
    assert [job.return_value() for job in finished if job] == ["gone"]
    tracebacks = [r for r in caplog.records if r.exc_info and "bot" not in r.getMessage()]
    assert tracebacks == []
    assert redis.zscore(keys.worker_leases(), game) is None


def _claim(service: GameService, game: str) -> dict[str, str]:
    state = service.load(game).state
    free = next(t for t in state.board.territory_names if t not in state.owner)
    return {"type": "claim_territory", "territory": free}


def test_a_person_cannot_freeze_the_next_bot_with_its_idempotency_key(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """Issue 13 item 4: p1 ends its step with the key the bot used to send next, then
    with the key the bot's last append was stored under: the bot still plays."""
    game = service.create(seats=person_and_two_bots()).info.game_id
    drive(redis, keys, relay)
    state = service.load(game).state
    order = state.order
    after = order[(order.index("p1") + 1) % len(order)]  # the bot that moves next
    old_bot_key = f"worker:{after}:{state.version + 1}"
    service.execute(game, "p1", _claim(service, game), idempotency_key=old_bot_key)
    version = state.version
    drive(redis, keys, relay)
    assert service.load(game).version > version + 1  # the bots played
    stored = [k.decode().rsplit(":idem:", 1)[1] for k in redis.scan_iter(match="*:idem:server:*")]
    assert stored
    for key in stored[:2]:
        version = service.load(game).version
        result = service.execute(game, "p1", _claim(service, game), idempotency_key=key)
        assert not result.replayed and result.version > version
        drive(redis, keys, relay)
    assert acting_seat(service.load(game).state) == "p1"
    assert redis.zcard(keys.worker_leases()) == 0


def test_a_job_that_meets_an_idempotency_mismatch_gives_up_loudly(
    redis: redis_lib.Redis,
    keys: KeySpace,
    service: GameService,
    relay: Relay,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = service.create(seats=person_and_two_bots()).info.game_id
    drive(redis, keys, relay)
    service.execute(game, "p1", _claim(service, game))
    loaded = service.load(game)
    version, bot = loaded.version, acting_seat(loaded.state)
    assert bot is not None and bot != "p1"
    # The bot's key already names another request (only a bug could make that).
    record = keys.game(game).idempotency(stored_idempotency_key(bot, None, server_key(version)))
    epoch = redis.hget(keys.game(game).meta, "e")
    redis.hset(record, mapping={"r": b"another request", "e": epoch, "f": 1, "l": 1, "h": b"x"})
    with caplog.at_level(logging.ERROR, logger="workers.jobs"):
        drive(redis, keys, relay)
    assert service.load(game).version == version
    games = queue(redis, keys)
    assert games.failed_job_registry.count == 1
    dead = redis.xrange(keys.job_dead_letters())
    assert [entry[b"game"] for _, entry in dead] == [game.encode()]
    assert any("giving up" in r.getMessage() for r in caplog.records)
    assert redis.zscore(keys.worker_leases(), game) is None  # the watchdog will not retry it
    assert relay.rescue() == 0


def test_a_deadline_job_that_runs_early_schedules_itself_again(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    game = service.create(seats=person_and_two_bots(), clock={"turn_seconds": 30}).info.game_id
    drive(redis, keys, relay)
    clocks = queue(redis, keys, CLOCKS_QUEUE)
    [scheduled] = clocks.scheduled_job_registry.get_job_ids()
    early = clocks.fetch_job(scheduled)
    assert early is not None
    clocks.enqueue("workers.jobs.enforce_deadline", *early.args)  # as if due a second early
    work(redis, keys, CLOCKS_QUEUE)
    again = set(clocks.scheduled_job_registry.get_job_ids()) - {scheduled}
    assert len(again) == 1
    deadline_ms = int(redis.hget(keys.clock(game), "deadline_ms") or 0)
    due = clocks.scheduled_job_registry.get_scheduled_time(again.pop())
    assert deadline_ms <= due.timestamp() * 1000 < deadline_ms + 1000


@pytest.mark.parametrize("deadline_ms", [1_800_000_000_000, 1_800_000_000_001, 1_800_000_000_999])
def test_a_deadline_is_scheduled_at_a_whole_second_never_before_it(deadline_ms: int) -> None:
    due = clock.due_at(deadline_ms).timestamp()
    assert due == int(due) and deadline_ms <= due * 1000 < deadline_ms + 1000


def test_a_deadline_job_lost_with_its_worker_is_made_again_by_the_watchdog(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """The worker died while running the deadline job (it had left the scheduled
    registry): the clock's lease wakes the game 10 s after the deadline, and the
    person is timed out then, with no scheduler needed."""
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(seats=person_and_two_bots(), clock={"turn_seconds": 10})
        game_id = game.info.game_id
        drive(redis, keys, relay)
        waiting = service.load(game_id).version
        clocks = queue(redis, keys, CLOCKS_QUEUE)
        for job_id in clocks.scheduled_job_registry.get_job_ids():  # lost in flight
            clocks.scheduled_job_registry.remove(job_id, delete_job=True)
        frozen.tick(15)
        assert relay.rescue() == 0  # a lease runs until 10 s after the deadline
        frozen.tick(6)
        assert relay.rescue() == 1
        work(redis, keys)
        work(redis, keys, CLOCKS_QUEUE)
        batch = decode_envelope(service.store.read(game_id, waiting + 1, waiting + 1)[0].payload)
        assert batch.actor == "p1" and (batch.bot or {}).get("reason") == "timeout"


class _Fickle:
    """Chooses differently each time: while it thinks, a rival job for the same seat and
    version appends another choice of the same bot under the same server key."""

    name = "fickle"
    version = "1"
    rival: ClassVar[list[tuple[GameService, str]]] = []

    def choose(self, view, actions, rng):  # type: ignore[no-untyped-def]
        for service, game in self.rival:
            loaded = service.load(game)
            seat = acting_seat(loaded.state)
            assert seat is not None
            first = actions[0]["command"]
            service.execute(
                game,
                seat,
                first,
                expected_version=loaded.version,
                server_key=server_key(loaded.version),
            )
        self.rival.clear()
        return actions[-1]["command"]


register("fickle")(_Fickle)


def test_a_rival_job_that_chose_otherwise_at_the_same_version_is_a_race_not_a_failure(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    seats = [SeatPlan("bot", bot="fickle") for _ in range(3)]  # whoever moves first
    game = service.create(seats=seats).info.game_id
    _Fickle.rival.append((service, game))
    relay.run_once(block_ms=1)
    work(redis, keys)
    games = queue(redis, keys)
    assert games.failed_job_registry.count == 0
    assert redis.xlen(keys.job_dead_letters()) == 0
    # The job that lost the race read the game again and played on from the rival's move.
    assert not _Fickle.rival
    stored = [decode_envelope(e.payload) for e in service.store.read(game)]
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    assert service.load(game).state.phase == FINISHED


class _Meddled:
    """Plays randomly; the first time it is to attack, another process (a service with
    a cache of its own) makes p3 resign while it thinks, so the state the job decided
    on (its own cache, current since its placement) is one move behind the store."""

    name = "meddled"
    version = "1"
    other: ClassVar[list[tuple[GameService, str]]] = []

    def choose(self, view, actions, rng):  # type: ignore[no-untyped-def]
        if view.phase == "attack" and self.other:
            service, game = self.other.pop()
            service.execute(game, "p3", {"type": "resign"})
        return rng.choice([a for a in actions if a["command"]["type"] != "resign"])["command"]


register("meddled")(_Meddled)


def test_a_bot_move_decided_on_a_state_another_process_moved_past_is_a_race_and_stores_nothing(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    # A job decides each move after its first on its process's cache (workers.jobs.Turn);
    # the append must refuse the one decided before p3's resignation, and the game go on.
    seats = [SeatPlan("bot", bot="meddled")] + [SeatPlan("bot", bot="random") for _ in range(2)]
    game = service.create(seats=seats).info.game_id
    _Meddled.other.append((GameService(redis, keys), game))
    drive(redis, keys, relay, rounds=5000)
    assert not _Meddled.other, "p1 never attacked"
    games = queue(redis, keys)
    assert games.failed_job_registry.count == 0  # the lost race was read again, not failed
    stored = [decode_envelope(e.payload) for e in service.store.read(game)]
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    resigned = [e.version for e in stored if e.event.TYPE == "player_resigned"]
    assert len(resigned) == 1
    # The game went on from the stored resignation: p3 moved no more.
    assert service.load(game).state.phase == FINISHED
    assert all(e.actor != "p3" for e in stored if e.version > resigned[0] and e.command)


def work_one(redis: redis_lib.Redis, keys: KeySpace) -> None:
    """Run exactly one job, taken as a worker takes it (``workers.queues.WORKER_QUEUES``)."""
    queues = [queue(redis, keys, n) for n in WORKER_QUEUES]
    worker = SimpleWorker(queues, connection=redis, serializer=JSONSerializer)
    worker.work(burst=True, max_jobs=1, logging_level="WARNING")


def _runs_and_commands(service: GameService, game: str, after: int = 0) -> tuple[set[str], int]:
    """The seats that made commands after version ``after``, and how many commands."""
    stored = [decode_envelope(e.payload) for e in service.store.read(game, after + 1)]
    commands = [e for e in stored if e.command is not None]
    return {e.actor for e in commands}, len(commands)


def test_one_job_plays_on_through_consecutive_bot_seats(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """One job, not one per seat or per append: setup claims of every bot in turn, in
    runs of commands appended together (fewer notifications than commands)."""
    seats = [SeatPlan("bot", bot="random") for _ in range(3)]
    game = service.create(seats=seats).info.game_id
    partition = keys.partition(game)
    start = service.store.notifications(partition)[-1].id
    assert relay.run_once(block_ms=1) == 1
    work_one(redis, keys)
    actors, commands = _runs_and_commands(service, game)
    assert actors == {"p1", "p2", "p3"}
    appends = service.store.notifications(partition, after=start)
    assert 1 < len(appends) < commands / 4
    games = queue(redis, keys)
    assert len(games.finished_job_registry) == 1


def test_a_persons_seat_stops_the_job_and_frees_the_game(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    game = service.create(seats=person_and_two_bots()).info.game_id
    drive(redis, keys, relay)
    state = service.load(game).state
    assert acting_seat(state) == "p1"
    service.execute(game, "p1", _claim(service, game), expected_version=state.version)
    assert relay.run_once(block_ms=1) == 1
    work_one(redis, keys)  # the job both bots' claims come from
    actors, commands = _runs_and_commands(service, game, state.version + 1)
    assert (actors, commands) == ({"p2", "p3"}, 2)
    assert acting_seat(service.load(game).state) == "p1"
    assert Claims(redis, keys).holder(game) is None
    assert redis.zscore(keys.worker_leases(), game) is None
    assert all(queue(redis, keys, n).count == 0 for n in WORKER_QUEUES)


def test_appends_while_a_job_waits_are_coalesced_into_it(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    humans = [SeatPlan("human"), SeatPlan("human"), SeatPlan("human")]
    game = service.create(seats=humans).info.game_id
    for _ in range(10):
        seat = acting_seat(service.load(game).state)
        assert seat is not None
        service.execute(game, seat, _claim(service, game))
    assert relay.run_once(block_ms=1) == 11
    games = queue(redis, keys)
    assert games.get_job_ids() == [Claims(redis, keys).holder(game)]
    work_one(redis, keys)
    [done] = games.finished_job_registry.get_job_ids()
    job = games.fetch_job(done)
    assert job is not None and job.return_value() == "waiting"
    assert Claims(redis, keys).holder(game) is None  # the next append makes a job again


def test_a_job_that_used_its_slice_waits_behind_new_work(
    redis: redis_lib.Redis,
    keys: KeySpace,
    service: GameService,
    relay: Relay,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fairness: after its slice a job hands its game to a job in the continued queue,
    which workers take only when nothing new waits: a move in another game is
    answered before every busy game's next slice."""
    slice_seconds = jobs.SLICE_SECONDS
    monkeypatch.setattr(jobs, "SLICE_SECONDS", 0.0)  # one run per job
    bots = [SeatPlan("bot", bot="random") for _ in range(2)]
    busy_ids = [service.create(seats=bots, mode="two_player").info.game_id for _ in range(2)]
    relay.run_once(block_ms=1)
    work_one(redis, keys)
    work_one(redis, keys)
    claims = Claims(redis, keys)
    continued = queue(redis, keys, CONTINUED_QUEUE)
    waiting = set(continued.get_job_ids())
    assert waiting == {claims.holder(g) for g in busy_ids} and None not in waiting
    relay.run_once(block_ms=1)  # their appends: coalesced into the jobs that hold them
    assert queue(redis, keys).count == 0
    humans = [SeatPlan("human"), SeatPlan("human")]
    other = service.create(seats=humans, mode="two_player").info.game_id
    relay.run_once(block_ms=1)
    work_one(redis, keys)
    assert set(continued.get_job_ids()) == waiting  # the new game's job went first
    assert claims.holder(other) is None
    monkeypatch.setattr(jobs, "SLICE_SECONDS", slice_seconds)  # the continued jobs play on
    drive(redis, keys, relay, rounds=5000)
    assert all(service.load(g).state.phase == FINISHED for g in busy_ids)


def test_the_watchdog_leaves_a_job_waiting_in_its_queue_alone(
    redis: redis_lib.Redis,
    keys: KeySpace,
    service: GameService,
    relay: Relay,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """100 busy games can keep a job queued longer than a lease: that is no loss, and
    making a second job for its game would only double the work."""
    seats = [SeatPlan("bot", bot="random") for _ in range(3)]
    claims = Claims(redis, keys)
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(seats=seats).info.game_id
        relay.run_once(block_ms=1)
        holder = claims.holder(game)
        frozen.tick(6)
        assert relay.rescue() == 1  # its lease ran out ...
        assert relay.stats.rescued == 0  # ... but its job still waits: more time, no job
        assert queue(redis, keys).get_job_ids() == [holder]
        assert redis.zscore(keys.worker_leases(), game) is not None
        monkeypatch.setattr(jobs, "SLICE_SECONDS", 0.0)
        work_one(redis, keys)  # one run, then the game waits in the continued queue
        continued = queue(redis, keys, CONTINUED_QUEUE).get_job_ids()
        assert continued == [claims.holder(game)]
        frozen.tick(6)
        assert relay.rescue() == 1 and relay.stats.rescued == 0
        assert queue(redis, keys, CONTINUED_QUEUE).get_job_ids() == continued


def test_a_game_whose_job_died_running_is_taken_over_by_the_watchdog(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """A worker killed in the middle of a job leaves the game claimed by a job that
    will never finish: once the lease runs out a new job takes the claim and plays on."""
    from rq.job import JobStatus

    seats = [SeatPlan("bot", bot="random") for _ in range(3)]
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(seats=seats).info.game_id
        relay.run_once(block_ms=1)
        claims = Claims(redis, keys)
        dead = claims.holder(game)
        games = queue(redis, keys)
        job = games.fetch_job(dead or "")
        assert job is not None
        games.remove(job)  # a worker took it ...
        job.set_status(JobStatus.STARTED)  # ... and was killed running it
        version = service.load(game).version
        relay.run_once(block_ms=1)
        work(redis, keys)
        assert service.load(game).version == version  # nobody else may play it meanwhile
        frozen.tick(6)
        assert relay.rescue() == 1 and relay.stats.rescued == 1
        assert claims.holder(game) not in (None, dead)
    drive(redis, keys, relay, rounds=5000)
    assert service.load(game).state.phase == FINISHED
    assert claims.holder(game) is None


def test_a_job_popped_and_lost_is_taken_over_by_the_watchdog(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """A worker's blocking pop can take a job and lose it with its connection (a
    socket timeout shorter than the pop; a worker killed between pop and start):
    the job stays queued by its status but is in no queue. Waiting for it would
    stall the game for good, so the watchdog takes the game over."""
    seats = [SeatPlan("bot", bot="random") for _ in range(3)]
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(seats=seats).info.game_id
        relay.run_once(block_ms=1)
        claims = Claims(redis, keys)
        lost = claims.holder(game)
        games = queue(redis, keys)
        assert games.get_job_ids() == [lost]
        redis.lpop(games.key)  # popped by a read that never came back
        assert games.fetch_job(lost or "").get_status() == "queued"  # type: ignore[union-attr]
        frozen.tick(6)
        assert relay.rescue() == 1 and relay.stats.rescued == 1
        assert claims.holder(game) not in (None, lost)
    drive(redis, keys, relay, rounds=5000)
    assert service.load(game).state.phase == FINISHED


def test_a_window_whose_clock_runs_out_is_passed(
    redis: redis_lib.Redis, keys: KeySpace, service: GameService, relay: Relay
) -> None:
    """Lord of the Rings: a person asked in a window (the Fellowship's or a defender's,
    002_84c66041fccdfcee.txt: "En del av dem kan spelas när det är någon annan spelares
    tur eller när brödraskapet försöker förflytta sig") who lets the clock run out
    is answered for: the heuristic bot the timeout plays for it passes at once, or plays a
    card of the seat's that the window allows (a defence card, when it holds one)."""
    with freeze_time("2026-11-29 12:00:00") as frozen:
        game = service.create(
            seats=person_and_two_bots(),
            mode="lotr",
            rules={"starting_armies": 16},
            clock={"turn_seconds": 30, "on_timeout": "bot"},
        ).info.game_id
        drive(redis, keys, relay)
        rnd = random.Random(7)
        for _ in range(2000):  # the person plays at random until a window asks it
            state = service.load(game).state
            assert state.phase != FINISHED, "no window asked the person"
            if state.phase in adventure.WINDOWS and acting_seat(state) == "p1":
                break
            assert acting_seat(state) == "p1"
            actions = [a for a in legal_actions(state, "p1") if a["command"]["type"] != "resign"]
            service.execute(game, "p1", rnd.choice(actions)["command"])
            drive(redis, keys, relay)
        waiting = service.load(game).version
        frozen.tick(31)
        _run_due_deadlines(redis, keys)
        batch = decode_envelope(service.store.read(game, waiting + 1, waiting + 1)[0].payload)
        assert batch.actor == "p1" and batch.bot is not None and batch.bot["reason"] == "timeout"
        answered = (adventure.AdventureWindowPassed, adventure.AdventurePlayed)
        assert isinstance(batch.event, answered) and batch.event.seat == "p1", batch.event
