"""The projector (issue 48): outbox notifications into the archive, on SQLite and
PostgreSQL, exactly once whatever happens: repeated notifications, a projector
killed before its commit or between its commit and its acknowledgement, the
database away for a while."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator

import pytest
import redis as redis_lib

from riskcore.audit.verify import verify_text
from riskcore.simulate import acting_seat
from service.application.archived import record_text
from service.application.games import GameService, SeatPlan
from service.application.records import export
from service.store.archive import Archive, Filters
from service.store.database import create_engine
from service.store.keys import KeySpace
from tests.service.application.test_records import play
from workers.projector import GROUP, Entry, Projector


@pytest.fixture
def service(redis: redis_lib.Redis, key_prefix: str) -> GameService:
    return GameService(redis, KeySpace(key_prefix))


@pytest.fixture
def archive(database_url: str) -> Iterator[Archive]:
    engine = create_engine(database_url)
    yield Archive(engine)
    engine.dispose()


def resigned(service: GameService) -> str:
    """A three-seat game ended by two resignations (a few dozen events)."""
    game = service.create(seats=[SeatPlan("human") for _ in range(3)], rules={"setup": "deal"})
    game_id = game.info.game_id
    for _ in range(2):
        seat = acting_seat(service.load(game_id).state)
        assert seat is not None
        service.execute(game_id, seat, {"type": "resign"})
    return game_id


def projector(
    redis: redis_lib.Redis, service: GameService, archive: Archive, **kw: object
) -> Projector:
    found = Projector(redis, service, archive, **kw)  # type: ignore[arg-type]
    found.ensure_groups()
    return found


def drain(worker: Projector) -> None:
    """Project every notification waiting, then every finished game's record."""
    while worker.run_once(block_ms=10):
        pass
    while worker.archive_records(budget_seconds=5):
        pass


def pending(redis: redis_lib.Redis, keys: KeySpace) -> int:
    return sum(int(redis.xpending(s, GROUP)["pending"]) for s in keys.outboxes())


