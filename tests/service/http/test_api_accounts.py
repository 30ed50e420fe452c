"""Accounts and scoped tokens over the API (issue 49): accounts with unique names,
tokens shown once and stored as hashes, scopes refused with `missing_scope`,
revocation at once in every process, seats bound to accounts, deletion that keeps
the records, and token guessing slowed per address."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from flask import Flask

from service.http.app import create_app
from service.settings import Settings
from service.store.database import create_engine
from tests.service.api_helpers import ApiClient, problem, steady


def account(api: ApiClient, name: str = "Ada") -> str:
    response = api.post("/v1/accounts", json={"name": name})
    assert response.status_code == 201, response.json
    token: str = response.json["token"]
    return token


def scoped(api: ApiClient, owner: str, *scopes: str) -> tuple[str, str]:
    """A new token of ``owner``'s account with ``scopes``: (its id, the token)."""
    response = api.post("/v1/tokens", json={"scopes": list(scopes)}, token=owner)
    assert response.status_code == 201, response.json
    return response.json["id"], response.json["token"]


def test_an_account_is_made_with_a_token_shown_once_and_stored_as_a_hash(
    api: ApiClient, settings: Settings
) -> None:
    created = api.post("/v1/accounts", json={"name": "Ada"})
    assert created.status_code == 201
    token = created.json["token"]
    assert token.startswith("rac_") and created.json["account"]["name"] == "Ada"
    me = api.get("/v1/account", token=token).json
    assert me["account"] == created.json["account"]
    assert set(me["scopes"]) == {
        "read",
        "game:create",
        "game:play",
        "webhook:manage",
        "account:manage",
    }
    engine = create_engine(settings.database_url)
    try:
        with engine.connect() as connection:
            stored = connection.execute(sa.text("SELECT hash FROM tokens")).scalars().all()
    finally:
        engine.dispose()
    assert stored == [hashlib.sha256(token.encode()).hexdigest()]
    listed = api.get("/v1/tokens", token=token).json["tokens"]
    assert [t["id"] for t in listed] == [me["token_id"]] and "token" not in listed[0]


def test_names_are_unique_regardless_of_case(api: ApiClient) -> None:
    account(api, "Ada")
    problem(api.post("/v1/accounts", json={"name": "ADA"}), 409, "name_taken")
    problem(api.post("/v1/accounts", json={"name": "bot-medium"}), 400, "invalid_name")
    problem(api.post("/v1/accounts", json={"name": "a b"}), 400, "invalid_body")


def test_a_token_lacking_a_scope_is_refused_with_the_scope_named(api: ApiClient) -> None:
    owner = account(api)
    _, reader = scoped(api, owner, "read")
    assert api.get("/v1/account", token=reader).status_code == 200
    refused = problem(
        api.post("/v1/tokens", json={"scopes": ["read"]}, token=reader), 403, "missing_scope"
    )
    assert refused["scope"] == "account:manage"
    # a token cannot make a token stronger than itself
    _, manager = scoped(api, owner, "account:manage")
    wider = api.post("/v1/tokens", json={"scopes": ["game:play"]}, token=manager)
    assert problem(wider, 403, "missing_scope")["scope"] == "game:play"


def test_a_revoked_token_is_refused_at_once_by_every_process(
    app: Flask, settings: Settings, api: ApiClient
) -> None:
    """Two apps on one Redis and one database stand for two server processes: each
    caches token lookups, and the revocation counter empties both caches."""
    other = create_app(settings)
    try:
        elsewhere = ApiClient(other.test_client())
        owner = account(api)
        token_id, token = scoped(api, owner, "read")
        assert elsewhere.get("/v1/account", token=token).status_code == 200  # now cached there
        assert api.call("DELETE", f"/v1/tokens/{token_id}", token=owner).status_code == 204
        problem(elsewhere.get("/v1/account", token=token), 401, "invalid_token")
        problem(api.get("/v1/account", token=token), 401, "invalid_token")
        problem(api.call("DELETE", f"/v1/tokens/{token_id}", token=owner), 404, "token_not_found")
    finally:
        other.extensions["risk"].archive.engine.dispose()


