"""openapi.yaml as generators read it (issue 20, docs/clients.md "What the spec promises
generators"): rules over the whole document, so that every endpoint and mode added
later keeps to them. The generators themselves run in tests/e2e/test_generated_clients.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from tests.service.api_helpers import SPEC

_METHODS = ("get", "post", "put", "patch", "delete")
# Keywords whose schemas only validate (conditions); generators do not make types of them.
_CONDITIONS = ("if", "then", "else", "not")


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in SPEC["paths"].items():
        for method in _METHODS:
            if method in item:
                yield path, method, item[method]


def _schemas(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in the document (outside conditions), with its place."""
    if isinstance(node, dict):
        if "type" in node or "oneOf" in node or "enum" in node or "properties" in node:
            yield where, node
        for key, value in node.items():
            if key not in _CONDITIONS:
                yield from _schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _schemas(value, f"{where}/{index}")


def _all_schemas() -> list[tuple[str, dict[str, Any]]]:
    return [*_schemas(SPEC["components"], "components"), *_schemas(SPEC["paths"], "paths")]


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return kind if isinstance(kind, list) else [kind]


def test_public_operations_declare_no_security() -> None:
    """`security: [{}]` alone reads as "authenticated" to openapi-python-client: an
    operation anyone may call has none (the document declares no global one)."""
    assert "security" not in SPEC
    alone = [op["operationId"] for _, _, op in _operations() if op.get("security") == [{}]]
    assert alone == []
    public = {op["operationId"] for _, _, op in _operations() if "security" not in op}
    assert {"healthz", "listGames", "verifyRecord", "getOdds"} <= public
    # createGame takes an account token as well as none (issue 49): optional, as getGame's
    assert SPEC["paths"]["/v1/games"]["post"]["security"][0] == {}


def test_every_union_member_is_a_named_schema() -> None:
    """An inline member gets a made-up name (`ViewOccupationType0`)."""
    inline = [
        f"{where}/{key}/{index}"
        for where, schema in _all_schemas()
        for key in ("oneOf", "anyOf")
        for index, member in enumerate(schema.get(key, []))
        if "$ref" not in member
        and member != {"type": "null"}
        and not set(_types(member)) <= {"array", "string", "integer", "number", "boolean"}
    ]
    assert inline == []


def test_an_enum_used_twice_is_a_named_schema() -> None:
    """The same inline enum in two places becomes two types (`Kind`, `Kind2`)."""
    inline = Counter(
        tuple(schema["enum"])
        for where, schema in _all_schemas()
        if "enum" in schema and where.count("/") != 2  # components/schemas/<Name>
    )
    assert [values for values, count in inline.items() if count > 1] == []


def test_every_object_says_what_it_holds() -> None:
    """An object without properties or additionalProperties is `Record<string, never>`."""
    empty = [
        where
        for where, schema in _all_schemas()
        if "object" in _types(schema)
        and not {"properties", "additionalProperties", "oneOf"} & set(schema)
    ]
    assert empty == []


def test_bodies_that_are_not_json_are_text_or_binary() -> None:
    """Generators parse a JSON schema as JSON: a stream, a YAML document or a record
    is a string on the wire; a stream names one event's schema in x-itemSchema; a
    multipart body is an object of parts, each a binary string."""
    found = []
    for _, _, op in _operations():
        bodies = [op.get("requestBody", {}), *op["responses"].values()]
        for body in bodies:
            for media, content in body.get("content", {}).items():
                if media == "application/json" or media.endswith("+json"):
                    continue
                found.append(media)
                if media == "multipart/form-data":  # parts, each a file (issue 54)
                    parts = content["schema"]["properties"].values()
                    assert all(p.get("format") == "binary" for p in parts), op["operationId"]
                    continue
                assert content["schema"].get("type") == "string", (op["operationId"], media)
                if media == "text/event-stream":
                    item = content["x-itemSchema"]["$ref"].rsplit("/", 1)[1]
                    assert "oneOf" in SPEC["components"]["schemas"][item]
    assert {"text/event-stream", "application/yaml", "application/x-ndjson"} <= set(found)


def test_headers_sent_on_v1_answers_are_declared() -> None:
    """Every `/v1` answer may carry the rate-limit headers (api_helpers checks each
    response of the suite for the headers it really sends)."""
    shared = SPEC["components"]["responses"]
    missing = []
    for path, _, op in _operations():
        if not path.startswith("/v1"):
            continue
        for status, answer in op["responses"].items():
            if "$ref" in answer:
                answer = shared[answer["$ref"].rsplit("/", 1)[1]]
            declared = set(answer.get("headers", {}))
            if not {"RateLimit-Limit", "RateLimit-Remaining"} <= declared:
                missing.append(f"{op['operationId']} {status}")
    assert missing == []
    game = SPEC["paths"]["/v1/games/{game_id}"]["get"]
    assert "If-None-Match" in {p["name"] for p in game["parameters"]}
