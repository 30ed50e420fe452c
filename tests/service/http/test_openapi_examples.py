"""openapi.yaml's examples (issue 38): every operation, command and event type has one,
each holds to its schema, the engine reads the command and event examples, and a real
`risk serve` takes every operation's example request as it stands, which is what
Swagger UI's "Try it out" sends."""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from werkzeug.test import encode_multipart

import riskcore.modes  # noqa: F401  (registers every mode's commands and events)
from riskcore.protocol.codec import event_from_dict
from riskcore.protocol.commands import COMMAND_TYPES, SYSTEM_COMMANDS, command_from_dict
from riskcore.protocol.events import EVENT_CLASSES
from tests.e2e.conftest import Stack, free_port, wait_ready
from tests.service.api_helpers import SPEC, _schema_validator

OPENAPI = Path(__file__).resolve().parents[3] / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete")
SCHEMAS = SPEC["components"]["schemas"]
# These answer with a page, a file or a text format that has no schema to hold an
# example to: Swagger UI's files, the web board's, the document itself, Prometheus'
# text; the tournament feed's frames are checked by test_api_tournaments.py, and a
# deletion answers 204 with no body.
NO_RESPONSE_EXAMPLE = {
    "metrics",
    "openapi",
    "docs",
    "docsUi",
    "docsUiFile",
    "lobbyPage",
    "gamePage",
    "accountPage",
    "playPage",
    "playerPage",
    "leaderboardsPage",
    "boardFile",
    "streamTournament",
    "deleteGame",
    "deleteAccount",  # 204: no body (issue 49)
    "revokeToken",
    "deleteWebhook",  # 204 (issue 50)
    "cancelChallenge",  # 204 (issue 49)
    "leavePairing",
}
# Swagger UI's own file names: schemathesis sends a parameter's example, and Flask's
# test client then leaves the file it served open (a ResourceWarning fails the fuzz).
NO_PARAMETER_EXAMPLE = {"docsUiFile"}
# Operations on finished games only (issue 37): the example game is running, so the
# real server must refuse them with 409 `game_running`.
FINISHED_GAMES_ONLY = {"startAnalysis", "getAnalysis", "listAnalyses", "forkGame"}
ADMIN = "admin-token-for-the-examples"


def pointer(*parts: str) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def at(where: str) -> Any:
    node: Any = SPEC
    for part in where.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def resolved(where: str) -> str:
    """The pointer of what ``where`` holds, through any `$ref`."""
    while isinstance(at(where), dict) and "$ref" in at(where):
        where = at(where)["$ref"].removeprefix("#")
    return where


def errors(schema_at: str, value: Any) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in _schema_validator(schema_at).iter_errors(value)]


def operations() -> Iterator[tuple[str, str, str]]:
    """(method, path, pointer) of every operation."""
    for path, item in SPEC["paths"].items():
        for method in METHODS:
            if method in item:
                yield method, path, pointer("paths", path, method)


def parameters_at(op_at: str) -> list[str]:
    """Pointers of an operation's parameters: its path's, then its own."""
    item_at = op_at.rsplit("/", 1)[0]
    return [
        resolved(f"{owner}/parameters/{index}")
        for owner in (item_at, op_at)
        for index, _ in enumerate(at(owner).get("parameters", []))
    ]


def examples_of(media: dict[str, Any]) -> dict[str, Any]:
    """A media type's examples by name (`example` alone is named `example`)."""
    named = {name: e["value"] for name, e in media.get("examples", {}).items()}
    return named | ({"example": media["example"]} if "example" in media else {})


