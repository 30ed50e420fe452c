"""Tournaments over the API (issue 19), their games played by real RQ jobs on the
test Redis: creation, bad input refused with nothing stored, live standings,
ratings consistent with the results, every game an ordinary verifiable game."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
import redis as redis_lib
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from riskcore.model.state import FINISHED
from service.application.games import GameService
from service.application.tournaments import Tournaments
from service.http.app import create_app
from service.settings import Settings
from service.store.keys import KeySpace
from tests.service.api_helpers import ApiClient, problem
from workers.queues import WORKER_QUEUES, queue
from workers.relay import Relay

THREE_BOTS = [{"level": "easy"}, {"bot": "heuristic"}, {"bot": "heuristic", "name": "Other"}]


@pytest.fixture
def relay(redis: redis_lib.Redis, key_prefix: str) -> Relay:
    keys = KeySpace(key_prefix)
    relay = Relay(redis, keys, queue(redis, keys), consumer="test")
    relay.ensure_groups()
    return relay


def drive(redis: redis_lib.Redis, key_prefix: str, relay: Relay, rounds: int = 20_000) -> None:
    """Relay then work, until nothing is left to do (tournament jobs included), taking
    the queues as a worker does (``workers.queues.WORKER_QUEUES``)."""
    keys = KeySpace(key_prefix)
    queues = [queue(redis, keys, name) for name in WORKER_QUEUES]
    worker = SimpleWorker(queues, connection=redis, serializer=JSONSerializer)
    for _ in range(rounds):
        if relay.run_once(block_ms=1) == 0 and not any(q.count for q in queues):
            return
        worker.work(burst=True, logging_level="WARNING")


def create(api: ApiClient, **body: Any) -> dict[str, Any]:
    response = api.post("/v1/tournaments", json={"entrants": THREE_BOTS, **body})
    assert response.status_code == 201, response.json
    document: dict[str, Any] = response.json["tournament"]
    assert response.headers["Location"] == f"/v1/tournaments/{document['tournament_id']}"
    return document


def test_a_round_robin_of_three_bots_is_played_by_the_workers(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay, service: GameService
) -> None:
    created = create(api, players=3, parallel=2)
    assert created["games_total"] == 3  # 1 pairing x 3 seat orders
    assert [g["status"] for g in created["games"]] == ["running"] * 2 + ["scheduled"]
    assert created["seed"] is None and len(created["seed_commitment"]) == 64
    tid = created["tournament_id"]
    drive(redis, key_prefix, relay)
    done = api.get(f"/v1/tournaments/{tid}").json
    assert done["status"] == "finished" and done["games_finished"] == 3
    wins: dict[str, float] = {}
    lobby = {g["game_id"] for g in api.get("/v1/games", query_string={"limit": 100}).json["games"]}
    for game in done["games"]:
        assert game["status"] == "finished"
        loaded = service.load(game["game_id"]).state
        assert loaded.phase == FINISHED
        assert game["game_id"] in lobby  # every tournament game is in the lobby
        seat_of = {f"p{i}": e for i, e in enumerate(game["seats"], 1)}
        assert game["winners"] == [seat_of[s] for s in loaded.winners or (loaded.winner,)]
        for winner in game["winners"]:
            wins[winner] = wins.get(winner, 0) + 1 / len(game["winners"])
        verified = api.post(
            "/v1/records/verify", data=_record(api, game), content_type="application/x-ndjson"
        )
        assert verified.json["status"] == "verified", verified.json
    rows = {row["entrant"]: row for row in done["standings"]}
    assert {e: rows[e]["wins"] for e in rows} == {e: wins.get(e, 0) for e in rows}
    assert all(row["games"] == 3 for row in rows.values())
    ordinals = [row["rating"]["ordinal"] for row in done["standings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert done["seed"] is not None  # revealed once it is over
    assert_feed_ends_with(api, tid, done)


def test_a_game_deleted_by_the_operator_is_void(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay, service: GameService
) -> None:
    """The tournament goes on without it, and it counts in no entrant's games, places
    or rating (a tie of everyone would lift each entrant's mean place)."""
    created = create(api, players=3, parallel=2)
    deleted = created["games"][0]["game_id"]
    service.delete(deleted)
    drive(redis, key_prefix, relay)
    done = api.get(f"/v1/tournaments/{created['tournament_id']}").json
    assert done["status"] == "finished" and done["games_finished"] == 3
    void = next(g for g in done["games"] if g["game_id"] == deleted)
    assert void["winners"] == [] and not void["places"]
    assert all(row["games"] == 2 for row in done["standings"])


def assert_feed_ends_with(api: ApiClient, tid: str, done: dict[str, Any]) -> None:
    """The stream sends the standings, then ``end`` since the tournament is over."""
    response = api.get(f"/v1/tournaments/{tid}/stream")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    text = response.get_data(as_text=True)
    assert "event: tournament\n" in text and text.rstrip().endswith("event: end\ndata: {}")
    frame = next(line for line in text.splitlines() if line.startswith('data: {"tournament_id'))
    assert json.loads(frame.removeprefix("data: "))["standings"] == done["standings"]


def _record(api: ApiClient, game: dict[str, Any]) -> bytes:
    response = api.get(f"/v1/games/{game['game_id']}/record")
    assert response.status_code == 200
    return response.data


def test_tournament_games_are_ordinary_games_with_entrant_seats(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str
) -> None:
    created = create(api, players=3, parallel=1)
    game = created["games"][0]
    summary = api.get(f"/v1/games/{game['game_id']}").json
    names = [s["name"] for s in summary["seats"]]
    by_id = {e["id"]: e for e in created["entrants"]}
    assert names == [by_id[e]["name"] for e in game["seats"]]
    levels = [(s["controller"], s["bot"], s["level"]) for s in summary["seats"]]
    assert ("bot", "heuristic", "easy") in levels
    listed = {g["game_id"]: g for g in api.get("/v1/games").json["games"]}
    assert listed[game["game_id"]]["tournament"] == created["tournament_id"]


def test_a_tournament_of_a_middle_earth_mode_is_played_on_its_board(api: ApiClient) -> None:
    """A mode brings its board, in a tournament's games as in a game created alone."""
    created = create(api, players=3, parallel=1, mode="lotr")
    assert created["board"] == "middle_earth"
    game = api.get(f"/v1/games/{created['games'][0]['game_id']}").json
    assert (game["mode"], game["board"]) == ("lotr", "middle_earth")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"entrants": [{"bot": "nobody"}, {"bot": "random"}]}, "unknown_bot"),
        ({"entrants": [{"level": "expert"}, {"bot": "random"}], "players": 2}, "unknown_level"),
        (
            {"entrants": [{"bot": "random", "level": "hard"}, {"bot": "random"}], "players": 2},
            "level_not_for_bot",
        ),
        ({"entrants": [{"bot": "random"}, {"bot": "random"}], "players": 3}, "too_few_entrants"),
        ({"entrants": THREE_BOTS, "format": "swiss"}, "invalid_format"),
        ({"entrants": THREE_BOTS, "format": "games_per_pairing"}, "invalid_format"),
        ({"entrants": THREE_BOTS, "games": 2}, "invalid_format"),
        ({"entrants": THREE_BOTS, "players": 2, "mode": "team"}, "invalid_rule_option"),
        ({"entrants": [{"kind": "http", "bot": "random"}] * 3}, "invalid_body"),
        ({"entrants": THREE_BOTS, "players": 7}, "invalid_body"),
    ],
)
def test_bad_tournaments_are_refused_and_nothing_is_stored(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, body: object, code: str
) -> None:
    problem(api.post("/v1/tournaments", json=body), 400, code)
    assert list(redis.scan_iter(f"{key_prefix}:*")) == []


