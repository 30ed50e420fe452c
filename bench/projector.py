"""The projector's batch (issue 48): what one batch of busy games costs it to summarise
and to write, each lever against its baseline in the same run. Prints one JSON object.

    .venv/bin/python bench/projector.py [--games 100] [--rounds 12] [--commands 20]
        [--ahead 600] [--archive-rows 100000]

``--games`` games of four random bots are played in this process (each started
up to ``--ahead`` commands in, so that some end during the rounds), ``--commands``
commands each between two batches (what 100 games gain in ~0.2 s at the 10,000
commands/s of ``bench/workers.py``'s load); after each round every game is
summarised and written as the projector does, in two ways on the same batch:

* ``summaries``: ``workers.archiving.Summaries`` (both ends of each stream read
  in one round trip, the game's setup cached, one event decoded) against the
  fold the projector used before (its cached state caught up by every event
  since the last batch, then the first and last envelopes read and decoded
  again: ``folded_row`` below); the rows must be the same (``updated_ms``
  aside), so the bench checks the one against the other too;
* ``write``: ``Archive.write`` of the batch's rows into SQLite with its
  statements built once (as it does now) against building them again for each
  write (as it did);
* ``records_poll``: the records process's look for work (finished games without
  a record) over ``--archive-rows`` finished and recorded games: the partial
  index of migration 0004 against the join it made before (which read every
  finished game), same file.

Each figure is the median of the rounds' CPU milliseconds (``time.process_time``,
so the machine's other work weighs little) and wall milliseconds; each ratio is
the baseline over the lever. Needs REDIS_URL (its own key prefix, removed after).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import redis
import sqlalchemy as sa

from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.protocol import events as ev
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.archived import info_json
from service.application.games import GameService, SeatPlan
from service.application.lobby import FINISHED as DONE
from service.application.lobby import RUNNING
from service.store.archive import Archive, GameRow, RecordRow, SeatRow
from service.store.database import create_engine, migrate
from service.store.keys import KeySpace

# The script's folder comes first on sys.path, and bench/workers.py would stand for
# the ``workers`` package, which is what this bench measures.
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
from workers.archiving import Summaries  # noqa: E402


def folded_row(service: GameService, game_id: str) -> GameRow:
    """A game's row as the projector built it before: its state folded up to now."""
    info, loaded = service.current(game_id)
    assert loaded is not None
    state = loaded.state
    finished = state.phase == FINISHED
    winners = set(state.winners) | ({state.winner} if state.winner else set())
    first = service.log.envelopes(game_id, 1, 1)[0].event
    parent = first.parent_game_id if isinstance(first, ev.GameForked) else None
    outcome, finished_ms = None, None
    if finished:
        last = service.log.envelopes(game_id, loaded.version, loaded.version)[0]
        outcome = last.event.reason if isinstance(last.event, ev.GameFinished) else None
        finished_ms = last.time_ms
    seats = tuple(
        SeatRow(
            s.seat, s.kind, s.shown_name, s.bot, s.level, s.account,
            ("won" if s.seat in winners else "lost") if finished else None,
        )
        for s in info.seats
    )  # fmt: skip
    return GameRow(
        game_id, info.mode, info.board, DONE if finished else RUNNING, info.created_ms,
        int(time.time() * 1000), loaded.version, loaded.hash.hex(), info_json(info), seats,
        state.winner, outcome, info.tournament, parent, finished_ms,
    )  # fmt: skip


def folded_rows(service: GameService, game_ids: list[str]) -> list[GameRow]:
    return [folded_row(service, game_id) for game_id in game_ids]


class Players:
    """``games`` games of four random bots, played ``commands`` commands at a time."""

    def __init__(self, service: GameService, games: int, ahead: int) -> None:
        """Each game starts up to ``ahead`` commands in (so that some end during the
        rounds and their finished rows are compared too)."""
        self.service = service
        self.bot, self.rng = get_bot("random"), random.Random(48)
        self.games = [self._new() for _ in range(games)]
        for index in range(games):
            self._play(index, self.rng.randrange(ahead + 1))

    def _new(self) -> str:
        seats = [SeatPlan("human") for _ in range(4)]
        return self.service.create(seats=seats).info.game_id

    def advance(self, commands: int) -> list[str]:
        """Each game ``commands`` commands on; a game that ends is replaced by a new one.
        The games that moved (those that ended too)."""
        moved = []
        for index in range(len(self.games)):
            moved.append(self.games[index])
            if self._play(index, commands):
                moved.append(self.games[index])
        return moved

    def _play(self, index: int, commands: int) -> bool:
        """Game ``index`` ``commands`` commands on; True if it ended (and was replaced)."""
        ended = False
        for _ in range(commands):
            state = self.service.load_cached(self.games[index]).state
            if state.phase == FINISHED:
                self.games[index], ended = self._new(), True
                continue
            seat = acting_seat(state)
            assert seat is not None
            body = self.bot.choose(SeatView(state, seat), legal_actions(state, seat), self.rng)
            game_id = self.games[index]
            self.service.execute(game_id, seat, body, expected_version=state.version)
        return ended