def members(union: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(schema name, wire type, schema) of each member of a `type`-discriminated union."""
    for ref in SCHEMAS[union]["oneOf"]:
        name = ref["$ref"].rsplit("/", 1)[-1]
        yield name, SCHEMAS[name]["properties"]["type"]["const"], SCHEMAS[name]


def shipped(registry: dict[str, type]) -> set[str]:
    """The wire types riskcore itself registers: a test-only mode (tests/riskcore/capitals.py)
    registers its own when another test of this process imported it first."""
    return {kind for kind, cls in registry.items() if cls.__module__.startswith("riskcore.")}


def test_every_command_type_has_an_example_the_engine_parses() -> None:
    assert {kind for _, kind, _ in members("Command")} == shipped(COMMAND_TYPES) - SYSTEM_COMMANDS
    for name, kind, schema in members("Command"):
        assert schema.get("examples"), f"{name} has no example"
        for example in schema["examples"]:
            assert errors(pointer("components", "schemas", name), example) == [], name
            assert kind == command_from_dict(example, "p1").TYPE


def test_every_event_type_has_an_example_the_engine_decodes() -> None:
    assert {kind for _, kind, _ in members("Event")} == shipped(EVENT_CLASSES)
    for name, kind, schema in members("Event"):
        assert schema.get("examples"), f"{name} has no example"
        for example in schema["examples"]:
            assert errors(pointer("components", "schemas", name), example) == [], name
            assert kind == event_from_dict(example).TYPE


def test_every_operation_has_examples_that_hold_to_their_schemas() -> None:
    """Each parameter a request needs, each request body, and each JSON answer."""
    for method, path, op_at in operations():
        where, operation = f"{method.upper()} {path}", at(op_at)
        for parameter_at in parameters_at(op_at):
            parameter = at(parameter_at)
            if parameter.get("required") and operation["operationId"] not in NO_PARAMETER_EXAMPLE:
                assert "example" in parameter, f"{where}: {parameter['name']} has no example"
                assert errors(f"{parameter_at}/schema", parameter["example"]) == [], where
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            media_at = f"{op_at}/requestBody/content/{pointer(media_type)[1:]}"
            assert examples_of(media), f"{where}: its {media_type} body has no example"
            for name, value in examples_of(media).items():
                assert errors(f"{media_at}/schema", value) == [], (where, name)
        answered = []
        for status in operation["responses"]:
            response_at = resolved(f"{op_at}/responses/{status}")
            for media_type, media in at(response_at).get("content", {}).items():
                media_at = f"{response_at}/content/{pointer(media_type)[1:]}"
                for name, value in examples_of(media).items():
                    assert errors(f"{media_at}/schema", value) == [], (where, status, name)
                    answered.append(status)
                if status.startswith("2") and media_type == "application/json":
                    assert examples_of(media), (
                        f"{where}: its {status} answer has no example (`example:` beside its"
                        " `schema:`; a real answer of the server, trimmed, reads best)"
                    )
        if operation["operationId"] not in NO_RESPONSE_EXAMPLE:
            assert any(s.startswith("2") for s in answered), f"{where}: no answer has an example"


# A real server --------------------------------------------------------------------------


@pytest.fixture
def server(
    redis_url: str, key_prefix: str, redis: Any, tmp_path: Path, sqlite_url: str
) -> Iterator[Stack]:
    """`risk serve` alone: no worker, so nothing moves a game but the requests sent here;
    a migrated SQL database of its own (accounts, issue 49)."""
    env = os.environ | {
        "REDIS_URL": redis_url,
        "RISK_DATABASE_URL": sqlite_url,
        "RISK_KEY_PREFIX": key_prefix.replace("test:", "e2e-"),
        "RISK_RATE_TOKEN": "off",
        "RISK_RATE_IP": "off",
        "RISK_GAMES_PER_ADDRESS": "0",
        "RISK_ADMIN_TOKEN": ADMIN,
        "RISK_SSE_MAX_SECONDS": "1",  # the event streams end within the test
        "RISK_WEBHOOK_ALLOW_PRIVATE": "1",  # the webhook example's URL is local (issue 50)
        "PYTHONUNBUFFERED": "1",
    }
    port = free_port()
    stack = Stack(env, url=f"http://127.0.0.1:{port}", logs=tmp_path)
    stack.start("api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1")
    try:
        wait_ready(stack.url)
        yield stack
    finally:
        stack.stop_all()


def send(
    stack: Stack, method: str, path: str, body: Any = None, media: str = "", token: str = ""
) -> tuple[int, Any]:
    """(status, JSON body or bytes) of one request; a body of text is sent as it is, a
    multipart one as its parts (issue 54: a record and its parent's to verify)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None and media == "multipart/form-data":  # parts as fields (issue 54)
        boundary, data = encode_multipart(body)
        headers["Content-Type"] = f"{media}; boundary={boundary}"
    elif body is not None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        headers["Content-Type"] = media or "application/json"
    request = urllib.request.Request(stack.url + path, data, headers, method=method.upper())
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, kind, raw = (
                response.status,
                response.headers.get_content_type(),
                response.read(),
            )
    except urllib.error.HTTPError as error:
        status, kind, raw = error.code, error.headers.get_content_type(), error.read()
    return status, json.loads(raw) if kind.endswith(("/json", "+json")) and raw else raw


def body_examples(op_at: str) -> list[tuple[str, str, Any]]:
    """(media type, example name, value) of an operation's request body."""
    content = at(op_at).get("requestBody", {}).get("content", {})
    return [(m, n, v) for m, media in content.items() for n, v in examples_of(media).items()]


def url_of(path: str, op_at: str, ids: dict[str, str]) -> str:
    """The operation's URL with its path parameters (a game, a tournament of this
    server's where the example names one) and the query parameters it requires."""
    query = []
    for parameter_at in parameters_at(op_at):
        parameter = at(parameter_at)
        value = ids.get(parameter["name"], parameter.get("example"))
        if parameter["in"] == "path":
            path = path.replace("{" + parameter["name"] + "}", str(value))
        elif parameter["in"] == "query" and parameter.get("required"):
            query.append(f"{parameter['name']}={value}")
    return path + ("?" + "&".join(query) if query else "")


@pytest.mark.e2e
def test_every_example_request_is_taken_by_a_real_server(server: Stack) -> None:
    """The examples a person would try first, sent to `risk serve` in the order a game
    goes: create (each createGame example), join, play (claim_territory, the first
    command example and the body Swagger UI offers, by the seat whose turn it is), read,
    verify, then delete. Every
    one gets its documented success; the other command examples are taken as bodies
    (a rule of the game may refuse them here, 422, but never their shape, 400)."""
    by_id = {at(op)["operationId"]: (m, p, op) for m, p, op in operations()}
    created = {}
    for _, name, body in body_examples(by_id["createGame"][2]):
        status, answer = send(server, "POST", "/v1/games", body)
        assert status == 201, (name, answer)
        created[name] = answer
    first = created[next(iter(created))]
    game = first["game"]["game_id"]
    ids = {"game_id": game}

    _, _, tournament_at = by_id["createTournament"]
    [(_, _, tournament)] = body_examples(tournament_at)
    status, answer = send(server, "POST", "/v1/tournaments", tournament)
    assert status == 201, answer
    ids["tournament_id"] = answer["tournament"]["tournament_id"]

    [(_, _, join)] = body_examples(by_id["joinGame"][2])
    status, answer = send(server, "POST", f"/v1/games/{game}/join", join)
    assert status == 200, answer
    tokens = {**first["tokens"], answer["seat"]: answer["token"]}

    # The commands, in a game of three people still claiming (the rules' defaults).
    people = {"seats": [{"kind": "human"}] * 3}
    status, answer = send(server, "POST", "/v1/games", people)
    assert status == 201, answer
    claiming, seat_tokens = answer["game"]["game_id"], answer["tokens"]
    _, view = send(server, "GET", f"/v1/games/{claiming}")
    token = seat_tokens[view["current"]]
    commands = body_examples(by_id["sendCommand"][2])
    status, answer = send(
        server, "POST", f"/v1/games/{claiming}/commands", commands[0][2], token=token
    )
    assert status == 200, (commands[0][1], answer)
    for _, name, body in commands[1:]:
        status, answer = send(server, "POST", f"/v1/games/{claiming}/commands", body, token=token)
        assert status in (200, 422), (name, status, answer)  # resign is legal at any time

    # An account (issue 49): made by its example, it makes a token, revoked at the end.
    [(_, _, account)] = body_examples(by_id["createAccount"][2])
    status, answer = send(server, "POST", "/v1/accounts", account)
    assert status == 201, answer
    tokens["account"] = answer["token"]
    [(_, _, scoped)] = body_examples(by_id["createToken"][2])
    status, answer = send(server, "POST", "/v1/tokens", scoped, token=tokens["account"])
    assert status == 201, answer
    ids["token_id"] = answer["id"]

    # A webhook (issue 50), whose challenge.accepted delivery the redelivery example sends
    # again; the server allows the example's loopback URL (RISK_WEBHOOK_ALLOW_PRIVATE=1).
    [(_, _, hook)] = body_examples(by_id["createWebhook"][2])
    status, answer = send(server, "POST", "/v1/webhooks", hook, token=tokens["account"])
    assert status == 201, answer
    ids["webhook_id"] = answer["id"]
    status, answer = send(
        server, "POST", "/v1/challenges", {"bots": ["easy"]}, token=tokens["account"]
    )
    assert status == 201, answer
    status, answer = send(
        server, "GET", f"/v1/webhooks/{ids['webhook_id']}/deliveries", token=tokens["account"]
    )
    ids["delivery_id"] = answer["deliveries"][0]["id"]

    # Challenges and the pairing queue (issue 49): Bo, whom the opponents example names;
    # an open challenge of Ada's, which anyone may look at (the link); a seek to read
    # and leave. Accepting, declining and withdrawing need a challenge of their own each.
    tokens["Bo"] = send(server, "POST", "/v1/accounts", {"name": "Bo"})[1]["token"]
    status, answer = send(server, "POST", "/v1/challenges", {"open": True}, token=tokens["account"])
    assert status == 201, answer
    ids["challenge_id"] = answer["challenge"]["id"]
    status, answer = send(server, "POST", "/v1/pairing", {"players": 4, "wait": 600})
    assert status == 201, answer
    ids["seek_id"] = answer["seek"]["id"]
    answer_challenges(server, by_id, tokens)

    done = {"createGame", "createTournament", "joinGame", "sendCommand", "deleteGame"}
    done |= {"createAccount", "createToken", "deleteAccount", "createWebhook", "deleteWebhook"}
    done |= {"acceptChallenge", "declineChallenge", "cancelChallenge"}
    done |= NO_PARAMETER_EXAMPLE
    for operation_id, (method, path, op_at) in by_id.items():
        if operation_id in done:
            continue
        token = tokens["p1"] if "{game_id}" in path else ""
        if {"accountToken"} == {k for s in at(op_at).get("security", []) for k in s}:
            token = tokens["account"]
        bodies = body_examples(op_at) or [("", "", None)]
        for media, name, body in bodies:
            status, answer = send(
                server, method, url_of(path, op_at, ids), body, media, token=token
            )
            expected = min(s for s in at(op_at)["responses"] if s.startswith("2"))
            if operation_id in FINISHED_GAMES_ONLY:
                expected = "409"
                assert isinstance(answer, dict) and answer["code"] == "game_running", answer
            assert str(status) == expected, (operation_id, name, status, answer)

    method, path, op_at = by_id["deleteGame"]
    status, _ = send(server, method, url_of(path, op_at, ids), token=ADMIN)
    assert status == 204
    method, path, op_at = by_id["deleteWebhook"]
    status, _ = send(server, method, url_of(path, op_at, ids), token=tokens["account"])
    assert status == 204
    status, _ = send(server, "DELETE", "/v1/account", token=tokens["account"])
    assert status == 204


def answer_challenges(
    server: Stack, by_id: dict[str, tuple[str, str, str]], tokens: dict[str, str]
) -> None:
    """Each answer's example on a challenge of its own: someone without an account takes
    an open seat of Ada's, Ada declines Bo's challenge, and withdraws one of hers."""
    ada, bo = tokens["account"], tokens["Bo"]
    cases = [
        ("acceptChallenge", ada, {"open": True, "rated": False}, ""),
        ("declineChallenge", bo, {"opponents": ["Ada"]}, ada),
        ("cancelChallenge", ada, {"opponents": ["Bo"]}, ada),
    ]
    for operation_id, challenger, made, answerer in cases:
        status, answer = send(server, "POST", "/v1/challenges", made, token=challenger)
        assert status == 201, answer
        method, path, op_at = by_id[operation_id]
        url = url_of(path, op_at, {"challenge_id": answer["challenge"]["id"]})
        for media, name, body in body_examples(op_at) or [("", "", None)]:
            status, answer = send(server, method, url, body, media, token=answerer)
            expected = min(s for s in at(op_at)["responses"] if s.startswith("2"))
            assert str(status) == expected, (operation_id, name, status, answer)


def offered_by_swagger_ui(url: str) -> Any:
    """The body Swagger UI's "Try it out" fills in for `POST …/commands`, read from the
    page in headless Chromium; None without the system's Chromium."""
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and chromedriver):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,2000"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        browser.get(url + "/docs/ui/")
        wait = WebDriverWait(browser, 20)
        block = wait.until(lambda b: b.find_element(By.ID, "operations-play-sendCommand"))
        block.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        wait.until(lambda b: block.find_element(By.CSS_SELECTOR, ".try-out__btn")).click()
        body = "textarea.body-param__text"
        area = wait.until(lambda b: block.find_element(By.CSS_SELECTOR, body))
        return json.loads(area.get_attribute("value"))
    finally:
        browser.quit()


def test_the_document_has_no_key_twice() -> None:
    """PyYAML keeps the last of two equal keys without a word; the client generators
    (ruamel.yaml) refuse the document."""

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader: Strict, node: yaml.MappingNode) -> dict[Any, Any]:
        keys = [loader.construct_object(key) for key, _ in node.value]
        twice = {k for k in keys if keys.count(k) > 1}
        assert not twice, f"line {node.start_mark.line + 1}: {sorted(twice)} twice"
        return dict(loader.construct_pairs(node))

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    assert yaml.load(OPENAPI.read_text(), Loader=Strict)["openapi"]