def test_an_unknown_tournament_is_not_found(api: ApiClient) -> None:
    problem(api.get("/v1/tournaments/t0123456789abcdef"), 404, "tournament_not_found")
    problem(api.get("/v1/tournaments/nonsense"), 404, "tournament_not_found")
    problem(api.get("/v1/tournaments/t0123456789abcdef/stream"), 404, "tournament_not_found")


def test_an_http_entrant_gets_a_token_that_plays_its_seats(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str
) -> None:
    entrants = [{"kind": "http", "name": "Mine"}, {"bot": "random"}, {"bot": "random"}]
    response = api.post("/v1/tournaments", json={"entrants": entrants, "parallel": 3})
    assert response.status_code == 201, response.json
    tournament, tokens = response.json["tournament"], response.json["tokens"]
    assert list(tokens) == ["e1"]
    tid = tournament["tournament_id"]
    seen = api.get(f"/v1/tournaments/{tid}", token=tokens["e1"]).json
    assert seen["viewer"] == "e1"
    problem(api.get(f"/v1/tournaments/{tid}", token="not-it"), 401, "invalid_token")
    for game in tournament["games"]:
        seat = f"p{game['seats'].index('e1') + 1}"
        view = api.get(f"/v1/games/{game['game_id']}", token=tokens["e1"]).json
        assert view["viewer"] == seat
        assert view["status"] == "running"
    summary = api.get(f"/v1/games/{tournament['games'][0]['game_id']}").json
    assert summary["status"] == "running"
    dump = b"|".join(
        v
        for key in redis.scan_iter(f"{key_prefix}:*")
        if redis.type(key) == b"hash"
        for v in redis.hgetall(key).values()
    )
    assert tokens["e1"].encode() not in dump  # only its hash is kept


