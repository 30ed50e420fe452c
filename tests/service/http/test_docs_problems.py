"""Every problem ``type`` leads somewhere (issue 14): each code the API can answer with,
and each ``type`` URL written in openapi.yaml or the code, has its entry on ``/docs``;
and ``/docs/ui/`` serves Swagger UI from the server itself.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser

from riskcore.errors import BoardError, MalformedCommand, RuleOptionError
from service.application.errors import ServiceError
from service.http.problems import _HTTP_CODES
from service.store.errors import StoreFull, StoreUnavailable
from tests.service.api_helpers import ROOT, SPEC, ApiClient


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def _anchors(html: str) -> set[str]:
    parser = _Ids()
    parser.feed(html)
    return parser.ids


def _sources(folder: str) -> str:
    return "".join(p.read_text() for p in (ROOT / folder).rglob("*.py"))


# The calls that raise a problem, and which argument is its code.
_RAISERS = {"RuleViolation": 0, "violation": 0, "ApiProblem": 1, "problem_response": 1}


def _strings(node: ast.AST) -> set[str]:
    """The codes an expression can be: a literal, or either side of a conditional."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    return set()


def raised_codes(folder: str) -> tuple[set[str], list[str]]:
    """Every code passed to a raising call in ``folder``'s source: a literal, a
    conditional of literals, or a local variable assigned literals in the same
    function. Calls whose code cannot be read that way are returned as places."""
    codes: set[str] = set()
    unread: list[str] = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text())
        scopes = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for scope in [tree, *scopes]:
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call):
                    continue
                name = getattr(call.func, "id", getattr(call.func, "attr", None))
                where = _RAISERS.get(name or "")
                if where is None or len(call.args) <= where:
                    continue
                arg = call.args[where]
                found = (
                    _strings(arg)
                    if not isinstance(arg, ast.Name)
                    else {
                        code
                        for node in ast.walk(scope)
                        if isinstance(node, ast.Assign)
                        and any(getattr(t, "id", None) == arg.id for t in node.targets)
                        for code in _strings(node.value)
                    }
                )
                if isinstance(arg, ast.Name) and scope is tree:
                    continue  # read in its own function's scope
                if found:
                    codes |= found
                elif not _passed_on(arg, name or ""):
                    unread.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    return codes, sorted(set(unread))


def _passed_on(arg: ast.expr, raiser: str) -> bool:
    """A code this walk need not read: a helper's own ``code`` parameter (its callers
    are read), an error's ``.code`` (the error classes are listed on their own) or
    ``http_code(status)`` (its table is)."""
    if isinstance(arg, ast.Name):
        return arg.id == "code" and raiser in {"RuleViolation", "ApiProblem", "problem_response"}
    if isinstance(arg, ast.Attribute):
        return arg.attr == "code"
    return isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "http_code"


def codes_the_api_can_answer() -> set[str]:
    """Rule codes of the engine, the service's own, the store's and the HTTP ones."""
    engine, _ = raised_codes("riskcore")
    raised, _ = raised_codes("service")
    errors = {error.code for error in ServiceError.__subclasses__()}
    store = {StoreUnavailable.code, StoreFull.code}
    bad_input = {MalformedCommand.code, RuleOptionError.code, BoardError.code}
    http = set(_HTTP_CODES.values()) | {"http_error", "internal_error"}
    return engine | raised | errors | store | bad_input | http


def test_every_code_raised_in_the_source_is_read() -> None:
    """The walk above reads every raising call's code (a new way of passing a code
    would hide it from the list): none is left unread, and known ones are found."""
    engine, unread_engine = raised_codes("riskcore")
    service, unread_service = raised_codes("service")
    assert unread_engine == [] and unread_service == []
    assert {"not_connected", "not_adjacent", "waiting_for_defender", "must_claim"} <= engine
    assert {"invalid_last_event_id", "version_conflict"} <= service
    # And the other way: every rule code the spec lists is one the engine raises.
    listed = {c for c, meaning in SPEC["x-problem-codes"].items() if "Rule violation" in meaning}
    assert listed - engine == set()


def type_urls_written_down() -> set[str]:
    text = (ROOT / "openapi.yaml").read_text() + _sources("service") + _sources("riskcore")
    return set(re.findall(r"/docs#problem-([a-z_]+)", text))


def test_every_problem_type_url_resolves_on_docs(api: ApiClient) -> None:
    anchors = _anchors(api.get("/docs").get_data(as_text=True))
    codes = codes_the_api_can_answer() | type_urls_written_down()
    assert len(codes) > 60
    missing = sorted(code for code in codes if f"problem-{code}" not in anchors)
    assert not missing, f"no entry on /docs for {missing}"
    assert codes_the_api_can_answer() <= set(SPEC["x-problem-codes"])


def test_a_real_problem_links_to_its_entry(api: ApiClient) -> None:
    answered = api.client.get("/v1/games/g0000000000000000")
    problem = answered.get_json()
    path, fragment = problem["type"].split("#")
    assert fragment in _anchors(api.get(path).get_data(as_text=True))


def test_docs_render_enums_defaults_and_markdown(api: ApiClient) -> None:
    docs = api.get("/docs").get_data(as_text=True)
    assert "one of <code>&quot;claim&quot;</code>, <code>&quot;deal&quot;</code>" in docs
    assert "default <code>" in docs
    assert "<strong>Playing a game.</strong>" in docs
    assert "**" not in docs
    assert "<code>&quot;claim_territory&quot;</code>" in docs  # a command's const type


def test_swagger_ui_is_served_offline(api: ApiClient) -> None:
    page = api.get("/docs/ui/").get_data(as_text=True)
    assert "/docs/ui/swagger-ui-bundle.js" in page
    assert '"url": "/openapi.yaml"' in page
    assert '"validatorUrl": null' in page
    assert "https://" not in page
    bundle = api.client.get("/docs/ui/swagger-ui-bundle.js")
    assert bundle.status_code == 200
    assert len(bundle.data) > 100_000
    bundle.close()
