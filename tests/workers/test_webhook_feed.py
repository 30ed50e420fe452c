"""Issue 50: the webhook feed reads the outboxes in a consumer group of its own and makes
the deliveries of the events a game of an account's makes: game.created and
game.started when its record begins, turn.started when the account's seat comes to
act, game.finished with the result and the record's URL. Games of accounts without a
webhook make nothing; the relay's jobs are untouched (its own group)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import pytest
import redis as redis_lib
from sqlalchemy.engine import Engine

from service.application.game_types import SeatPlan
from service.application.games import GameService
from service.application.webhook_events import EVENT_TYPES
from service.application.webhooks import Webhooks, WebhookSettings
from service.store.accounts import AccountRow, AccountStore
from service.store.database import create_engine
from service.store.keys import KeySpace
from service.store.webhook_version import WebhookVersion
from service.store.webhooks import WebhookStore
from workers.queues import WEBHOOKS_QUEUE, queue
from workers.webhook_feed import WebhookFeed

SETTINGS = WebhookSettings(allow_private=True, public_url="https://risk.example")


@pytest.fixture
def engine(sqlite_url: str) -> Iterator[Engine]:
    engine = create_engine(sqlite_url)
    yield engine
    engine.dispose()


def new_account(engine: Engine) -> str:
    account_id = uuid.uuid4().hex[:16]
    row = AccountRow(account_id, f"p{account_id[:8]}", "human", None, int(time.time() * 1000))
    AccountStore(engine).create(row)
    return account_id


def payloads(webhooks: Webhooks, endpoint: str) -> list[dict[str, object]]:
    rows = webhooks.store.deliveries_of(endpoint, 100)
    return [json.loads(r.payload) for r in sorted(rows, key=lambda r: (r.created_ms, r.id))]


def test_an_accounts_game_makes_its_events_once(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    ada = new_account(engine)
    endpoint, _ = webhooks.register(ada, "http://127.0.0.1:9/h", EVENT_TYPES, None)
    sends = queue(redis, keys, WEBHOOKS_QUEUE)
    feed = WebhookFeed(redis, keys, sends, webhooks, consumer="f1")
    feed.ensure_groups()
    games = GameService(redis, keys)
    seats = [SeatPlan("human", name="Ada", account=ada), SeatPlan("human", name="Bob")]
    game = games.create(seats=seats, mode="two_player").info.game_id
    feed.run_once(block_ms=10)
    kinds = [p["type"] for p in payloads(webhooks, endpoint.id)]
    assert {"game.created", "game.started"} <= set(kinds)
    assert set(kinds) <= {"game.created", "game.started", "turn.started"}
    games.execute(game, "p1", {"type": "resign"})
    while feed.run_once(block_ms=10):
        pass
    found = payloads(webhooks, endpoint.id)
    [done] = [p for p in found if p["type"] == "game.finished"]
    assert done["data"] == {
        "game_id": game,
        "seat": "p1",
        "won": False,
        "winners": ["p2"],
        "version": games.load(game).version,
        "rated": False,
        "record_url": f"https://risk.example/v1/games/{game}/record",
    }
    turns = [p for p in found if p["type"] == "turn.started"]
    assert all(t["data"]["seat"] == "p1" for t in turns)
    assert len(turns) <= 1  # once per coming to act, not per event
    assert len(sends.get_job_ids()) == len(found)  # each delivery has its send job
    assert feed.sweep() == 0  # enqueued already: not again within a lease


def test_games_of_accounts_without_webhooks_make_nothing(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    feed = WebhookFeed(redis, keys, queue(redis, keys, WEBHOOKS_QUEUE), webhooks, consumer="f1")
    feed.ensure_groups()
    seats = [SeatPlan("human", name="Ada", account=new_account(engine)), SeatPlan("human")]
    GameService(redis, keys).create(seats=seats, mode="two_player")
    assert feed.run_once(block_ms=10) >= 1
    assert queue(redis, keys, WEBHOOKS_QUEUE).get_job_ids() == []


def test_an_endpoint_registered_just_before_a_game_gets_its_events(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    """The feed caches the accounts with endpoints for 2 s; registering one raises a
    counter the feed reads on meeting an account it does not know."""
    keys = KeySpace(key_prefix)
    version = WebhookVersion(redis, keys)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS, registered=version.bump)
    feed = WebhookFeed(redis, keys, queue(redis, keys, WEBHOOKS_QUEUE), webhooks, consumer="f1")
    feed.ensure_groups()
    games = GameService(redis, keys)
    early = [SeatPlan("human", name="Early", account=new_account(engine)), SeatPlan("human")]
    games.create(seats=early, mode="two_player")
    feed.run_once(block_ms=10)  # the feed now holds the (empty) set of accounts
    ada = new_account(engine)
    endpoint, _ = webhooks.register(ada, "http://127.0.0.1:9/h", ["game.started"], None)
    seats = [SeatPlan("human", name="Ada", account=ada), SeatPlan("human")]
    games.create(seats=seats, mode="two_player")
    feed.run_once(block_ms=10)
    assert [p["type"] for p in payloads(webhooks, endpoint.id)] == ["game.started"]