def test_advancing_again_starts_no_game_twice(api: ApiClient, app: Any) -> None:
    """What a re-delivered worker job does: nothing new while no game has finished."""
    created = create(api, players=3, format="games_per_pairing", games=4, parallel=2)
    tournaments = app.extensions["risk"].tournaments
    for _ in range(3):
        assert tournaments.advance(created["tournament_id"]) == "running"
    now = api.get(f"/v1/tournaments/{created['tournament_id']}").json
    assert [g["status"] for g in now["games"]] == ["running", "running", "scheduled", "scheduled"]
    assert [g["game_id"] for g in now["games"][:2]] == [g["game_id"] for g in created["games"][:2]]


def test_a_game_started_before_a_crash_is_found_not_started_twice(
    api: ApiClient, app: Any, redis: redis_lib.Redis, key_prefix: str
) -> None:
    """A crash between creating a fixture's game and storing its index (or a job that
    runs again after it): the next advance finds that game instead of a second one."""
    created = create(api, players=3, format="games_per_pairing", games=4, parallel=2)
    tid = created["tournament_id"]
    games_key = KeySpace(key_prefix).tournament(tid).games
    first = redis.hget(games_key, "1")
    redis.hdel(games_key, "1")  # as if the crash came before the index was stored
    assert app.extensions["risk"].tournaments.advance(tid) == "running"
    assert redis.hget(games_key, "1") == first
    listed = api.get("/v1/games", query_string={"limit": 100}).json["games"]
    assert sorted(g["game_id"] for g in listed if g.get("tournament") == tid) == sorted(
        g["game_id"] for g in created["games"][:2]
    )


def test_a_tournament_holds_its_parallel_games_of_its_creators_quota(
    settings: Settings, redis: redis_lib.Redis
) -> None:
    """One request must not start more games at once than its creator could create by
    hand (service.application.quotas): a tournament holds ``parallel`` places while it runs."""
    quota = ApiClient(create_app(replace(settings, games_per_address=5)).test_client())
    body = {"entrants": THREE_BOTS, "players": 3, "format": "games_per_pairing", "games": 6}
    problem(quota.post("/v1/tournaments", json=body | {"parallel": 6}), 429, "game_quota_exceeded")
    running = quota.post("/v1/tournaments", json=body | {"parallel": 4})
    assert running.status_code == 201, running.json
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    assert quota.post("/v1/games", json={"seats": seats}).status_code == 201  # the fifth place
    problem(quota.post("/v1/games", json={"seats": seats}), 429, "game_quota_exceeded")
    problem(quota.post("/v1/tournaments", json=body | {"parallel": 1}), 429, "game_quota_exceeded")
    tid = running.json["tournament"]["tournament_id"]
    redis.hset(KeySpace(settings.key_prefix).tournament(tid).info, "status", "finished")
    assert quota.post("/v1/tournaments", json=body | {"parallel": 4}).status_code == 201


def test_the_relays_sweep_moves_on_a_tournament_whose_only_game_was_deleted(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay, service: GameService
) -> None:
    """A tournament advances when one of its games ends; one whose running game an
    operator deleted (no end, so no advance) would wait forever without the relay's
    sweep, which advances every running tournament again, one relay per window."""
    created = create(api, players=3, format="games_per_pairing", games=2, parallel=1)
    tid = created["tournament_id"]
    service.delete(created["games"][0]["game_id"])
    drive(redis, key_prefix, relay)
    stuck = api.get(f"/v1/tournaments/{tid}").json
    assert [g["status"] for g in stuck["games"]] == ["running", "scheduled"]  # waits forever
    assert relay.sweep_tournaments() == 1
    assert relay.sweep_tournaments() == 0  # this window is swept
    drive(redis, key_prefix, relay)
    done = api.get(f"/v1/tournaments/{tid}").json
    assert done["status"] == "finished" and done["games_finished"] == 2
    assert not redis.sismember(KeySpace(key_prefix).running_tournaments(), tid)
    redis.delete(KeySpace(key_prefix).tournament_sweep())
    assert relay.sweep_tournaments() == 0  # nothing runs: nothing to sweep


