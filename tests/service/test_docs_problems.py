"""Every problem ``type`` leads somewhere (issue 14): each code the API can answer with,
and each ``type`` URL written in openapi.yaml or the code, has its entry on ``/docs``;
and ``/docs/ui/`` serves Swagger UI from the server itself.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from riskcore.errors import BoardError, MalformedCommand, RuleOptionError
from service.errors import ServiceError
from service.problems import _HTTP_CODES
from service.store_errors import StoreFull, StoreUnavailable
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


def codes_the_api_can_answer() -> set[str]:
    """Rule codes of the engine, the service's own, the store's and the HTTP ones."""
    engine = set(re.findall(r'(?:violation|RuleViolation)\(\s*"([a-z_]+)"', _sources("riskcore")))
    service = _sources("service")
    raised = set(re.findall(r'(?:ApiProblem|problem_response)\(\s*\d{3},\s*"([a-z_]+)"', service))
    errors = {error.code for error in ServiceError.__subclasses__()}
    store = {StoreUnavailable.code, StoreFull.code}
    bad_input = {MalformedCommand.code, RuleOptionError.code, BoardError.code}
    http = set(_HTTP_CODES.values()) | {"http_error", "internal_error"}
    return engine | raised | errors | store | bad_input | http


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