def test_finished_and_running_games_are_archived_with_verified_records(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    """A game's many notifications make one row; a finished one's record is the one
    `risk verify` passes, kept compressed (bytes per event far below Redis' 166)."""
    finished = service.create(seats=[SeatPlan("human") for _ in range(3)]).info.game_id
    play(service, finished)
    running = service.create(seats=[SeatPlan("human") for _ in range(3)]).info.game_id
    worker = projector(redis, service, archive)
    drain(worker)
    assert pending(redis, service.keys) == 0
    rows = {r.game_id: r for r in archive.page(Filters(), 10)[0]}
    assert set(rows) == {finished, running}
    assert rows[running].status == "running" and rows[running].finished_ms is None
    done = rows[finished]
    assert done.status == "finished" and done.winner and done.outcome
    assert sorted(s.result for s in done.seats) == ["lost", "lost", "won"]
    stored = archive.get(finished)
    assert stored is not None and stored.record is not None
    text = record_text(stored.record)
    assert text == export(service, finished)
    assert verify_text(text).ok
    version = service.load(finished).version
    assert len(stored.record) / version < 100  # bytes per event, compressed
    assert worker.stats.records == 1 and worker.stats.notifications >= 2
    assert worker.archive_records(1) == 0  # nothing left to do


@pytest.mark.parametrize("count", [500, 40])
def test_coalescing_never_loses_a_games_final_state(
    redis: redis_lib.Redis, service: GameService, archive: Archive, count: int
) -> None:
    """A batch's notifications make one row a game, its newest (a batch reads up to
    ``count`` of each outbox); however they fall into batches, the row ends as the
    game is last: finished with its result, and a running game at its head."""
    seats = [SeatPlan("human") for _ in range(3)]
    finished = service.create(seats=seats, seed=bytes([6]) * 32).info.game_id  # 720 events
    play(service, finished)
    running = resigned_once(service)
    notifications = sum(len(redis.xrange(outbox)) for outbox in service.keys.outboxes())
    worker = projector(redis, service, archive, count=count)
    drain(worker)
    assert worker.stats.notifications == notifications > 100
    assert worker.stats.games <= 2 * worker.stats.batches < notifications  # one row a game
    done, going = archive.get(finished), archive.get(running)
    assert done is not None and going is not None
    final = service.load(finished)
    assert (done.row.version, done.row.head) == (final.version, final.hash.hex())
    assert done.row.status == "finished" and done.row.winner == final.state.winner
    assert done.row.finished_ms is not None and done.record is not None
    head = service.load(running)
    assert (going.row.version, going.row.head, going.row.status) == (
        head.version,
        head.hash.hex(),
        "running",
    )


def resigned_once(service: GameService) -> str:
    """A three-seat game one resignation in: still running."""
    game = service.create(seats=[SeatPlan("human") for _ in range(3)], rules={"setup": "deal"})
    game_id = game.info.game_id
    seat = acting_seat(service.load(game_id).state)
    assert seat is not None
    service.execute(game_id, seat, {"type": "resign"})
    return game_id


def test_a_repeated_notification_changes_nothing(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    game = resigned(service)
    worker = projector(redis, service, archive)
    drain(worker)
    before = archive.get(game)
    outbox = service.keys.outboxes()[service.keys.partition(game)]
    for _entry_id, fields in redis.xrange(outbox):
        redis.xadd(outbox, fields)  # the same notifications, delivered again
    drain(worker)
    assert archive.get(game) == before and archive.count() == 1
    assert len(list(archive.records(Filters()))) == 1


def test_a_projector_killed_before_its_commit_loses_nothing(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    """Read, then killed: the entries stay pending; its restart reads them first, and
    another projector takes them over once they have waited ``claim_idle_ms``."""
    first, second = resigned(service), resigned(service)
    dead = projector(redis, service, archive, consumer="host-a")
    assert dead._read(10)  # read, never committed nor acknowledged: killed here
    assert pending(redis, service.keys) > 0
    restarted = projector(redis, service, archive, consumer="host-a")
    drain(restarted)
    assert pending(redis, service.keys) == 0
    assert archive.recorded([first, second]) == {first, second}
    third = resigned(service)
    assert projector(redis, service, archive, consumer="host-b")._read(10)  # killed too
    other = projector(redis, service, archive, consumer="host-c", claim_idle_ms=0)
    assert other.reclaim() > 0
    drain(other)
    assert pending(redis, service.keys) == 0 and archive.recorded([third]) == {third}


class _KilledAfterCommit(Projector):
    def _acknowledge(self, entries: object) -> None:
        raise SystemExit("killed between the commit and the acknowledgement")


def test_a_projector_killed_after_its_commit_doubles_nothing(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    game = resigned(service)
    killed = _KilledAfterCommit(redis, service, archive, consumer="host-a")
    killed.ensure_groups()
    with pytest.raises(SystemExit):
        killed.run_once(10)
    assert archive.get(game) is not None and pending(redis, service.keys) > 0
    assert killed.archive_records(5) == 1  # what is left to do is read from the archive
    committed = archive.get(game)
    drain(projector(redis, service, archive, consumer="host-a"))
    assert pending(redis, service.keys) == 0
    assert archive.get(game) == committed and archive.count() == 1


def test_the_projector_catches_up_after_the_database_was_away(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    """Games finish while the database is away; once it is back they are archived."""
    away = create_engine("postgresql://postgres@127.0.0.1:1/none")  # nothing listens there
    worker = projector(redis, service, Archive(away))
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop, 20))
    thread.start()
    try:
        games = [resigned(service) for _ in range(3)]
        time.sleep(1.2)
        assert pending(redis, service.keys) > 0  # read, failed, kept
        worker.archive = archive  # the database is back
        deadline = time.monotonic() + 15
        while archive.recorded(games) != set(games) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop.set()
        thread.join(10)
        away.dispose()
    assert archive.recorded(games) == set(games)
    assert pending(redis, service.keys) == 0


def test_a_game_deleted_before_it_was_projected_is_skipped(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    game = resigned(service)
    service.delete(game)
    worker = projector(redis, service, archive)
    drain(worker)
    assert archive.count() == 0 and worker.stats.gone == 1
    assert pending(redis, service.keys) == 0


def test_entry_times_come_from_their_stream_ids() -> None:
    assert Entry("s", "1764000000123-4", {}).ms == 1764000000123
    assert gzip.decompress(gzip.compress(b"x", mtime=0)) == b"x"


def test_retention_drops_games_finished_longer_ago_than_archive_days(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    """RISK_ARCHIVE_DAYS: the projector prunes what finished before the horizon."""
    game = resigned(service)
    now = [int(time.time() * 1000)]
    worker = projector(redis, service, archive, archive_days=1, now_ms=lambda: now[0])
    drain(worker)
    assert worker.prune() == 0 and archive.get(game) is not None
    now[0] += 2 * 86_400_000 + 600_000
    assert worker.prune() == 1 and archive.get(game) is None


def test_a_record_that_does_not_verify_is_dead_lettered_and_never_archived(
    redis: redis_lib.Redis, service: GameService, archive: Archive
) -> None:
    """Issue 48: a finished game's record is archived only if it verifies; one that does
    not goes to the dead letters with the reason, its row is archived all the same,
    and it is set aside (``risk archive backfill`` tries again)."""
    game = resigned(service)
    lines = export(service, game).splitlines(keepends=True)
    lines[2], lines[3] = lines[3], lines[2]  # two events out of order: the chain breaks
    service.computed.keep_export(game, "".join(lines), 0)
    worker = projector(redis, service, archive)
    drain(worker)
    stored = archive.get(game)
    assert stored is not None and stored.row.status == "finished" and stored.record is None
    dead = redis.xrange(service.keys.projector_dead_letters())
    assert [fields[b"game"].decode() for _, fields in dead] == [game]
    assert dead[0][1][b"error"]
    assert worker.stats.refused == 1 and worker.archive_records(1) == 0
    assert pending(redis, service.keys) == 0