def timed(work: Callable[..., Any], *args: Any) -> tuple[Any, float, float]:
    """(``work(*args)``, CPU ms, wall ms)."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = work(*args)
    return result, (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def same(rows: list[GameRow], others: list[GameRow]) -> bool:
    return [replace(r, updated_ms=0) for r in rows] == [replace(r, updated_ms=0) for r in others]


def run(redis_url: str, games: int, rounds: int, commands: int, ahead: int) -> dict[str, Any]:
    client = redis.Redis.from_url(redis_url)
    keys = KeySpace(f"bench-projector-{uuid.uuid4().hex[:8]}")
    folder = Path(tempfile.mkdtemp(prefix="risk-projector-bench-"))
    urls = [f"sqlite:///{folder / name}" for name in ("built.db", "kept.db")]
    for url in urls:
        migrate(url)
    built, kept = (Archive(create_engine(url)) for url in urls)
    players = Players(GameService(client, keys), games, ahead)
    folding = GameService(client, keys, cache_games=256)  # the projector's own service
    summaries = Summaries(GameService(client, keys, cache_games=256))
    figures: dict[str, list[float]] = {}
    events = finished = 0
    try:
        for number in range(rounds + 1):  # the first round warms both caches
            before = {g: folding.log.version(g) for g in players.games}
            ids = players.advance(commands)
            events += sum(folding.log.version(g) - before.get(g, 0) for g in ids)
            finished += sum(1 for g in ids if g not in players.games)
            old, old_cpu, old_wall = timed(folded_rows, folding, ids)
            new, new_cpu, new_wall = timed(summaries.rows, ids)
            if not same(old, new):
                raise SystemExit("the rows differ from the folded ones")
            for attribute in ("_upsert_games", "_upsert_seats", "_insert_records"):
                built.__dict__.pop(attribute, None)  # built again, as each write did before
            _, build_cpu, build_wall = timed(built.write, new, [], 0)
            _, keep_cpu, keep_wall = timed(kept.write, new, [], 0)
            if number:
                for name, value in (
                    ("fold_cpu", old_cpu), ("fold_wall", old_wall),
                    ("ends_cpu", new_cpu), ("ends_wall", new_wall),
                    ("built_cpu", build_cpu), ("built_wall", build_wall),
                    ("kept_cpu", keep_cpu), ("kept_wall", keep_wall),
                ):  # fmt: skip
                    figures.setdefault(name, []).append(value)
    finally:
        for key in client.scan_iter(f"{keys.prefix}*", count=1000):
            client.delete(key)
        built.engine.dispose()
        kept.engine.dispose()
    median = {name: statistics.median(values) for name, values in figures.items()}
    return {
        "games": games,
        "rounds": rounds,
        "commands_per_game_per_round": commands,
        "events_per_round": round(events / (rounds + 1)),
        "games_finished": finished,
        "summaries": {
            "baseline_fold_cpu_ms": round(median["fold_cpu"], 1),
            "baseline_fold_wall_ms": round(median["fold_wall"], 1),
            "ends_cpu_ms": round(median["ends_cpu"], 1),
            "ends_wall_ms": round(median["ends_wall"], 1),
            "ratio_cpu": round(median["fold_cpu"] / median["ends_cpu"], 1),
            "same_rows": True,
        },
        "write": {
            "baseline_built_cpu_ms": round(median["built_cpu"], 1),
            "baseline_built_wall_ms": round(median["built_wall"], 1),
            "kept_cpu_ms": round(median["kept_cpu"], 1),
            "kept_wall_ms": round(median["kept_wall"], 1),
            "ratio_cpu": round(median["built_cpu"] / median["kept_cpu"], 1),
        },
    }


def records_poll(rows: int, polls: int = 20) -> dict[str, Any]:
    """The records process's poll for work (finished games without a record) over an
    archive of ``rows`` finished games, all recorded: its query now (the partial
    index) against the join it made before, on the same SQLite file."""
    url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='risk-projector-bench-')) / 'poll.db'}"
    migrate(url)
    archive = Archive(create_engine(url))
    seats = (SeatRow("p1", "human", "ann"), SeatRow("p2", "human", "bob"))
    for start in range(0, rows, 5000):
        ids = [f"g{n:07d}" for n in range(start, min(start + 5000, rows))]
        games = [
            GameRow(g, "classic", "classic", DONE, n, n, 9, "0" * 64, "{}", seats, "p1", "x",
                    finished_ms=n + 1)
            for n, g in enumerate(ids, start)
        ]  # fmt: skip
        archive.write(games, [RecordRow(g, b"x", 9, 1) for g in ids], 0)
    joined = sa.text(
        "SELECT g.game_id FROM archived_games g LEFT OUTER JOIN archived_records r"
        " ON r.game_id = g.game_id WHERE g.status = 'finished' AND r.game_id IS NULL"
        " ORDER BY g.finished_ms LIMIT 16"
    )

    def join() -> list[str]:
        with archive.engine.connect() as connection:
            return list(connection.execute(joined).scalars())

    try:
        before = [timed(join) for _ in range(polls)]
        now = [timed(archive.unrecorded, 16) for _ in range(polls)]
    finally:
        archive.engine.dispose()
    assert all(found == [] for found, _, _ in before + now)
    join_ms = statistics.median(cpu for _, cpu, _ in before)
    index_ms = statistics.median(cpu for _, cpu, _ in now)
    return {
        "finished_games": rows,
        "baseline_join_cpu_ms": round(join_ms, 2),
        "index_cpu_ms": round(index_ms, 2),
        "ratio_cpu": round(join_ms / index_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--ahead", type=int, default=600, help="commands a game starts in, at most")
    parser.add_argument("--archive-rows", type=int, default=100_000)
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    result = {"benchmark": "projector", "python": platform.python_version()}
    result |= run(redis_url, args.games, args.rounds, args.commands, args.ahead)
    result["records_poll"] = records_poll(args.archive_rows)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
