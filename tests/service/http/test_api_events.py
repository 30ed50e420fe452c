"""Following a game: long-poll and Server-Sent Events, each redacted per viewer."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Flask

from riskcore.simulate import acting_seat
from service.application.games import GameService
from tests.service.api_helpers import ApiClient, problem, stream_events, validate

QUICK = {"setup": "deal", "starting_armies": 14}


def test_events_since_a_version_come_at_once(api: ApiClient, service: GameService) -> None:
    game, _ = api.create(3, rules=QUICK)
    version = service.load(game).version
    page = api.get(f"/v1/games/{game}/events", query_string={"since": 0, "wait": 5})
    assert [e["version"] for e in page.json["events"]] == list(range(1, version + 1))
    assert page.json["events"][0]["event"]["type"] == "game_created"
    assert page.json["events"][0]["actor"] == "system"
    assert page.json["version"] == version and page.headers["ETag"] == f'"{version}"'
    tail = api.get(f"/v1/games/{game}/events", query_string={"since": 1, "limit": 1}).json
    assert [e["version"] for e in tail["events"]] == [2]


def test_a_long_poll_returns_empty_after_its_wait(api: ApiClient, service: GameService) -> None:
    game, _ = api.create(3, rules=QUICK)
    version = service.load(game).version
    started = time.monotonic()
    page = api.get(f"/v1/games/{game}/events", query_string={"since": version, "wait": 0.3})
    assert page.json["events"] == [] and page.json["version"] == version
    assert 0.25 <= time.monotonic() - started < 3


def test_a_long_poll_wakes_when_a_command_lands(app: Flask, service: GameService) -> None:
    api = ApiClient(app.test_client())
    game, tokens = api.create(3, rules=QUICK)
    version = service.load(game).version
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    got: dict[str, Any] = {}

    def poll() -> None:
        poller = ApiClient(app.test_client())
        started = time.monotonic()
        query = {"since": version, "wait": 10}
        got["page"] = poller.get(f"/v1/games/{game}/events", query_string=query).json
        got["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.2)
    assert api.command(game, tokens[seat], {"type": "resign"}).status_code == 200
    waiter.join(5)
    assert got["seconds"] < 5
    assert got["page"]["events"][0]["version"] == version + 1


def test_a_lobby_can_be_followed_before_it_starts(api: ApiClient) -> None:
    game, _ = api.create([{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    assert api.get(f"/v1/games/{game}/events").json == {
        "game_id": game,
        "version": 0,
        "head": None,
        "events": [],
        "finished": False,
    }


def test_query_limits_are_enforced(api: ApiClient) -> None:
    game, _ = api.create(3)
    for query in ({"wait": 31}, {"wait": -1}, {"since": -1}, {"limit": 0}, {"limit": 1001}):
        problem(api.get(f"/v1/games/{game}/events", query_string=query), 400, "invalid_query")


def test_other_seats_cards_are_hidden_until_the_end(api: ApiClient, service: GameService) -> None:
    game, tokens = api.create(3, rules=QUICK)
    drawn = _play_until_a_card_is_drawn(api, service, game, tokens)
    by_viewer = {
        seat: api.get(f"/v1/games/{game}/events", token=token).json["events"]
        for seat, token in [*tokens.items(), (None, None)]
    }
    for viewer, events in by_viewer.items():
        cards = [e["event"]["card"] for e in events if e["event"]["type"] == "card_drawn"]
        draws = [e["event"]["seat"] for e in events if e["event"]["type"] == "card_drawn"]
        assert cards == [c if s == viewer else -1 for s, c in zip(draws, drawn, strict=True)]
        shuffled = next(e["event"] for e in events if e["event"]["type"] == "deck_shuffled")
        assert set(shuffled["order"]) == {-1}
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    api.command(game, tokens[seat], {"type": "resign"})
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    api.command(game, tokens[seat], {"type": "resign"})
    ended = api.get(f"/v1/games/{game}/events").json
    assert ended["finished"] is True
    cards = [e["event"]["card"] for e in ended["events"] if e["event"]["type"] == "card_drawn"]
    assert cards == drawn and -1 not in cards


def _play_until_a_card_is_drawn(
    api: ApiClient, service: GameService, game: str, tokens: dict[str, str]
) -> list[int]:
    """Attack (blitz) where possible, otherwise take the first action, until a card is drawn."""
    for _ in range(500):
        state = service.load(game).state
        drawn = [e for e in service.events(game, 0, 1000).envelopes if e.event.TYPE == "card_drawn"]
        if drawn:
            return [e.event.card for e in drawn]  # type: ignore[attr-defined]
        seat = acting_seat(state)
        assert seat is not None
        actions = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat]).json["actions"]
        kinds = {a["command"]["type"]: a["command"] for a in reversed(actions)}
        body = kinds.get("blitz") or kinds.get("occupy") or actions[0]["command"]
        if body["type"] == "fortify":
            body = {"type": "end_phase"}
        assert api.command(game, tokens[seat], body).status_code == 200
    raise AssertionError("no card drawn in 500 commands")


def _frames(chunks: Any, until: str, timeout: float = 5) -> list[str]:
    """Read SSE frames from a streamed body until one contains ``until``."""
    frames, buffer, deadline = [], "", time.monotonic() + timeout
    for chunk in chunks:
        buffer += chunk.decode()
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            frames.append(frame)
        if any(until in f for f in frames) or time.monotonic() > deadline:
            break
    return frames


def test_the_stream_sends_events_resumes_and_keeps_alive(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    version = service.load(game).version
    response = api.get(f"/v1/games/{game}/events/stream", token=tokens["p1"], buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    frames = _frames(response.response, ": keep-alive")
    response.close()
    events = [f for f in frames if "event: game_event" in f]
    assert [f.split("\n")[0] for f in events] == [f"id: {n}" for n in range(1, version + 1)]
    assert frames[0] == "retry: 2000" and frames[-1] == ": keep-alive"

    resumed = api.get(
        f"/v1/games/{game}/events/stream", headers={"Last-Event-ID": "2"}, buffered=False
    )
    frames = _frames(resumed.response, ": keep-alive")
    resumed.close()
    assert next(f.split("\n")[0] for f in frames if f.startswith("id:")) == "id: 3"


def test_the_stream_ends_after_the_last_event_of_a_finished_game(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    for _ in range(2):
        seat = acting_seat(service.load(game).state)
        assert seat is not None
        api.command(game, tokens[seat], {"type": "resign"})
    response = api.get(f"/v1/games/{game}/events/stream", buffered=False)
    frames = _frames(response.response, "event: end")
    response.close()
    assert frames[-1] == "event: end\ndata: {}"
    head = service.load(game)
    assert (
        frames[-2] == f'event: head\ndata: {{"version":{head.version},"hash":"{head.hash.hex()}"}}'
    )
    assert '"game_finished"' in frames[-3] and '"seed"' in frames[-3]
    # Every event of the stream is one the spec documents (its x-itemSchema), data included.
    events = stream_events("\n\n".join(frames) + "\n\n")
    assert [e["event"] for e in events[-3:]] == ["game_event", "head", "end"]
    assert events[-2]["data"] == {"version": head.version, "hash": head.hash.hex()}
    assert events[-3]["data"]["event"]["type"] == "game_finished"
    assert [int(e["id"]) for e in events if e["event"] == "game_event"] == list(
        range(1, head.version + 1)
    )


def test_the_stream_refuses_bad_resume_points_and_unknown_games(api: ApiClient) -> None:
    game, _ = api.create(3)
    bad = api.get(f"/v1/games/{game}/events/stream", headers={"Last-Event-ID": "x"})
    problem(bad, 400, "invalid_last_event_id")
    problem(api.get("/v1/games/g404/events/stream"), 404, "game_not_found")


def test_a_stream_closes_after_its_maximum_duration(app: Flask, api: ApiClient) -> None:
    game, _ = api.create(3)
    client = app.test_client()
    started = time.monotonic()
    response = client.get(f"/v1/games/{game}/events/stream", buffered=False)
    validate(response)
    body = b"".join(response.response)  # ends by itself after sse_max_seconds (2 s)
    assert 1.5 < time.monotonic() - started < 6
    assert body.count(b": keep-alive") >= 3
