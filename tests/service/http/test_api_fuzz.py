"""Schemathesis against the live app, from openapi.yaml: no 5xx, no answer off the spec.

Requests are generated from the spec (valid ones and deliberately invalid
ones) for every operation and sent to the WSGI app on the test Redis; each
response is checked for server errors, undocumented status codes, content
types and headers, and bodies that break their schema. A real game (with a
seat token) is created first and offered as the path's ``game_id`` and the
bearer token, so generated commands reach the engine instead of stopping
at a 404. Long-polls and streams are capped at a fraction of a second.
The number of examples per operation is bounded (``FUZZ_EXAMPLES``,
default 25) to keep the run under a minute; raise it for a deeper search.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
import yaml
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from service.http.app import create_app
from service.settings import RateLimit, Settings
from tests.service.api_helpers import SPEC

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))


@schemathesis.serializer("application/x-ndjson")
def _json_lines(ctx: Any, value: Any) -> bytes:
    """Game records are JSON Lines; a generated string or bytes body is sent as it is."""
    if isinstance(value, bytes):
        return value
    return value.encode() if isinstance(value, str) else str(value).encode()


ADMIN = "admin-secret"  # as in the settings fixture


@pytest.fixture
def fuzzed_app(settings: Settings, redis: Any) -> Flask:
    # Unknown challenge and seek ids count as guessed tokens per address (issue 49): the
    # fuzz sends hundreds from one address, so that limit is off here (it has its own
    # test, tests/service/http/test_api_challenges.py).
    quick = dataclasses.replace(
        settings,
        max_wait_seconds=0.05,
        sse_keepalive_seconds=0.05,
        sse_max_seconds=0.1,
        rate_guess=RateLimit(0, 1),
    )
    return create_app(quick)


@pytest.fixture
def live_game(fuzzed_app: Flask) -> Iterator[str]:
    """A running game; its first seat's token is what the generated requests carry."""
    created = fuzzed_app.test_client().post("/v1/games", json={"seats": [{"kind": "human"}] * 3})
    TOKENS["seat"] = created.json["tokens"]["p1"]
    yield created.json["game"]["game_id"]
    TOKENS.clear()


# A schema-valid request may still be refused by the game: 422 for a rule
# violation, 409 for a stale version or a lobby, and (creating a game) 400 for
# rule options that do not fit together, which JSON Schema cannot express; and
# (creating a game, issue 54) 409 for an Idempotency-Key used before with another body.
PLAYING = ["2xx", "304", "401", "403", "404", "409", "422"]
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {"positive_data_acceptance": {"expected-statuses": PLAYING}},
        "operations": [
            {
                "include-operation-id": "createGame",
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "409"]}
                },
            },
            # Likewise a fork's seats (bot and level names) and the version it continues after.
            {
                "include-operation-id": "forkGame",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*PLAYING, "400"]}},
            },
            # Likewise a tournament: bot and level names, formats and the games' setup.
            {
                "include-operation-id": "createTournament",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400"]}},
            },
            # A rated challenge needs an account token (issue 49: ratings are an
            # account's), a dependency between the caller and the body JSON Schema cannot
            # express: 400 rated_needs_account.
            {
                "include-operation-id": "createChallenge",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*PLAYING, "400"]}},
            },
            # The history's `result` is the named player's (issue 48): without `player`
            # it is refused, a dependency between parameters JSON Schema cannot express.
            {
                "include-operation-id": "listGames",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*PLAYING, "400"]}},
            },
            {
                "include-operation-id": "exportGames",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*PLAYING, "400"]}},
            },
            # A seek's mode and seat count must fit together, and a rated one needs an
            # account (issue 49): what JSON Schema cannot express.
            {
                "include-operation-id": "joinPairing",
                "checks": {"positive_data_acceptance": {"expected-statuses": [*PLAYING, "400"]}},
            },
            # Any bytes are a string on the wire, so a "wrongly typed" record is still a
            # record to judge: the verdict (200, ok false) is the right answer to it.
            {
                "include-operation-id": "verifyRecord",
                "checks": {"negative_data_rejection": {"enabled": False}},
            },
        ],
    }
)


# Every YAML media type schemathesis reads as YAML, so that this one is used for ours.
_YAML = ("text/yaml", "text/x-yaml", "text/vnd.yaml", "text/yml", "application/yaml")


@schemathesis.deserializer(*_YAML, "application/x-yaml")
def _yaml_text(ctx: Any, response: Any) -> str:
    """The document is a string (``type: string``); it must also be the spec itself."""
    text: str = response.content.decode()
    assert yaml.safe_load(text) == SPEC
    return text


def _per_event_schemas(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as schemathesis reads an OpenAPI 3.1 event stream: its ``schema`` is one
    event's. openapi.yaml declares the stream a string and names the schema of one event
    in ``x-itemSchema`` (OpenAPI 3.2's ``itemSchema``), so that is the one given here."""
    spec = copy.deepcopy(spec)
    for item in spec["paths"].values():
        for op in item.values():
            for response in op.get("responses", {}).values() if isinstance(op, dict) else ():
                for media in response.get("content", {}).values():
                    if "x-itemSchema" in media:
                        media["schema"] = media.pop("x-itemSchema")
    return spec


SCHEMA = schemathesis.openapi.from_dict(_per_event_schemas(SPEC), config=CONFIG)
TOKENS: dict[str, str] = {}


@SCHEMA.auth(refresh_interval=None)
class Tokens:
    """The live game's seat token, or the admin token where the spec asks for it.

    Given to schemathesis as auth (rather than set as a header) so that its
    own checks can also send the requests without it and expect a 401.
    """

    def get(self, case: Any, context: Any) -> str:
        # An operation without its own `security` has the document's (none: public).
        needs = context.operation.definition.raw.get("security", SPEC.get("security", []))
        admin = any("adminToken" in s for s in needs)
        return ADMIN if admin else TOKENS.get("seat", "rsk_not-yet")

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@SCHEMA.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_answers_every_generated_request_by_its_spec(
    case: Any, fuzzed_app: Flask, live_game: str
) -> None:
    if case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters["game_id"] = live_game
    case.operation.schema.app = fuzzed_app  # schemathesis's own probes go there too
    case.call_and_validate(app=fuzzed_app)
