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
from service.application.webhook_events import EVENT_TYPES, created_events
from service.application.webhooks import Webhooks, WebhookSettings
from service.store.accounts import AccountRow, AccountStore
from service.store.database import create_engine
from service.store.keys import KeySpace
from service.store.webhook_version import WebhookVersion
from service.store.webhooks import WebhookStore
from tests.service.api_helpers import SPEC, _schema_validator
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
    jobs = sends.get_jobs()
    assert {j.func_name for j in jobs} == {"workers.webhooks.deliver_many"}
    sent = [d for job in jobs for d in job.args[0]]
    assert sorted(sent) == sorted(r.id for r in webhooks.store.deliveries_of(endpoint.id, 100))
    assert len(jobs) <= 2  # a job a read, not a job a delivery
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


def test_game_created_at_creation_is_not_made_again_when_the_game_begins(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    """A game waiting for a player: the API made the creator's game.created at creation
    (``created_events``); when the joiner's seat fills it, the feed makes game.started
    for both and game.created for the joiner only (the creator's has the same id)."""
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    ada, bob = new_account(engine), new_account(engine)
    wanted = ["game.created", "game.started"]
    hooks = {
        a: webhooks.register(a, f"http://127.0.0.1:9/{a}", wanted, None)[0] for a in (ada, bob)
    }
    feed = WebhookFeed(redis, keys, queue(redis, keys, WEBHOOKS_QUEUE), webhooks, consumer="f1")
    feed.ensure_groups()
    games = GameService(redis, keys)
    seats = [SeatPlan("human", name="Ada", account=ada), SeatPlan("open")]
    info = games.create(seats=seats, mode="two_player").info
    assert info.version == 0  # waiting for a player
    webhooks.emit(created_events(info))  # what the API does (service.http.api.lobby)
    assert [p["type"] for p in payloads(webhooks, hooks[ada].id)] == ["game.created"]
    games.join(info.game_id, name="Bob", account=bob)
    while feed.run_once(block_ms=10):
        pass
    ada_got = [p["type"] for p in payloads(webhooks, hooks[ada].id)]
    assert sorted(ada_got) == ["game.created", "game.started"]
    assert sorted(p["type"] for p in payloads(webhooks, hooks[bob].id)) == ada_got and ada_got


def test_the_feed_begins_at_the_outboxes_end_and_resumes_where_it_stopped(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    """Issue 50: the first webhook worker of a deployment does not send what happened
    before it ran (no flood of old games' events); a feed started again (its group made
    already) takes up what happened while none ran."""
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    ada = new_account(engine)
    endpoint, _ = webhooks.register(ada, "http://127.0.0.1:9/h", ["game.started"], None)
    games = GameService(redis, keys)

    def new_game() -> str:
        seats = [SeatPlan("human", name="Ada", account=ada), SeatPlan("human")]
        return games.create(seats=seats, mode="two_player").info.game_id

    before = [new_game() for _ in range(3)]
    sends = queue(redis, keys, WEBHOOKS_QUEUE)
    feed = WebhookFeed(redis, keys, sends, webhooks, consumer="f1")
    feed.ensure_groups()
    assert feed.run_once(block_ms=10) == 0  # the old games' entries are not read
    first = new_game()
    assert feed.run_once(block_ms=10) >= 1
    while_down = new_game()  # no feed reads now
    again = WebhookFeed(redis, keys, sends, webhooks, consumer="f2")
    again.ensure_groups()  # the group exists: it stays where it was
    while again.run_once(block_ms=10):
        pass
    started = [p["data"]["game_id"] for p in payloads(webhooks, endpoint.id)]
    assert sorted(started) == sorted([first, while_down])
    assert not set(before) & set(started)


def test_fresh_deliveries_go_to_free_senders_and_the_rest_to_the_queue(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    """The feed hands what it makes to its own process's senders while one is free
    (no queue between them and the receiver) and enqueues the rest; the sweep's
    retries always go on the queue, for whichever webhook worker is free."""
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    ada, bob = new_account(engine), new_account(engine)
    endpoint, _ = webhooks.register(ada, "http://127.0.0.1:9/h", EVENT_TYPES, None)
    bobs, _ = webhooks.register(bob, "http://127.0.0.1:9/b", EVENT_TYPES, None)
    taken: list[str] = []

    def two_free_senders(delivery_id: str) -> bool:
        if len(taken) == 2:
            return False
        taken.append(delivery_id)
        return True

    sends = queue(redis, keys, WEBHOOKS_QUEUE)
    feed = WebhookFeed(redis, keys, sends, webhooks, consumer="f1", hand_off=two_free_senders)
    feed.ensure_groups()
    # Both seats are accounts with webhooks: whoever the dice let begin, a turn.started is made.
    seats = [SeatPlan("human", name="Ada", account=ada), SeatPlan("human", name="Bob", account=bob)]
    GameService(redis, keys).create(seats=seats, mode="two_player")
    feed.run_once(block_ms=10)
    made = [r.id for e in (endpoint, bobs) for r in webhooks.store.deliveries_of(e.id, 100)]
    assert len(made) == 5 and len(taken) == 2  # created and started for each, one turn.started
    queued = [d for job in sends.get_jobs() for d in job.args[0]]
    assert sorted(taken + queued) == sorted(made)
    webhooks.store.redeliver(taken[0], 0)  # due again: the sweep's
    sends.empty()
    assert feed.sweep() == 1
    [job] = sends.get_jobs()
    assert job.args[0] == [taken[0]] and len(taken) == 2  # enqueued, not handed off


def test_the_account_that_created_a_game_without_a_seat_hears_of_it(
    redis: redis_lib.Redis, key_prefix: str, engine: Engine
) -> None:
    """Issue 50: "a game of the account's (a seat bound to it, or a game it created)":
    an account that sets up a game for others hears of its creation, start and end with
    ``seat`` null, and of no turn (it has no seat to act)."""
    keys = KeySpace(key_prefix)
    webhooks = Webhooks(WebhookStore(engine), SETTINGS)
    host = new_account(engine)
    endpoint, _ = webhooks.register(host, "http://127.0.0.1:9/h", EVENT_TYPES, None)
    feed = WebhookFeed(redis, keys, queue(redis, keys, WEBHOOKS_QUEUE), webhooks, consumer="f1")
    feed.ensure_groups()
    games = GameService(redis, keys)
    seats = [SeatPlan("open"), SeatPlan("open")]
    info = games.create(seats=seats, mode="two_player", creator=host).info
    assert games.info(info.game_id).creator == host  # kept with the game's setup
    webhooks.emit(created_events(info, SETTINGS.public_url))  # what the API does
    games.join(info.game_id, name="Ada")
    games.join(info.game_id, name="Bob")
    games.execute(info.game_id, "p1", {"type": "resign"})
    while feed.run_once(block_ms=10):
        pass
    found = payloads(webhooks, endpoint.id)
    assert sorted(p["type"] for p in found) == ["game.created", "game.finished", "game.started"]
    assert all(p["data"]["seat"] is None for p in found)
    [done] = [p["data"] for p in found if p["type"] == "game.finished"]
    assert (done["won"], done["winners"]) == (None, ["p2"])
    for sent in found:  # as openapi.yaml's `webhooks:` section documents them
        schema = SPEC["webhooks"][sent["type"]]["post"]["requestBody"]["content"]
        _schema_validator(schema["application/json"]["schema"]["$ref"][1:]).validate(sent)
    url = f"https://risk.example/v1/games/{info.game_id}"
    assert {p["data"].get("url", url) for p in found} == {url}