def test_the_feed_sends_what_changed_not_the_document_again(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay
) -> None:
    """Issue 36: every change resent the whole document (210 KB for 960 games) on
    every stream. Now a stream's first frame is the document and each change a
    ``progress`` frame; applied in order (a stream that ends, 2 s here, is resumed
    with Last-Event-ID), they make the final document."""
    tid = create(api, players=3, parallel=1)["tournament_id"]
    frames: list[tuple[str, dict[str, Any]]] = []

    def read() -> None:  # RQ's worker (drive) must run in the main thread: it sets signals
        last = None
        while not frames or frames[-1][0] != "end":
            headers = {"Last-Event-ID": last} if last else {}
            stream = api.client.get(f"/v1/tournaments/{tid}/stream", headers=headers)
            for block in stream.get_data(as_text=True).split("\n\n"):
                fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
                if "event" in fields:
                    frames.append((fields["event"], json.loads(fields["data"])))
                    last = fields.get("id", last)

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.2)  # the document went out before the first game ends
    drive(redis, key_prefix, relay)
    reader.join(30)
    kinds = [kind for kind, _ in frames]
    assert kinds[0] == "tournament" and kinds[-1] == "end" and "progress" in kinds, kinds
    document: dict[str, Any] = {}
    for kind, data in frames[:-1]:
        if kind == "tournament":
            document = data
            continue
        assert len(json.dumps(data)) < len(json.dumps(document))
        games = {game["index"]: game for game in document["games"]}
        games.update({game["index"]: game for game in data["games"]})
        document |= data | {"games": [games[index] for index in sorted(games)]}
    final = api.get(f"/v1/tournaments/{tid}").json
    assert final["status"] == "finished" and document == final | {"viewer": None}


def sse_frames(api: ApiClient, path: str, **headers: str) -> list[tuple[str, str, Any]]:
    """(event, id, data) of each frame of one whole stream."""
    frames = []
    for block in api.client.get(path, headers=headers).get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            frames.append((fields["event"], fields.get("id", ""), json.loads(fields["data"])))
    return frames


def test_a_stream_resumed_at_the_last_entry_is_told_the_final_standings(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay
) -> None:
    """The last entry's frame may go out before the status is set (the status follows
    the entry): a client that resumes with that entry's id gets the finished document's
    status and seed before ``end``. (It got ``end`` alone: its tournament stayed
    running, seedless, on its page; CI met it in the test above.)"""
    tid = create(api, players=3, parallel=3)["tournament_id"]
    drive(redis, key_prefix, relay)
    path = f"/v1/tournaments/{tid}/stream"
    (kind, head, _), *_ = sse_frames(api, path)
    assert kind == "tournament"
    resumed = sse_frames(api, path, **{"Last-Event-ID": head})
    assert [kind for kind, _, _ in resumed] == ["progress", "end"], resumed
    told = resumed[0][2]
    assert told["status"] == "finished" and told["seed"] and told["games"] == []


def test_a_finished_tournament_is_kept_as_long_as_its_games(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay
) -> None:
    """Retention (issue 36, item 3): its keys expire with its games'; once gone, the
    listing forgets it instead of failing on it."""
    tid = create(api, players=3, parallel=3)["tournament_id"]
    drive(redis, key_prefix, relay)
    keys = KeySpace(key_prefix).tournament(tid)
    assert api.get(f"/v1/tournaments/{tid}").json["status"] == "finished"
    for key in (keys.info, keys.games, keys.results, keys.feed):
        assert 0 < redis.ttl(key) <= 7 * 86400, key
    redis.delete(keys.info, keys.games, keys.results, keys.feed)  # what the TTL does
    assert api.get("/v1/tournaments").json["tournaments"] == []
    assert redis.zcard(KeySpace(key_prefix).tournaments()) == 0


def test_the_listing_builds_a_tournaments_document_once_per_change(
    api: ApiClient, redis: redis_lib.Redis, key_prefix: str, relay: Relay, monkeypatch: Any
) -> None:
    """Issue 36: every GET /v1/tournaments built every listed document (960 games each)
    in the request. Asked again with nothing changed, it builds none; after a change,
    that tournament's once; what it lists is the document GET /v1/tournaments/{id} gives."""
    tid = create(api, players=3, parallel=1)["tournament_id"]
    built: list[str] = []
    document = Tournaments.document

    def counted(self: Tournaments, tournament_id: str) -> dict[str, Any]:
        built.append(tournament_id)
        return document(self, tournament_id)

    monkeypatch.setattr(Tournaments, "document", counted)
    first = api.get("/v1/tournaments").json["tournaments"]
    assert [t["tournament_id"] for t in first] == [tid]
    built.clear()
    assert api.get("/v1/tournaments").json["tournaments"] == first
    assert built == []
    drive(redis, key_prefix, relay)  # the tournament is played to its end
    built.clear()
    listed = api.get("/v1/tournaments").json["tournaments"]
    assert built == [tid]
    assert listed[0]["status"] == "finished" and listed[0]["games_finished"] == 3
    assert listed == [api.get(f"/v1/tournaments/{tid}").json]
