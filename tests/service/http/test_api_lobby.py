"""Creating, listing, joining, viewing and deleting games over the API."""

from __future__ import annotations

import hashlib

import pytest
import redis as redis_lib

from service.application.games import GameService
from tests.service.api_helpers import ApiClient, problem


def test_create_returns_the_game_a_token_per_human_and_a_location(api: ApiClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}, {"kind": "human"}]
    response = api.post("/v1/games", json={"seats": seats, "rules": {"setup": "deal"}})
    assert response.status_code == 201
    game = response.json["game"]
    assert response.headers["Location"] == f"/v1/games/{game['game_id']}"
    assert response.headers["ETag"] == f'"{game["version"]}"' and game["version"] >= 3
    assert game["status"] == "running" and game["open_seats"] == []
    assert game["rules"]["setup"] == "deal" and game["rules"]["fortify"] == "adjacent"
    assert [s["kind"] for s in game["seats"]] == ["human", "bot", "human"]
    assert game["seats"][1]["bot"] == "random" and game["seats"][0]["name"] == "Ada"
    tokens = response.json["tokens"]
    assert sorted(tokens) == ["p1", "p3"] and tokens["p1"] != tokens["p3"]


def test_only_a_hash_of_each_token_is_stored(
    api: ApiClient, redis: redis_lib.Redis, service: GameService
) -> None:
    api.create(3)
    game, tokens = api.create([{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    tokens["p2"] = api.post(f"/v1/games/{game}/join").json["token"]
    dump = b"|".join(
        stored_bytes(redis, key) for key in redis.scan_iter(f"{service.keys.prefix}:*")
    )
    for token in tokens.values():
        assert token.encode() not in dump
        assert hashlib.sha256(token.encode()).hexdigest().encode() in dump


def stored_bytes(redis: redis_lib.Redis, key: bytes) -> bytes:
    """Everything stored under ``key``, whatever its type."""
    kind = redis.type(key)
    if kind == b"hash":
        return b"|".join(b"%s=%s" % pair for pair in redis.hgetall(key).items())
    if kind == b"stream":
        entries = redis.xrange(key)
        return b"|".join(v for _, fields in entries for v in fields.values())
    if kind == b"zset":
        return b"|".join(redis.zrange(key, 0, -1))
    return redis.get(key) or b""


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_body"),
        ({"seats": [{"kind": "human"}]}, "invalid_body"),
        ({"seats": [{"kind": "robot"}] * 3}, "invalid_body"),
        ({"seats": [{"kind": "bot"}] * 3}, "invalid_body"),
        ({"seats": [{"kind": "human", "bot": "random"}] * 3}, "invalid_body"),
        ({"seats": [{"kind": "human"}] * 3, "rules": {"fortify": "anywhere"}}, "invalid_body"),
        ({"seats": [{"kind": "human"}] * 3, "rules": {"defender_chooses_dice": 1}}, "invalid_body"),
        ({"seats": [{"kind": "human"}] * 3, "surprise": True}, "invalid_body"),
        ({"seats": [{"kind": "human", "seed": "xyz"}] * 3}, "invalid_body"),
        ({"seats": [{"kind": "human"}] * 3, "clock": {"turn_seconds": 1}}, "invalid_body"),
        ({"seats": [{"kind": "human"}] * 2}, "invalid_rule_option"),
        (
            {"seats": [{"kind": "human"}] * 3, "rules": {"variant": "two_player"}},
            "invalid_rule_option",
        ),
        (
            {"seats": [{"kind": "human"}] * 3, "rules": {"starting_armies": 5}},
            "invalid_rule_option",
        ),
        ({"seats": [{"kind": "human"}] * 3, "board": "../../etc/passwd"}, "unknown_board"),
        ({"seats": [{"kind": "bot", "bot": "nobody"}] * 3}, "unknown_bot"),
        ([1, 2], "invalid_body"),
    ],
)
def test_bad_creations_are_400_problems_naming_the_fault(
    api: ApiClient, body: object, code: str
) -> None:
    problem(api.post("/v1/games", json=body), 400, code)


def test_a_body_that_is_not_json_is_refused(api: ApiClient) -> None:
    problem(api.post("/v1/games", data="seats=3"), 415, "unsupported_media_type")
    refused = api.post("/v1/games", data="{nope", content_type="application/json")
    problem(refused, 400, "invalid_json")
    deep = "[" * 100_00 + "]" * 100_00
    problem(api.post("/v1/games", data=deep, content_type="application/json"), 400, "invalid_json")
    nan = '{"seats": NaN}'
    problem(api.post("/v1/games", data=nan, content_type="application/json"), 400, "invalid_json")
    latin1 = '{"name": "Gr\u00e5"}'.encode("latin-1")  # JSON is UTF-8 (RFC 8259)
    refused = api.post("/v1/games", data=latin1, content_type="application/json")
    problem(refused, 400, "invalid_json")


def test_a_lone_surrogate_is_invalid_json_and_a_pair_is_a_character(api: ApiClient) -> None:
    """RFC 8259 §8.2: an escaped lone surrogate is not a character (it was a 500)."""
    bots = ', {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}'
    lone = '{"seats": [{"kind": "human", "name": "a\\ud800b"}' + bots
    refused = api.post("/v1/games", data=lone, content_type="application/json")
    problem(refused, 400, "invalid_json")
    pair = '{"seats": [{"kind": "human", "name": "a\\uD83D\\uDE00b"}' + bots
    created = api.post("/v1/games", data=pair, content_type="application/json")
    assert created.status_code == 201, created.get_json()
    seats = created.get_json()["game"]["seats"]
    assert seats[0]["name"] == "a\U0001f600b"


def test_a_body_over_the_size_limit_is_413(api: ApiClient) -> None:
    big = {"seats": [{"kind": "human", "name": "x" * 40}] * 3, "pad": "y" * 70_000}
    problem(api.post("/v1/games", json=big), 413, "body_too_large")


def test_open_seats_make_a_lobby_that_starts_when_the_last_is_joined(api: ApiClient) -> None:
    game, tokens = api.create([{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    lobby = api.get(f"/v1/games/{game}", token=tokens["p1"])
    assert lobby.json["status"] == "open" and lobby.json["open_seats"] == ["p2", "p3"]
    assert lobby.json["viewer"] == "p1" and lobby.headers["ETag"] == '"0"'
    problem(api.get(f"/v1/games/{game}/legal-actions", token=tokens["p1"]), 409, "game_not_started")

    first = api.post(f"/v1/games/{game}/join", json={"name": "Bea", "seed": "abcd"})
    assert first.status_code == 200 and first.json["seat"] == "p2"
    assert first.json["game"]["status"] == "open" and first.json["game"]["open_seats"] == ["p3"]
    last = api.post(f"/v1/games/{game}/join")
    assert last.json["seat"] == "p3" and last.json["game"]["status"] == "running"
    assert last.json["token"] not in (first.json["token"], tokens["p1"])

    view = api.get(f"/v1/games/{game}", token=last.json["token"])
    assert view.json["status"] == "running" and view.json["viewer"] == "p3"
    assert [s["name"] for s in view.json["seats"]][1] == "Bea"
    created = api.get(f"/v1/games/{game}/events").json["events"][0]["event"]
    assert created["player_seeds"] == {"p2": "abcd"}
    problem(api.post(f"/v1/games/{game}/join"), 409, "game_full")


def test_joining_a_named_seat(api: ApiClient) -> None:
    game, _ = api.create([{"kind": "open"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}])
    assert api.post(f"/v1/games/{game}/join", json={"seat": "p2"}).json["seat"] == "p2"
    problem(api.post(f"/v1/games/{game}/join", json={"seat": "p2"}), 409, "seat_taken")
    problem(api.post(f"/v1/games/{game}/join", json={"seat": "p3"}), 409, "seat_taken")
    problem(api.post(f"/v1/games/{game}/join", json={"seat": "p7"}), 404, "unknown_seat")
    problem(api.post(f"/v1/games/{game}/join", json={"seat": "zz"}), 400, "invalid_body")
    problem(api.post("/v1/games/nothing-here/join"), 404, "game_not_found")


def test_listing_pages_newest_first_and_filters_by_status(api: ApiClient) -> None:
    running = [api.create(3)[0] for _ in range(3)]
    lobbies = [api.create([{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])[0]]
    lobbies.append(api.create([{"kind": "open"}] * 3)[0])
    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = api.get("/v1/games", query_string=query).json
        seen += [g["game_id"] for g in page["games"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [*reversed(lobbies), *reversed(running)] and pages == 3
    open_now = api.get("/v1/games", query_string={"status": "open"}).json["games"]
    assert [g["game_id"] for g in open_now] == list(reversed(lobbies))
    assert {g["status"] for g in open_now} == {"open"}
    problem(api.get("/v1/games", query_string={"cursor": "junk"}), 400, "invalid_query")
    problem(api.get("/v1/games", query_string={"limit": 0}), 400, "invalid_query")
    problem(api.get("/v1/games", query_string={"status": "lost"}), 400, "invalid_query")


def test_a_finished_game_moves_to_the_finished_list(api: ApiClient) -> None:
    game, tokens = api.create(3, rules={"setup": "deal"})
    for _ in range(2):
        current = api.get(f"/v1/games/{game}").json["current"]
        assert api.command(game, tokens[current], {"type": "resign"}).status_code == 200
    finished = api.get("/v1/games", query_string={"status": "finished"}).json["games"]
    assert [g["game_id"] for g in finished] == [game] and finished[0]["status"] == "finished"
    assert api.get("/v1/games", query_string={"status": "running"}).json["games"] == []


def test_the_clock_is_stored_and_shown(api: ApiClient, service: GameService) -> None:
    clock = {"turn_seconds": 60, "on_timeout": "forfeit"}
    game, _ = api.create(3, clock=clock)
    listed = api.get("/v1/games").json["games"][0]
    assert listed["clock"] == clock
    assert service.lobby.get(game).clock == clock
    default = api.create(3, clock={"turn_seconds": 30})[0]
    assert service.lobby.get(default).clock == {"turn_seconds": 30, "on_timeout": "bot"}
    # The view says it too, so a finished game's page asks for the same in a rematch
    # (issue 51); a game without a clock has none.
    assert api.get(f"/v1/games/{game}").json["clock"] == clock
    assert "clock" not in api.get(f"/v1/games/{api.create(3)[0]}").json


def test_unknown_games_are_404(api: ApiClient) -> None:
    problem(api.get("/v1/games/g0000"), 404, "game_not_found")
    problem(api.get("/v1/games/bad:id"), 404, "game_not_found")
    problem(api.get("/v1/games/g0000/events"), 404, "game_not_found")


def test_a_token_of_another_game_or_a_bad_header_is_401(api: ApiClient) -> None:
    game, _ = api.create(3)
    _, other = api.create(3)
    refused = api.get(f"/v1/games/{game}", token=other["p1"])
    problem(refused, 401, "invalid_token")
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    basic = api.get(f"/v1/games/{game}", headers={"Authorization": "Basic YWxhZGRpbg=="})
    problem(basic, 401, "invalid_token")


def test_only_the_admin_token_deletes_a_game(api: ApiClient, service: GameService) -> None:
    game, tokens = api.create(3)
    keys = service.keys
    kept_beside = [keys.clock(game), keys.replay_checkpoints(game), keys.record_export(game)]
    for key in kept_beside:  # as workers and replays leave them
        service.store.client.set(key, b"x")
    problem(api.call("DELETE", f"/v1/games/{game}"), 401, "token_required")
    problem(api.call("DELETE", f"/v1/games/{game}", token=tokens["p1"]), 403, "admin_only")
    assert api.call("DELETE", f"/v1/games/{game}", token="admin-secret").status_code == 204
    problem(api.get(f"/v1/games/{game}"), 404, "game_not_found")
    assert not service.store.exists(game)
    assert service.store.client.exists(*kept_beside) == 0
    assert api.get("/v1/games").json["games"] == []
    problem(api.call("DELETE", f"/v1/games/{game}", token="admin-secret"), 404, "game_not_found")


def test_the_server_seed_is_committed_to_before_anyone_joins(
    api: ApiClient, service: GameService
) -> None:
    game, _ = api.create([{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    promised = api.get(f"/v1/games/{game}").json["seed_commitment"]
    for seed in ("ab", "cd"):
        api.post(f"/v1/games/{game}/join", json={"seed": seed})
    created = api.get(f"/v1/games/{game}/events").json["events"][0]["event"]
    assert created["seed_commitment"] == promised
    assert created["player_seeds"] == {"p2": "ab", "p3": "cd"}
    assert hashlib.sha256(service.store.seed(game) or b"").hexdigest() == promised
    assert service.lobby.seed(game) is None  # kept once only, by the event store


def test_seats_name_a_bot_and_a_level_and_the_game_says_which(api: ApiClient) -> None:
    """Issue 19: seats name a bot and a level; the lobby and the game view say which."""
    seats = [
        {"kind": "human"},
        {"kind": "bot", "level": "easy"},
        {"kind": "bot", "bot": "strong", "level": "medium"},
        {"kind": "bot", "bot": "random"},
    ]
    response = api.post("/v1/games", json={"seats": seats})
    assert response.status_code == 201, response.json
    game = response.json["game"]
    played = [(s["bot"], s["level"]) for s in game["seats"]]
    assert played == [(None, None), ("heuristic", "easy"), ("strong", "medium"), ("random", None)]
    listed = api.get("/v1/games").json["games"][0]
    assert [s["level"] for s in listed["seats"]] == [None, "easy", "medium", None]
    token = response.json["tokens"]["p1"]
    view = api.get(f"/v1/games/{game['game_id']}", headers={"Authorization": f"Bearer {token}"})
    by_seat = {s["id"]: (s["controller"], s["bot"], s["level"]) for s in view.json["seats"]}
    assert by_seat["p2"] == ("bot", "heuristic", "easy")
    assert by_seat["p3"] == ("bot", "strong", "medium")
    assert by_seat["p1"] == ("human", None, None)


@pytest.mark.parametrize(
    ("seat", "code"),
    [
        ({"kind": "bot", "level": "expert"}, "unknown_level"),
        ({"kind": "bot", "bot": "random", "level": "hard"}, "level_not_for_bot"),
        ({"kind": "human", "level": "easy"}, "invalid_body"),
    ],
)
def test_a_bad_level_is_refused_and_nothing_is_stored(
    api: ApiClient, redis: redis_lib.Redis, service: GameService, seat: object, code: str
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, seat]
    problem(api.post("/v1/games", json={"seats": seats}), 400, code)
    assert list(redis.scan_iter(f"{service.keys.prefix}:*")) == []
