"""``/docs``: the OpenAPI document rendered as one self-contained HTML page.

Rendered on the server from ``openapi.yaml`` because the machines that run
this have no internet (no Swagger UI from a CDN) and a plain page is
enough to read: operations grouped by tag, their parameters, bodies and
responses, every schema with its fields, and the problem codes that the
``type`` of each error response links to (``/docs#problem-<code>``).
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

__all__ = ["render"]

_METHODS = ("get", "post", "put", "patch", "delete")
_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;padding:0 .2em}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;
text-align:left;vertical-align:top}.op{border-left:4px solid #48c;padding-left:1rem;margin:1.5rem 0}
.method{font-weight:bold;text-transform:uppercase}h3{margin-bottom:.2rem}
"""


def render(spec: dict[str, Any]) -> str:
    info = spec.get("info", {})
    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8>",
        f"<title>{escape(info.get('title', 'API'))}</title><style>{_STYLE}</style>",
        f"<h1>{escape(info.get('title', 'API'))}",
        f"<small>{escape(str(info.get('version')))}</small></h1>",
        _text(info.get("description", "")),
        "<p>The machine-readable contract is <a href=/openapi.yaml>/openapi.yaml</a>; "
        "<a href=/docs/ui/>/docs/ui/</a> shows it in Swagger UI (every field, example and "
        "response, and a form to try each call). Every problem <code>type</code> leads to "
        "<a href=#problems>its code below</a>.</p>",
    ]
    parts += _operations(spec)
    parts += _schemas(spec.get("components", {}).get("schemas", {}))
    parts += _problems(spec.get("x-problem-codes", {}))
    return "\n".join(parts)


def _text(text: str) -> str:
    """Paragraphs, with `backticks` as code: enough markup for the spec's prose."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "".join(f"<p>{_inline(p)}</p>" for p in paragraphs)


def _inline(text: str) -> str:
    """`code`, **bold** and [links](url): the Markdown the spec's prose uses."""
    html = re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text, quote=False))
    html = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", html)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', html)


def _ref(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f"<a href=#schema-{escape(name)}>{escape(name)}</a>"
    if "oneOf" in schema:
        return " | ".join(_ref(option) for option in schema["oneOf"])
    if schema.get("type") == "array":
        return f"array of {_ref(schema.get('items'))}"
    if "const" in schema:
        return f"<code>{escape(repr_json(schema['const']))}</code>"
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{escape(repr_json(v))}</code>" for v in schema["enum"])
    kind = schema.get("type", "any")
    return escape(" | ".join(kind) if isinstance(kind, list) else str(kind)) + _limits(schema)


def repr_json(value: Any) -> str:
    return json.dumps(value)


def _limits(schema: dict[str, Any]) -> str:
    """Bounds, lengths, patterns and the default: what a client must know to send a value."""
    words = {
        "minimum": "≥ {}",
        "maximum": "≤ {}",
        "minLength": "length ≥ {}",
        "maxLength": "length ≤ {}",
        "minItems": "≥ {} items",
        "maxItems": "≤ {} items",
        "pattern": "matching <code>{}</code>",
        "default": "default <code>{}</code>",
    }
    found = [
        words[key].format(escape(repr_json(schema[key]) if key == "default" else str(schema[key])))
        for key in words
        if key in schema
    ]
    return f" ({', '.join(found)})" if found else ""


def _operations(spec: dict[str, Any]) -> list[str]:
    parts = ["<h2>Operations</h2>"]
    for path, item in spec.get("paths", {}).items():
        shared = item.get("parameters", [])
        for method in _METHODS:
            if method in item:
                parts.append(_operation(path, method, item[method], shared, spec))
    return parts


def _responses(op: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """The operation's responses, shared ones (``$ref``) included."""
    shared = spec.get("components", {}).get("responses", {})
    return {
        status: shared.get(r["$ref"].rsplit("/", 1)[1], {}) if "$ref" in r else r
        for status, r in op.get("responses", {}).items()
    }


def _operation(
    path: str, method: str, op: dict[str, Any], shared: list[Any], spec: dict[str, Any]
) -> str:
    parts = [
        f"<div class=op id=op-{escape(op.get('operationId', ''))}>",
        f"<h3><span class=method>{method}</span> <code>{escape(path)}</code></h3>",
        f"<p><b>{_inline(op.get('summary', ''))}</b></p>",
        _text(op.get("description", "")),
    ]
    named = spec.get("components", {}).get("parameters", {})
    params = [
        named.get(p["$ref"].rsplit("/", 1)[1], {}) if "$ref" in p else p
        for p in [*shared, *op.get("parameters", [])]
    ]
    params = [p for p in params if "name" in p]
    if params:
        rows = "".join(
            f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
            f"<td>{_ref(p.get('schema'))}</td><td>{'yes' if p.get('required') else ''}</td>"
            f"<td>{_inline(p.get('description', ''))}</td></tr>"
            for p in params
        )
        parts.append(f"<table><tr><th>parameter<th>in<th>type<th>required<th></tr>{rows}</table>")
    body = op.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        parts.append(f"<p>Body ({escape(media)}): {_ref(content.get('schema'))}</p>")
    rows = "".join(
        f"<tr><td>{escape(str(status))}</td><td>{_inline(response.get('description', ''))}</td>"
        f"<td>{' '.join(_ref(c.get('schema')) for c in response.get('content', {}).values())}</td>"
        "</tr>"
        for status, response in _responses(op, spec).items()
    )
    parts.append(f"<table><tr><th>status<th>meaning<th>body</tr>{rows}</table></div>")
    return "\n".join(parts)


def _schemas(schemas: dict[str, Any]) -> list[str]:
    parts = ["<h2>Schemas</h2>"]
    for name, schema in schemas.items():
        parts.append(f"<h3 id=schema-{escape(name)}>{escape(name)}</h3>")
        parts.append(_text(schema.get("description", "")))
        if "oneOf" in schema:
            parts.append(f"<p>One of: {_ref(schema)}</p>")
        required = set(schema.get("required", []))
        rows = "".join(
            f"<tr><td><code>{escape(field)}</code></td><td>{_ref(spec)}</td>"
            f"<td>{'yes' if field in required else ''}</td>"
            f"<td>{_inline(spec.get('description', ''))}</td></tr>"
            for field, spec in schema.get("properties", {}).items()
        )
        if rows:
            parts.append(f"<table><tr><th>field<th>type<th>required<th></tr>{rows}</table>")
    return parts


def _problems(codes: dict[str, str]) -> list[str]:
    parts = ["<h2 id=problems>Problem codes</h2>", "<table><tr><th>code<th>meaning</tr>"]
    for code, meaning in codes.items():
        parts.append(
            f"<tr id=problem-{escape(code)}><td><code>{escape(code)}</code></td>"
            f"<td>{_inline(meaning)}</td></tr>"
        )
    parts.append("</table>")
    return parts
