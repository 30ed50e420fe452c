"""Helpers for the API tests: a test client that holds every response to openapi.yaml.

``ApiClient`` wraps Flask's test client; each response it returns has been
validated with openapi-core against the operation it answers (status code
documented, headers and body matching their schemas). A response to a URL
the spec does not describe fails the test too, except where a test asks
for one on purpose (``documented=False``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from flask.testing import FlaskClient
from marshmallow import Schema
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIResponse
from openapi_core.datatypes import RequestParameters
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from werkzeug.datastructures import Headers, ImmutableMultiDict
from werkzeug.test import TestResponse
from werkzeug.wrappers import Request, Response

from service.http import schemas
from service.settings import RateLimit

ROOT = Path(__file__).resolve().parents[2]
SPEC: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
_TEXT = {"text/html", "text/plain"}
_TEXT_BODIES = ("application/yaml", "application/x-ndjson", "text/event-stream")
# Bodies declared as text are text to openapi-core: the YAML document, the game
# record and the event stream are strings on the wire (``type: string``). What
# the text holds is checked here instead: the YAML is the spec, and each event
# of a stream is checked against the schema its media type names for one event
# (``x-itemSchema``, see ``stream_events``).
OPENAPI = OpenAPI.from_dict(
    SPEC,
    config=Config(
        extra_media_type_deserializers={
            "application/problem+json": json.loads,
            **{media: bytes.decode for media in (*_TEXT, *_TEXT_BODIES)},
        }
    ),
)
_SPEC_REGISTRY: Registry[Any] = Registry().with_resource(
    "urn:openapi", Resource.from_contents(SPEC, default_specification=DRAFT202012)
)


def _schema_validator(pointer: str) -> OAS31Validator:
    return OAS31Validator({"$ref": f"urn:openapi#{pointer}"}, registry=_SPEC_REGISTRY)


def _item_schema(operation: str, status: str, media: str) -> str:
    """The JSON pointer of the schema of one item of a stream's media type."""
    for item in SPEC["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and op.get("operationId") == operation:
                ref: str = op["responses"][status]["content"][media]["x-itemSchema"]["$ref"]
                return ref.removeprefix("#")
    raise KeyError(operation)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Server-Sent Events as the SSE format reads them: comments and the lone
    ``retry:`` frame dispatch nothing; ``data`` lines are joined by newlines."""
    events = []
    for frame in re.split(r"\r\n\r\n|\n\n|\r\r", text):
        fields: dict[str, Any] = {}
        data: list[str] = []
        for line in re.split(r"\r\n|\r|\n", frame):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name in ("event", "id"):
                fields[name] = value
            elif name == "retry" and value.isdigit():
                fields[name] = int(value)
        if data:
            events.append({"event": "message", **fields, "data": "\n".join(data)})
    return events


def stream_events(text: str) -> list[dict[str, Any]]:
    """The events of a ``streamEvents`` body, each checked against the spec's
    schema for one event, and its ``data`` (JSON) against that event's
    ``contentSchema``; returned with ``data`` decoded."""
    pointer = _item_schema("streamEvents", "200", "text/event-stream")
    item, union = _schema_validator(pointer), _at(pointer)
    checked = []
    for event in parse_sse(text):
        item.validate(event)
        member = _at(union["discriminator"]["mapping"][event["event"]].removeprefix("#"))
        content = member["properties"]["data"]["contentSchema"]
        data = json.loads(event["data"])
        if "$ref" in content:
            _schema_validator(content["$ref"].removeprefix("#")).validate(data)
        else:
            OAS31Validator(content).validate(data)
        checked.append({**event, "data": data})
    return checked


def _at(pointer: str) -> dict[str, Any]:
    node: Any = SPEC
    for part in pointer.removeprefix("/").split("/"):
        node = node[part]
    return dict(node)


class _SentRequest:
    """The request as openapi-core needs it to find the operation (no body: we
    validate responses; the tests send invalid requests on purpose)."""

    def __init__(self, request: Request) -> None:
        self.host_url = request.host_url
        self.path = request.path
        self.method = request.method.lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(request.args),
            header=Headers(request.headers),
            cookie=request.cookies,
        )
        self.body = b""
        self.content_type = "application/json"


def validate(response: TestResponse) -> None:
    """Raise unless ``response`` is what openapi.yaml says its operation answers.

    An event stream is checked without its body (reading it would wait for
    the stream to end); its frames are checked by the tests that read them.
    """
    checked: Response = response
    if response.is_streamed and response.mimetype == "text/event-stream":
        checked = Response(b": not read\n\n", response.status_code, headers=response.headers)
    OPENAPI.validate_response(_SentRequest(response.request), WerkzeugOpenAPIResponse(checked))
    if checked is response and response.mimetype == "text/event-stream":
        stream_events(response.get_data(as_text=True))
    if response.mimetype == "application/yaml":
        assert yaml.safe_load(response.get_data(as_text=True)) == SPEC
    _check_declared_headers(response)
    schema = _service_document(response)
    if schema is not None:
        assert schema().validate(response.json) == {}, (schema.__name__, response.json)


# The documents the service assembles, by operation and status: each has a
# marshmallow schema (service.http.schemas) that must load it as well.
_DOCUMENTS = {
    ("createGame", 201): schemas.GameCreated,
    ("listGames", 200): schemas.GameList,
    ("joinGame", 200): schemas.GameJoined,
    ("listLegalActions", 200): schemas.LegalActions,
    ("sendCommand", 200): schemas.CommandAccepted,
    ("listEvents", 200): schemas.EventPage,
    ("createTournament", 201): schemas.TournamentCreated,
    ("getTournament", 200): schemas.Tournament,
    ("listTournaments", 200): schemas.TournamentList,
}
_OPERATIONS = [
    (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), method.upper(), op["operationId"])
    for path, item in SPEC["paths"].items()
    for method, op in item.items()
    if isinstance(op, dict) and "operationId" in op
]


# Headers a client reads: each one sent must be declared on the response that sends it.
_CLIENT_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "Idempotent-Replayed",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
)


def _check_declared_headers(response: TestResponse) -> None:
    for pattern, method, operation in _OPERATIONS:
        if method == response.request.method and pattern.match(response.request.path):
            op = next(
                o
                for item in SPEC["paths"].values()
                for o in item.values()
                if isinstance(o, dict) and o.get("operationId") == operation
            )
            answer = op["responses"].get(str(response.status_code))
            if answer is None:
                return  # openapi-core has refused an undocumented status already
            if "$ref" in answer:
                answer = _at(answer["$ref"].removeprefix("#"))
            declared = {name.lower() for name in answer.get("headers", {})}
            sent = [h for h in _CLIENT_HEADERS if h in response.headers]
            undeclared = [h for h in sent if h.lower() not in declared]
            assert not undeclared, (operation, response.status_code, undeclared)
            return


def _service_document(response: TestResponse) -> type[Schema] | None:
    if response.mimetype == "application/problem+json":
        return schemas.Problem
    for pattern, method, operation in _OPERATIONS:
        if method == response.request.method and pattern.match(response.request.path):
            if operation == "getGame" and response.status_code == 200:
                return schemas.LobbyView if response.json.get("version") == 0 else None
            return _DOCUMENTS.get((operation, response.status_code))
    return None


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class ApiClient:
    """``sample`` n validates every n-th response only (for long game loops)."""

    def __init__(self, client: FlaskClient, sample: int = 1) -> None:
        self.client = client
        self.sample = sample
        self.calls = 0

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        documented: bool = True,
        **kwargs: Any,
    ) -> TestResponse:
        sent = {**bearer(token), **(headers or {})}
        response = self.client.open(path, method=method, headers=sent, **kwargs)
        self.calls += 1
        if documented and self.calls % self.sample == 0:
            validate(response)
        return response

    def get(self, path: str, **kwargs: Any) -> TestResponse:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> TestResponse:
        return self.call("POST", path, **kwargs)

    def create(
        self, seats: list[dict[str, Any]] | int = 3, **body: Any
    ) -> tuple[str, dict[str, str]]:
        """A game with ``seats`` (a count means that many humans); (game id, tokens)."""
        if isinstance(seats, int):
            seats = [{"kind": "human"} for _ in range(seats)]
        response = self.post("/v1/games", json={"seats": seats, **body})
        assert response.status_code == 201, response.json
        return response.json["game"]["game_id"], response.json["tokens"]

    def command(self, game: str, token: str, body: dict[str, Any], **headers: str) -> TestResponse:
        return self.post(f"/v1/games/{game}/commands", token=token, json=body, headers=headers)


def steady(limit: int) -> RateLimit:
    """``limit`` requests a day: rate limits count in fixed windows, and a test that
    counts up to a limit must not straddle a window's end, where the count restarts
    (a minute's window did, now and then, under a loaded CI)."""
    return RateLimit(limit, 86_400)


def problem(response: TestResponse, status: int, code: str) -> dict[str, Any]:
    """Assert an RFC 9457 problem with ``status`` and ``code``; return its body."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.json
    assert body["code"] == code, body
    assert body["status"] == status and body["type"] == f"/docs#problem-{code}"
    return body
