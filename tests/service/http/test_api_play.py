"""Playing over the API: views, legal actions, commands, versions, retries."""

from __future__ import annotations

import random
from typing import Any

import pytest

from riskcore.bots import get_bot
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from riskcore.views.view import view
from service.application.games import GameService
from tests.service.api_helpers import ApiClient, problem

QUICK = {"setup": "deal", "starting_armies": 14}  # three players go straight to turn 1


def acting(service: GameService, game: str) -> str:
    seat = acting_seat(service.load(game).state)
    assert seat is not None
    return seat


def play(
    api: ApiClient, service: GameService, game: str, tokens: dict[str, str], moves: int
) -> int:
    """Play ``moves`` random legal commands, each taken from the API's list as it is."""
    bot, rng = get_bot("random"), random.Random(5)
    for _ in range(moves):
        state = service.load(game).state
        if state.phase == FINISHED:
            break
        seat = acting(service, game)
        listed = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat])
        assert listed.status_code == 200, listed.json
        actions = listed.json["actions"]
        body = bot.choose(SeatView(state, seat), actions, rng)
        sent = api.command(game, tokens[seat], body)
        assert sent.status_code == 200, (body, sent.json)
    return service.load(game).version


def test_each_seat_sees_its_own_cards_and_a_spectator_none(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    play(api, service, game, tokens, 120)
    state = service.load(game).state
    holders = [s for s in tokens if state.hand(s)]
    assert holders, "nobody drew a card in 120 moves"
    for seat, token in tokens.items():
        seats = {s["id"]: s for s in api.get(f"/v1/games/{game}", token=token).json["seats"]}
        assert seats[seat]["cards"] == state.hand(seat)
        assert all(seats[o]["cards"] is None for o in seats if o != seat)
        assert all(seats[o]["card_count"] == len(state.hand(o)) for o in seats)
    spectator = api.get(f"/v1/games/{game}").json
    assert spectator["viewer"] is None and spectator["deck"] is None and spectator["seed"] is None
    assert all(s["cards"] is None for s in spectator["seats"])


def test_the_view_is_the_engine_view_with_status_and_controllers(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(
        [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "human"}]
    )
    got = api.get(f"/v1/games/{game}", token=tokens["p3"])
    loaded = service.load(game)
    expected = view(loaded.state, "p3")
    for seat, entry in zip(expected["seats"], got.json["seats"], strict=True):
        added = {"controller": entry["controller"], "bot": entry["bot"], "level": entry["level"]}
        assert entry == seat | added
    assert [(s["controller"], s["bot"], s["level"]) for s in got.json["seats"]] == [
        ("human", None, None),
        ("bot", "random", None),
        ("human", None, None),
    ]
    # The API adds the old name of the mode, rules.variant, for clients that read it.
    assert got.json["rules"] == expected["rules"] | {"variant": "classic"}
    assert {k: v for k, v in got.json.items() if k not in ("seats", "status", "rules")} == {
        k: v for k, v in expected.items() if k not in ("seats", "rules")
    }
    assert got.json["status"] == "running" and got.headers["ETag"] == f'"{loaded.version}"'


def test_two_player_neutrals_have_no_controller(api: ApiClient) -> None:
    game, tokens = api.create(2, rules={"variant": "two_player"})
    seats = api.get(f"/v1/games/{game}", token=tokens["p1"]).json["seats"]
    assert [(s["id"], s["controller"]) for s in seats][2:] == [("n1", "neutral"), ("n2", "neutral")]


def test_if_none_match_answers_304_until_the_game_moves(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    etag = api.get(f"/v1/games/{game}").headers["ETag"]
    same = api.get(f"/v1/games/{game}", headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.headers["ETag"] == etag and same.data == b""
    play(api, service, game, tokens, 1)
    moved = api.get(f"/v1/games/{game}", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag


def test_legal_actions_are_the_seats_and_empty_off_turn(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    got = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat])
    assert got.json["seat"] == seat and got.json["version"] == service.load(game).version
    kinds = {a["command"]["type"] for a in got.json["actions"]}
    assert "place_armies" in kinds and "resign" in kinds
    placing = next(a for a in got.json["actions"] if a["command"]["type"] == "place_armies")
    assert placing["bounds"]["count"][0] == 1
    other = next(s for s in tokens if s != seat)
    assert api.get(f"/v1/games/{game}/legal-actions", token=tokens[other]).json["actions"] == []
    problem(api.get(f"/v1/games/{game}/legal-actions"), 401, "token_required")


def test_every_listed_action_is_accepted_as_it_is(api: ApiClient, service: GameService) -> None:
    """Hundreds of commands, each picked from the list and sent unchanged or within bounds."""
    game, tokens = api.create(3, rules=QUICK)
    version = play(api, service, game, tokens, 300)
    # Every command makes an event or more; a game of few armies may end before 300
    # (the game id, and so its dice, differ run to run).
    assert version > 300 or service.load(game).state.phase == FINISHED, version


def test_a_command_returns_the_new_version_and_the_callers_events(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    before = service.load(game).version
    action = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat]).json["actions"][-2]
    sent = api.command(game, tokens[seat], action["command"], **{"If-Match": f'"{before}"'})
    body = sent.json
    assert body["version"] == service.load(game).version > before
    assert sent.headers["ETag"] == f'"{body["version"]}"'
    assert [e["version"] for e in body["events"]] == list(range(before + 1, body["version"] + 1))
    assert body["events"][0]["actor"] == seat and "Idempotent-Replayed" not in sent.headers


def test_a_stale_if_match_is_409_with_the_current_version(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    version = service.load(game).version
    stale = api.command(
        game, tokens[seat], {"type": "end_phase"}, **{"If-Match": f'"{version - 1}"'}
    )
    body = problem(stale, 409, "version_conflict")
    assert body["current_version"] == version and stale.headers["ETag"] == f'"{version}"'
    assert service.load(game).version == version
    for weird in ("abc", '"-1"', "1, 2"):
        bad = api.command(game, tokens[seat], {"type": "resign"}, **{"If-Match": weird})
        problem(bad, 400, "invalid_if_match")
    star = api.command(game, tokens[seat], {"type": "resign"}, **{"If-Match": "*"})
    assert star.status_code == 200


def test_a_retry_with_the_same_key_gets_the_same_response_once(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    version = service.load(game).version
    action = api.get(f"/v1/games/{game}/legal-actions", token=tokens[seat]).json["actions"][0]
    headers = {"If-Match": f'"{version}"', "Idempotency-Key": "retry-1"}
    first = api.command(game, tokens[seat], action["command"], **headers)
    again = api.command(game, tokens[seat], action["command"], **headers)
    assert again.status_code == 200 and again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert service.load(game).version == first.json["version"]
    # After the game moved on, the retry is still recognised (not a conflict).
    play(api, service, game, tokens, 3)
    late = api.command(game, tokens[seat], action["command"], **headers)
    assert late.json == first.json
    other = api.command(game, tokens[seat], {"type": "resign"}, **{"Idempotency-Key": "retry-1"})
    problem(other, 409, "idempotency_mismatch")


def test_one_seats_idempotency_key_never_touches_another_seats_request(
    api: ApiClient, service: GameService
) -> None:
    """Keys are scoped by game and seat: the same key from the next seat is its own request."""
    game, tokens = api.create(3, rules={"setup": "claim"})
    first = acting(service, game)
    key = {"Idempotency-Key": "shared-key"}
    action = api.get(f"/v1/games/{game}/legal-actions", token=tokens[first]).json["actions"][0]
    assert api.command(game, tokens[first], action["command"], **key).status_code == 200
    second = acting(service, game)
    assert second != first
    action = api.get(f"/v1/games/{game}/legal-actions", token=tokens[second]).json["actions"][0]
    theirs = api.command(game, tokens[second], action["command"], **key)
    assert theirs.status_code == 200, theirs.json
    assert "Idempotent-Replayed" not in theirs.headers


def test_a_keyed_retry_that_is_no_longer_legal_still_replays(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    key = {"Idempotency-Key": "resign-once"}
    first = api.command(game, tokens[seat], {"type": "resign"}, **key)
    again = api.command(game, tokens[seat], {"type": "resign"}, **key)  # now "player_out"
    assert again.json == first.json
    problem(api.command(game, tokens[seat], {"type": "resign"}), 422, "player_out")


def test_rule_violations_are_422_with_the_engine_code(api: ApiClient, service: GameService) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    other = next(s for s in tokens if s != seat)
    problem(api.command(game, tokens[other], {"type": "end_phase"}), 422, "not_your_turn")
    far = {"type": "place_armies", "territory": "atlantis", "count": 1}
    problem(api.command(game, tokens[seat], far), 422, "unknown_territory")
    theirs = next(t for t, p in service.load(game).state.owner.items() if p == other)
    mine = {"type": "place_armies", "territory": theirs, "count": 1}
    problem(api.command(game, tokens[seat], mine), 422, "not_your_territory")


@pytest.mark.parametrize(
    "body",
    [
        {"type": "teleport"},
        {"territory": "alaska"},
        {"type": "place_armies"},
        {"type": "place_armies", "territory": "alaska", "count": "3"},
        {"type": "place_armies", "territory": "alaska", "count": 2.5},
        {"type": "place_armies", "territory": "alaska", "count": True},
        {"type": "end_phase", "seat": "p2"},
        {"type": "trade_cards", "cards": "1,2,3"},
        [],
        "end_phase",
    ],
)
def test_malformed_commands_are_400(api: ApiClient, service: GameService, body: Any) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    problem(api.command(game, tokens[seat], body), 400, "malformed_command")


def test_commands_need_the_seats_token(api: ApiClient) -> None:
    game, _ = api.create(3, rules=QUICK)
    problem(api.post(f"/v1/games/{game}/commands", json={"type": "resign"}), 401, "token_required")
    wrong = api.command(game, "rsk_not-a-real-token", {"type": "resign"})
    problem(wrong, 401, "invalid_token")
    key = {"Idempotency-Key": "x" * 201}
    problem(api.command(game, "rsk_x", {"type": "resign"}, **key), 401, "invalid_token")


def test_an_overlong_idempotency_key_is_400(api: ApiClient, service: GameService) -> None:
    game, tokens = api.create(3, rules=QUICK)
    seat = acting(service, game)
    long_key = api.command(game, tokens[seat], {"type": "resign"}, **{"Idempotency-Key": "k" * 201})
    problem(long_key, 400, "invalid_idempotency_key")


def test_the_state_at_a_version_is_the_callers_view_then(
    api: ApiClient, service: GameService
) -> None:
    game, tokens = api.create(3, rules=QUICK)
    version = play(api, service, game, tokens, 40)
    for at in (1, 3, version // 2, version):
        got = api.get(f"/v1/games/{game}/state", token=tokens["p2"], query_string={"version": at})
        assert got.json["version"] == at and got.headers["ETag"] == f'"{at}"'
        expected = view(service.state_at(game, at), "p2")
        assert got.json["territories"] == expected["territories"]
        assert got.json["seats"][1]["cards"] == expected["seats"][1]["cards"]
    missing = api.get(f"/v1/games/{game}/state", query_string={"version": version + 1})
    problem(missing, 404, "version_not_found")
    problem(api.get(f"/v1/games/{game}/state"), 400, "invalid_query")
    problem(api.get(f"/v1/games/{game}/state", query_string={"version": 0}), 400, "invalid_query")


def test_a_game_over_reveals_everything(api: ApiClient, service: GameService) -> None:
    game, tokens = api.create(3, rules=QUICK)
    play(api, service, game, tokens, 30)
    for _ in range(2):
        assert (
            api.command(game, tokens[acting(service, game)], {"type": "resign"}).status_code == 200
        )
    final = api.get(f"/v1/games/{game}").json
    assert final["status"] == "finished" and final["winner"] in tokens
    assert final["seed"] == service.store.seed(game).hex()
    assert final["deck"] is not None and all(s["cards"] is not None for s in final["seats"])
    problem(api.command(game, tokens[final["winner"]], {"type": "end_phase"}), 422, "game_finished")
