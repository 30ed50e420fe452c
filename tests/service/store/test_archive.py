"""The archive's store (issue 48), on SQLite and on PostgreSQL: idempotent writes
(a repeat or an older summary changes nothing), a record kept once, and the
history's filters, order and cursor paging."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from service.store.archive import Archive, ArchiveUnavailable, Filters, GameRow, RecordRow, SeatRow
from service.store.database import create_engine, migrate


@pytest.fixture
def archive(database_url: str) -> Iterator[Archive]:
    engine = create_engine(database_url)
    yield Archive(engine)
    engine.dispose()


def game(
    game_id: str,
    created: int,
    *,
    version: int = 10,
    status: str = "finished",
    mode: str = "classic",
    board: str = "classic",
    names: tuple[str, ...] = ("Ada", "Bo", "Cy"),
    winner: str | None = "p1",
) -> GameRow:
    done = status == "finished"
    seats = tuple(
        SeatRow(
            f"p{i + 1}",
            "human",
            name,
            result=(("won" if f"p{i + 1}" == winner else "lost") if done else None),
        )
        for i, name in enumerate(names)
    )
    return GameRow(
        game_id=game_id,
        mode=mode,
        board=board,
        status=status,
        created_ms=created,
        updated_ms=created,
        version=version,
        head=f"{version:064x}",
        info="{}",
        seats=seats,
        winner=winner if done else None,
        finished_ms=created + 1000 if done else None,
    )


def record(game_id: str, text: str = '{"a":1},{"b":2}') -> RecordRow:
    return RecordRow(game_id, gzip.compress(text.encode(), mtime=0), 2, len(text))


def test_a_repeated_or_older_summary_changes_nothing(archive: Archive) -> None:
    """Idempotent projection: the newest version wins, whatever the order."""
    archive.write([game("g1", 1, version=20)], [record("g1")], 5)
    archive.write([game("g1", 1, version=20)], [record("g1", "other")], 6)  # a repeat
    archive.write([game("g1", 1, version=3, status="running")], [], 7)  # a stale one
    found = archive.get("g1")
    assert found is not None
    assert (found.row.version, found.row.status, found.row.winner) == (20, "finished", "p1")
    assert [s.result for s in found.row.seats] == ["won", "lost", "lost"]
    assert gzip.decompress(found.record or b"") == b'{"a":1},{"b":2}'  # the first, kept
    assert archive.count() == 1 and archive.recorded(["g1", "g2"]) == {"g1"}


def test_a_running_game_is_summarised_and_then_finished(archive: Archive) -> None:
    archive.write([game("g1", 1, version=5, status="running")], [], 1)
    assert archive.get("g1").record is None  # type: ignore[union-attr]
    archive.write([game("g1", 1, version=50)], [record("g1")], 2)
    found = archive.get("g1")
    assert found is not None and found.row.status == "finished" and found.record is not None
    assert archive.get("nope") is None


def test_history_filters_order_and_cursor(archive: Archive) -> None:
    rows = [
        game(f"g{n:03d}", 1000 + n, mode="classic" if n % 3 else "team", winner=f"p{n % 3 + 1}")
        for n in range(30)
    ]
    rows.append(game("running", 2000, status="running", names=("Ada", "Dee")))
    archive.write(rows, [record(r.game_id) for r in rows[:10]], 1)
    seen, cursor = [], None
    while True:
        page, cursor = archive.page(Filters(), 7, cursor)
        seen += [r.game_id for r in page]
        if cursor is None:
            break
    assert seen == ["running", *[f"g{n:03d}" for n in reversed(range(30))]]
    team = archive.page(Filters(mode="team"), 100)[0]
    assert [r.game_id for r in team] == [f"g{n:03d}" for n in reversed(range(0, 30, 3))]
    won = archive.page(Filters(player="Ada", result="won"), 100)[0]
    assert {r.game_id for r in won} == {f"g{n:03d}" for n in range(30) if n % 3 == 0}
    assert all(r.seats[0].result == "won" for r in won)
    by_time = archive.page(Filters(player="Ada", since=1010, until=1020), 100)[0]
    assert [r.game_id for r in by_time] == [f"g{n:03d}" for n in reversed(range(10, 20))]
    assert archive.page(Filters(status="running"), 5)[0][0].game_id == "running"
    assert archive.page(Filters(player="Dee", mode="classic"), 5)[0][0].game_id == "running"
    exported = list(archive.records(Filters()))
    assert [gid for gid, _ in exported] == [f"g{n:03d}" for n in reversed(range(10))]
    assert [gid for gid, _ in archive.records(Filters(mode="team"), limit=2)] == ["g009", "g006"]


def test_export_pages_through_many_records(archive: Archive) -> None:
    rows = [game(f"g{n:04d}", n) for n in range(450)]
    archive.write(rows, [record(r.game_id) for r in rows], 1)
    ids = [gid for gid, _ in archive.records(Filters())]
    assert ids == [f"g{n:04d}" for n in reversed(range(450))]


def test_pruning_drops_games_finished_before_the_cutoff(archive: Archive) -> None:
    archive.write([game("old", 1), game("new", 10_000), game("live", 1, status="running")], [], 1)
    archive.write([], [record("old")], 1)
    assert archive.prune(5_000) == 1
    assert archive.get("old") is None and archive.recorded(["old"]) == set()
    assert {r.game_id for r in archive.page(Filters(), 10)[0]} == {"new", "live"}


def test_a_database_that_is_not_there_is_archive_unavailable(tmp_path: object) -> None:
    """Not migrated (and not allowed to migrate itself): a 503 for the reads that need it."""
    engine = create_engine(f"sqlite:///{tmp_path}/empty.db")
    try:
        with pytest.raises(ArchiveUnavailable):
            Archive(engine).get("g1")
        assert Archive(engine, migrate_on_first_use=True).get("g1") is None  # migrates
    finally:
        engine.dispose()


def test_the_records_still_to_archive_are_found_in_their_index(
    archive: Archive, database_url: str
) -> None:
    """The projector's records process asks for finished games without a record many
    times a second: a look-up in the partial index of exactly those (migration 0005),
    which a newer summary of a recorded game never puts back."""
    archive.write([game(f"g{n}", 10 - n) for n in range(4)], [record("g1")], 1)
    archive.write([game("g9", 0, status="running")], [], 1)
    assert archive.unrecorded(10) == ["g3", "g2", "g0"]  # the oldest end first
    assert archive.unrecorded(1) == ["g3"]
    archive.write([], [record("g3")], 2)
    archive.write([game("g1", 9, version=99)], [], 3)  # a newer summary of a recorded game
    assert archive.unrecorded(10) == ["g2", "g0"]
    query = archive.unrecorded_query(16).compile(
        archive.engine, compile_kwargs={"literal_binds": True}
    )
    with archive.engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if not sqlite:
            connection.exec_driver_sql("SET enable_seqscan = off")  # a handful of rows
        explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
        plan = connection.exec_driver_sql(explain + str(query)).all()
    assert "ix_archived_games_unrecorded" in " ".join(str(row) for row in plan)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_migration_0005_marks_the_games_already_recorded(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """An archive from before migration 0005: the games whose record it holds are
    marked recorded, so only the others are looked for."""
    with _database_at("0004_challenges", backend, tmp_path, request) as url:
        engine = create_engine(url)
        try:
            with engine.begin() as connection:
                for game_id in ("old1", "old2"):
                    connection.execute(
                        sa.text(
                            "INSERT INTO archived_games (game_id, mode, board, status,"
                            " created_ms, finished_ms, updated_ms, version, head, seat_count,"
                            " info) VALUES (:g, 'classic', 'classic', 'finished', 1, 2, 2, 5,"
                            " 'h', 0, '{}')"
                        ),
                        {"g": game_id},
                    )
                connection.execute(
                    sa.text(
                        "INSERT INTO archived_records (game_id, record, events, size,"
                        " archived_ms) VALUES ('old1', :r, 1, 1, 3)"
                    ),
                    {"r": b"x"},
                )
            migrate(url)
            assert Archive(engine).unrecorded(10) == ["old2"]
        finally:
            engine.dispose()


@contextmanager
def _database_at(
    revision: str, backend: str, folder: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'old.db'}"
        migrate(url, revision)
        yield url
        return
    from tests.sql import postgres_database, postgres_problem

    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    with postgres_database(revision) as url:
        yield url
