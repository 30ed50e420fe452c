"""Headers a client sends are parsed or refused with a 4xx problem, never a 500 (issue 36, item 5).

``str.isdigit`` takes "²" and other digits ``int`` refuses: ``If-Match: "²"``
and ``Last-Event-ID: ²`` were 500s. A fuzz over the headers the API reads
holds every answer to a documented status below 500, and the game as it was.
A Redis that cannot serve (a replica whose primary is gone answers
MASTERDOWN, a cluster error; READONLY for writes) is a 503 with Retry-After.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riskcli.main import main
from service.application.games import GameService
from service.http.app import create_app
from service.http.schemas import NAME_PATTERN
from service.settings import Settings
from tests.private_redis import free_port, private_redis
from tests.service.api_helpers import SPEC, ApiClient, problem

QUICK = {"setup": "deal", "starting_armies": 14}
# Printable Latin-1 (what a header can carry), with the digits int() refuses.
HEADER_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f")
    | st.sampled_from("²³¹٣४０"),
    max_size=30,
)


@pytest.mark.parametrize("value", ['"²"', "²", 'W/"١٢"', '"1²"', '"' + "9" * 19 + '"'])
def test_if_match_that_int_cannot_read_is_a_400(api: ApiClient, value: str) -> None:
    game, tokens = api.create(3, rules=QUICK)
    token = next(iter(tokens.values()))
    answer = api.command(game, token, {"type": "end_phase"}, **{"If-Match": value})
    problem(answer, 400, "invalid_if_match")


@pytest.mark.parametrize("value", ["²", "1²", "٣", "9" * 19, " "])
def test_last_event_id_that_int_cannot_read_is_a_400(api: ApiClient, value: str) -> None:
    game, _ = api.create(3, rules=QUICK)
    answer = api.get(f"/v1/games/{game}/events/stream", headers={"Last-Event-ID": value})
    problem(answer, 400, "invalid_last_event_id")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.sampled_from(["If-Match", "Last-Event-ID", "Idempotency-Key", "Authorization"]),
       value=HEADER_TEXT)  # fmt: skip
def test_no_header_value_makes_a_500(
    api: ApiClient, service: GameService, name: str, value: str
) -> None:
    """Every answer is documented (ApiClient validates it) and below 500; a refused
    command leaves the game at its version."""
    game, tokens = api.create(3, rules=QUICK)
    version = service.load(game).version
    token = next(iter(tokens.values()))
    headers = {name: value}
    sent = api.call(
        "POST",
        f"/v1/games/{game}/commands",
        token=None if name == "Authorization" else token,
        json={"type": "end_phase"},
        headers=headers,
    )
    path = f"/v1/games/{game}/events/stream" if name == "Last-Event-ID" else f"/v1/games/{game}"
    read = api.get(path, headers=headers)
    for answer in (sent, read):
        assert answer.status_code < 500, (name, value, answer.get_data(as_text=True))
    if sent.status_code >= 400:
        assert service.load(game).version == version


def test_a_redis_that_cannot_serve_is_a_503_with_retry_after(
    tmp_path: Path, key_prefix: str
) -> None:
    """A replica of a primary that is not there, told not to serve stale data, answers
    every read with MASTERDOWN (redis-py's MasterDownError, a ClusterDownError): the
    errors a Redis Cluster gives while a node restarts were 500s."""
    dead_primary = free_port()
    options = ("--replicaof", "127.0.0.1", str(dead_primary), "--replica-serve-stale-data", "no")
    with private_redis(tmp_path, *options, aof=False) as server:
        app: Flask = create_app(Settings(redis_url=server.url, key_prefix=key_prefix))
        api = ApiClient(app.test_client())
        for answer in (api.get("/v1/games/g-missing"), api.get("/v1/games")):
            body = problem(answer, 503, "store_unavailable")
            assert answer.headers["Retry-After"] == "1", body
        app.extensions["risk"].redis.close()


def test_a_read_only_redis_refuses_a_new_game_with_a_503(tmp_path: Path, key_prefix: str) -> None:
    """A replica (stale data served) refuses writes with READONLY: a 503 too."""
    options = ("--replicaof", "127.0.0.1", str(free_port()))
    with private_redis(tmp_path, *options, aof=False) as server:
        app: Flask = create_app(Settings(redis_url=server.url, key_prefix=key_prefix))
        api = ApiClient(app.test_client())
        answer = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 3})
        problem(answer, 503, "store_unavailable")
        app.extensions["risk"].redis.close()


# A record line nested 1,000 deep: the decoder's stack overflows (RecursionError).
NESTED = '{"hash":"0","n":1,"payload":' + "[" * 1000 + "]" * 1000 + ',"prev":"0"}\n'


def test_a_record_nested_too_deep_is_a_verdict_not_a_500(api: ApiClient) -> None:
    ndjson = {"Content-Type": "application/x-ndjson"}
    for text in (NESTED, "[" * 100_000 + "\n", NESTED * 5):
        verdict = api.post("/v1/records/verify", data=text, headers=ndjson)
        assert verdict.status_code == 200, verdict.get_data(as_text=True)
        assert verdict.json["checks"] == {"structure": "failed"}
        assert "nests JSON deeper" in verdict.json["divergence"]["message"]


def test_risk_verify_names_a_record_nested_too_deep(tmp_path: Path) -> None:
    record = tmp_path / "deep.jsonl"
    record.write_text(NESTED)
    result = CliRunner().invoke(main, ["verify", str(record)])
    assert result.exit_code == 1, result.output
    assert "nests JSON deeper" in result.output


@pytest.mark.parametrize(
    "name", ["a\x00b", "Eve\r\nX-Admin: 1", "\u202eevil", "a\u2066b", "z\u200bw"]
)
def test_seat_names_refuse_control_and_bidi_characters(api: ApiClient, name: str) -> None:
    """Only the length was checked: NUL, CR/LF and U+202E (which turns the text after it
    around on every player's screen) went into a seat's name (issue 36, item 9)."""
    seats = [{"kind": "human", "name": name}, {"kind": "human"}, {"kind": "human"}]
    answer = api.post("/v1/games", json={"seats": seats})
    body = problem(answer, 400, "invalid_body")
    assert "bidirectional-override" in body["detail"], body
    assert api.get("/v1/games").json["games"] == []
    game, _ = api.create([{"kind": "human"}, {"kind": "human", "name": "Åsa ☃"}, {"kind": "human"}])
    assert api.get(f"/v1/games/{game}").status_code == 200


def test_the_spec_says_which_names_are_refused() -> None:
    """Every name a client sends has the server's pattern in openapi.yaml, so a
    generated client (and Schemathesis) knows a refused name before sending it."""
    schemas = SPEC["components"]["schemas"]
    for schema in ("HumanSeatRequest", "BotSeatRequest", "OpenSeatRequest", "JoinGame"):
        assert schemas[schema]["properties"]["name"]["pattern"] == NAME_PATTERN
