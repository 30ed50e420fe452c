"""The code mirrors openapi.yaml: routes, marshmallow schemas, query parameters.

Responses are held to the spec by every other API test (openapi-core); this
module checks what those cannot see: that each route is documented and each
documented operation routed, and that the marshmallow schemas which load
requests (and describe the service's own documents) have exactly the
fields, required fields, types, enums, bounds and defaults of the spec.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from marshmallow import Schema, fields, missing, validate
from openapi_spec_validator import validate as validate_spec

from riskcore.engine.registry import mode_named
from riskcore.modes import BUILT_IN_MODES
from riskcore.protocol.commands import SYSTEM_COMMANDS
from service.http.schemas import COMMAND_SCHEMAS, COMPONENTS, QUERIES, load_command
from tests.service.api_helpers import SPEC

SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]
# The commands of the modes the API serves (a test mode may register more).
SERVED_COMMANDS = {
    cls.TYPE for mode in BUILT_IN_MODES for cls in mode_named(mode).handlers
} - SYSTEM_COMMANDS
_TYPES = {
    fields.String: "string",
    fields.Integer: "integer",
    fields.Float: "number",
    fields.Boolean: "boolean",
    fields.List: "array",
    fields.Nested: "object",
    fields.Dict: "object",
}


def test_the_spec_is_valid_openapi_3_1() -> None:
    validate_spec(SPEC)
    assert SPEC["openapi"].startswith("3.1")


def _operations_in_spec() -> set[tuple[str, str]]:
    return {
        (method.upper(), re.sub(r"\{[^}]+\}", "{}", path))
        for path, item in SPEC["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    }


def test_every_route_is_documented_and_every_operation_routed(app: Flask) -> None:
    routed = {
        (method, re.sub(r"<[^>]+>", "{}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert routed == _operations_in_spec()


def _resolve(prop: dict[str, Any]) -> dict[str, Any]:
    """Follow a $ref (keywords beside it, such as a default, kept), and a "one of X or
    null" to X."""
    if "$ref" in prop:
        beside = {k: v for k, v in prop.items() if k != "$ref"}
        return {**_resolve(SCHEMAS[prop["$ref"].rsplit("/", 1)[1]]), **beside}
    options = [o for o in prop.get("oneOf", []) if o != {"type": "null"}]
    if len(options) == 1:
        return _resolve(options[0])
    return prop