def test_an_account_token_plays_the_seat_it_created_or_joined_and_seat_tokens_still_work(
    api: ApiClient,
) -> None:
    ada, bo = account(api, "Ada"), account(api, "Bo")
    created = api.post(
        "/v1/games",
        json={"mode": "two_player", "seats": [{"kind": "human"}, {"kind": "open"}]},
        token=ada,
    )
    assert created.status_code == 201
    game = created.json["game"]["game_id"]
    assert created.json["game"]["seats"][0]["name"] == "Ada"
    joined = api.post(f"/v1/games/{game}/join", token=bo)
    assert joined.json["seat"] == "p2" and joined.json["game"]["seats"][1]["name"] == "Bo"
    view = api.get(f"/v1/games/{game}", token=bo).json
    assert view["viewer"] == "p2"
    current = view["current"]
    mover, seat_token = (
        (ada, created.json["tokens"]["p1"]) if current == "p1" else (bo, joined.json["token"])
    )
    legal = api.get(f"/v1/games/{game}/legal-actions", token=mover).json
    assert legal["seat"] == current
    sent = api.post(f"/v1/games/{game}/commands", json=legal["actions"][0]["command"], token=mover)
    assert sent.status_code == 200
    # the seat token of the same seat acts for it too, as before accounts
    assert api.get(f"/v1/games/{game}/legal-actions", token=seat_token).json["seat"] == current
    carol = account(api, "Carol")
    problem(api.get(f"/v1/games/{game}/legal-actions", token=carol), 403, "not_seated")


def test_a_read_only_token_is_refused_a_command_403(api: ApiClient) -> None:
    owner = account(api)
    game = api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner).json["game"]["game_id"]
    _, reader = scoped(api, owner, "read")
    assert api.get(f"/v1/games/{game}/legal-actions", token=reader).status_code == 200
    refused = api.post(f"/v1/games/{game}/commands", json={"type": "resign"}, token=reader)
    assert problem(refused, 403, "missing_scope")["scope"] == "game:play"


def test_a_deleted_account_keeps_its_games_records_under_a_replaced_name(api: ApiClient) -> None:
    owner = account(api, "Ada")
    game = api.post("/v1/challenges", json={"bots": ["easy"]}, token=owner).json["game"]["game_id"]
    assert api.call("DELETE", "/v1/account", token=owner).status_code == 204
    problem(api.get("/v1/account", token=owner), 401, "invalid_token")
    problem(api.get("/v1/players/Ada"), 404, "player_not_found")
    assert api.get(f"/v1/games/{game}").status_code == 200  # the game is still there
    account(api, "Ada")  # the name is free again


@pytest.fixture
def guarded(settings: Settings) -> Iterator[ApiClient]:
    app = create_app(dataclasses.replace(settings, rate_guess=steady(3)))
    yield ApiClient(app.test_client())
    app.extensions["risk"].archive.engine.dispose()


def test_guessing_account_tokens_is_rate_limited_per_address(guarded: ApiClient) -> None:
    for attempt in range(3):
        problem(guarded.get("/v1/account", token=f"rac_guess{attempt}"), 401, "invalid_token")
    problem(guarded.get("/v1/account", token="rac_guess4"), 429, "rate_limited")


def test_the_sql_door_migrates_a_new_sqlite_file_and_answers_503_without_a_database(
    settings: Settings, tmp_path: object
) -> None:
    """The accounts' stores are doors (issue 47 on issue 49): a new embedded SQLite
    file is migrated at its first use, and a database that cannot be reached is a
    503 `database_unavailable`, never a driver's error leaking as a 500."""
    for url, status in (
        (f"sqlite:///{tmp_path}/fresh.db", 201),
        ("postgresql://postgres@127.0.0.1:1/nothing?connect_timeout=1", 503),
    ):
        app = create_app(dataclasses.replace(settings, database_url=url))
        try:
            response = ApiClient(app.test_client()).post("/v1/accounts", json={"name": "Ada"})
            assert response.status_code == status, response.json
            if status == 503:
                problem(response, 503, "database_unavailable")
        finally:
            app.extensions["risk"].offload.close()
            app.extensions["risk"].archive.engine.dispose()