def _spec_types(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property allows, "null" included, through $ref and oneOf."""
    if "$ref" in prop:
        return _spec_types(SCHEMAS[prop["$ref"].rsplit("/", 1)[1]])
    if "oneOf" in prop:
        return set().union(*(_spec_types(option) for option in prop["oneOf"]))
    if "const" in prop:
        return {"string"}
    kind = prop.get("type", "object")
    return set(kind) if isinstance(kind, list) else {kind}


def _field_types(field: fields.Field[Any]) -> set[str]:
    kind = next(name for cls, name in _TYPES.items() if isinstance(field, cls))
    return {kind, "null"} if field.allow_none else {kind}


def _validators(field: fields.Field[Any]) -> dict[str, Any]:
    """What a field's validators say, in the spec's words."""
    said: dict[str, Any] = {}
    for rule in field.validators:
        if isinstance(rule, validate.OneOf):
            said["enum"] = list(rule.choices)
        elif isinstance(rule, validate.Equal):
            said["const"] = rule.comparable
        elif isinstance(rule, validate.Range):
            said |= {"minimum": rule.min, "maximum": rule.max}
        elif isinstance(rule, validate.Length):
            said |= {"minLength" if _is_text(field) else "minItems": rule.min}
            said |= {"maxLength" if _is_text(field) else "maxItems": rule.max}
        elif isinstance(rule, validate.Regexp):
            said["pattern"] = rule.regex.pattern
    return {k: v for k, v in said.items() if v is not None}


def _is_text(field: fields.Field[Any]) -> bool:
    return isinstance(field, fields.String)


def _check_field(where: str, field: fields.Field[Any], prop: dict[str, Any]) -> None:
    resolved = _resolve(prop)
    assert _field_types(field) == _spec_types(prop), where
    for key, value in _validators(field).items():
        assert resolved.get(key) == value, f"{where}: {key} {resolved.get(key)!r} != {value!r}"
    for key in ("enum", "minimum", "maximum", "pattern", "minLength", "maxLength"):
        if key in resolved and not isinstance(field, fields.Nested):
            assert key in _validators(field), f"{where}: the spec's {key} is not checked"
    default = field.load_default
    if default is not missing and default is not None and not callable(default):
        assert resolved.get("default") == default, where


def _merged(spec: dict[str, Any]) -> dict[str, Any]:
    """A union told apart by one field (``kind`` of a seat) as the one marshmallow schema
    that loads it: every member's fields, that field's consts as its enum, and what
    every member requires."""
    if "oneOf" not in spec:
        return spec
    members = [_resolve(member) for member in spec["oneOf"]]
    tag = spec["discriminator"]["propertyName"]
    properties: dict[str, Any] = {}
    for member in members:
        for field_name, prop in member["properties"].items():
            properties.setdefault(field_name, prop)
    properties[tag] = {"type": "string", "enum": [m["properties"][tag]["const"] for m in members]}
    required = set.intersection(*(set(m.get("required", [])) for m in members))
    return {"properties": properties, "required": sorted(required)}


def _check_schema(name: str, schema: type[Schema], spec: dict[str, Any]) -> None:
    spec = _merged(spec)
    declared = schema().fields
    properties = spec.get("properties", {})
    assert set(declared) == set(properties), name
    required = {n for n, f in declared.items() if f.required}
    assert required == set(spec.get("required", [])), name
    for field_name, field in declared.items():
        _check_field(f"{name}.{field_name}", field, properties[field_name])


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_each_marshmallow_schema_mirrors_its_component(name: str) -> None:
    _check_schema(name, COMPONENTS[name], SCHEMAS[name])


@pytest.mark.parametrize("kind", sorted(SERVED_COMMANDS))
def test_each_command_schema_mirrors_its_component(kind: str) -> None:
    component = "".join(part.title() for part in kind.split("_")) + "Command"
    assert SCHEMAS[component]["properties"]["type"] == {"const": kind}
    _check_schema(component, COMMAND_SCHEMAS[kind], SCHEMAS[component])
    mapping = SCHEMAS["Command"]["discriminator"]["mapping"]
    assert mapping[kind] == f"#/components/schemas/{component}"


def test_the_command_union_lists_every_engine_command() -> None:
    assert set(SCHEMAS["Command"]["discriminator"]["mapping"]) == SERVED_COMMANDS
    assert len(SCHEMAS["Command"]["oneOf"]) == len(SERVED_COMMANDS)


@pytest.mark.parametrize("operation", sorted(QUERIES))
def test_each_query_schema_mirrors_its_operations_parameters(operation: str) -> None:
    found = [
        op
        for item in SPEC["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and op.get("operationId") == operation
    ]
    assert len(found) == 1, operation
    parameters = {p["name"]: p for p in found[0].get("parameters", []) if p["in"] == "query"}
    declared = QUERIES[operation]().fields
    assert set(declared) == set(parameters), operation
    for name, field in declared.items():
        assert field.required == parameters[name].get("required", False), name
        _check_field(f"{operation}?{name}", field, parameters[name]["schema"])


def test_an_integer_written_with_a_fraction_of_zero_is_that_integer() -> None:
    """JSON Schema's ``integer`` holds 3.0 (the fuzz test sent one): a client's JSON
    library may write it so; "3", true and 3.5 stay malformed (test_api_play)."""
    body = {"type": "place_armies", "territory": "alaska", "count": 3.0}
    loaded = load_command(body)
    assert loaded["count"] == 3 and type(loaded["count"]) is int
    claim = load_command({"type": "claim_adventure", "adventure": 16088.0, "territory": None})
    assert claim["adventure"] == 16088 and type(claim["adventure"]) is int
