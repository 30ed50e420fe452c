"""Faults: connections killed before, during and after an append; no Redis.

A small TCP relay sits between the store and Redis so a test can lose the
request on its way in, or hold the reply of a script that did run while the
connection is killed with CLIENT KILL from another connection: the two
cases a client cannot tell apart, and which a retry with the same
idempotency key must both make right. NOSCRIPT after a restart is tested
in test_store_server.py, on a private server: flushing the shared one's
scripts would race with other workers reloading them.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import uuid
from collections.abc import Iterator

import pytest
import redis as redis_lib
from redis.backoff import NoBackoff
from redis.retry import Retry

from riskcore.audit.chain import GENESIS
from service.store.errors import AppendOutcomeUnknown, StoreUnavailable
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import new_events

GAME = "game-1"


class Relay:
    """TCP relay to Redis that can drop the next EVALSHA or hold back its reply."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed: str | None = None  # "drop_request" or "hold_reply"
        self.holding = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        for sock in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            held = threading.Event()
            threading.Thread(
                target=self._inbound, args=(client, upstream, held), daemon=True
            ).start()
            threading.Thread(
                target=self._outbound, args=(upstream, client, held), daemon=True
            ).start()

    def _inbound(
        self, client: socket.socket, upstream: socket.socket, held: threading.Event
    ) -> None:
        while data := _recv(client):
            if self.armed and b"EVALSHA" in data.upper():
                mode, self.armed = self.armed, None
                if mode == "drop_request":
                    _close(client, upstream)
                    return
                held.set()
            with contextlib.suppress(OSError):
                upstream.sendall(data)
        _close(upstream)

    def _outbound(
        self, upstream: socket.socket, client: socket.socket, held: threading.Event
    ) -> None:
        while data := _recv(upstream):
            if held.is_set():
                self.holding.set()  # the script ran; its reply goes nowhere
                continue
            with contextlib.suppress(OSError):
                client.sendall(data)
        _close(client)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _close(*socks: socket.socket) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()


@pytest.fixture
def relay(redis: redis_lib.Redis) -> Iterator[Relay]:
    kwargs = redis.connection_pool.connection_kwargs
    proxy = Relay(kwargs.get("host", "127.0.0.1"), kwargs.get("port", 6379))
    yield proxy
    proxy.close()


def client_via(relay: Relay, redis: redis_lib.Redis, retries: int) -> redis_lib.Redis:
    """A client through the relay, named so CLIENT LIST can find its connection."""
    return redis_lib.Redis(
        host="127.0.0.1",
        port=relay.port,
        db=redis.connection_pool.connection_kwargs.get("db", 0),
        client_name=f"victim-{uuid.uuid4().hex[:8]}",
        retry=Retry(NoBackoff(), retries),
    )


def kill_when_held(relay: Relay, admin: redis_lib.Redis, name: str) -> threading.Thread:
    """Once the relay holds a reply, kill that connection from another connection."""

    def kill() -> None:
        assert relay.holding.wait(10)
        for entry in admin.client_list():
            if entry["name"] == name:
                admin.client_kill_filter(_id=entry["id"])

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def start_game(store: EventStore) -> bytes:
    result = store.append(GAME, 0, new_events(GENESIS, [b'{"n":1}']), prev=GENESIS)
    return result.head_hash


def assert_one_copy(store: EventStore, payload: bytes, versions: int) -> None:
    events = store.read(GAME)
    assert len(events) == versions
    assert [e.payload for e in events].count(payload) == 1
    notes = store.notifications(store.keys.partition(GAME))
    assert len(notes) == versions


def test_reply_lost_after_the_script_ran_then_retry_with_the_same_key(
    relay: Relay, redis: redis_lib.Redis, key_prefix: str
) -> None:
    victim = client_via(relay, redis, retries=0)
    store = EventStore(victim, KeySpace(key_prefix))
    head = start_game(store)
    events = new_events(head, [b'{"n":2}'])
    relay.armed = "hold_reply"
    killer = kill_when_held(relay, redis, victim.get_connection_kwargs()["client_name"])
    with pytest.raises(AppendOutcomeUnknown) as info:
        store.append(GAME, 1, events, prev=head, idempotency_key="turn-2")
    killer.join()
    assert info.value.idempotency_key == "turn-2"
    assert store.version(GAME) == 2  # it did happen
    again = store.append(GAME, 1, events, prev=head, idempotency_key="turn-2")
    assert again.replayed and again.last_version == 2
    assert_one_copy(store, b'{"n":2}', versions=2)
    victim.close()


def test_request_lost_before_the_script_ran_then_retry_with_the_same_key(
    relay: Relay, redis: redis_lib.Redis, key_prefix: str
) -> None:
    victim = client_via(relay, redis, retries=0)
    store = EventStore(victim, KeySpace(key_prefix))
    head = start_game(store)
    events = new_events(head, [b'{"n":2}'])
    relay.armed = "drop_request"
    with pytest.raises(AppendOutcomeUnknown):
        store.append(GAME, 1, events, prev=head, idempotency_key="turn-2")
    assert store.version(GAME) == 1  # it did not happen
    again = store.append(GAME, 1, events, prev=head, idempotency_key="turn-2")
    assert not again.replayed and again.last_version == 2
    assert_one_copy(store, b'{"n":2}', versions=2)
    victim.close()


def test_the_clients_own_retry_is_safe_without_a_caller_key(
    relay: Relay, redis: redis_lib.Redis, key_prefix: str
) -> None:
    """redis-py re-sends a command after a dropped connection; the private key makes
    that re-send a replay instead of a second copy or a false conflict."""
    victim = client_via(relay, redis, retries=3)
    store = EventStore(victim, KeySpace(key_prefix))
    head = start_game(store)
    relay.armed = "hold_reply"
    killer = kill_when_held(relay, redis, victim.get_connection_kwargs()["client_name"])
    result = store.append(GAME, 1, new_events(head, [b'{"n":2}']), prev=head)
    killer.join()
    assert result.replayed and result.last_version == 2
    assert_one_copy(store, b'{"n":2}', versions=2)
    victim.close()


def test_an_idle_connection_killed_by_the_server_is_replaced(
    redis: redis_lib.Redis, redis_url: str, key_prefix: str
) -> None:
    name = f"victim-{uuid.uuid4().hex[:8]}"
    victim = redis_lib.Redis.from_url(redis_url, client_name=name)
    store = EventStore(victim, KeySpace(key_prefix))
    head = start_game(store)
    killed = [
        redis.client_kill_filter(_id=c["id"]) for c in redis.client_list() if c["name"] == name
    ]
    assert killed
    store.append(GAME, 1, new_events(head, [b'{"n":2}']), prev=head)
    assert_one_copy(store, b'{"n":2}', versions=2)
    victim.close()


def test_an_append_is_one_round_trip(
    redis: redis_lib.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(redis, KeySpace(key_prefix))
    head = start_game(store)  # loads the script
    sent: list[object] = []
    original = redis_lib.connection.Connection.send_packed_command

    def counting(self: redis_lib.connection.Connection, *args: object, **kwargs: object) -> None:
        sent.append(args)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(redis_lib.connection.Connection, "send_packed_command", counting)
    store.append(GAME, 1, new_events(head, [b'{"n":2}', b'{"n":3}']), prev=head)
    assert len(sent) == 1


def test_no_redis_gives_typed_errors(key_prefix: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed when the block ends: nothing listens
    client = redis_lib.Redis(port=port, retry=Retry(NoBackoff(), 0), socket_connect_timeout=1)
    store = EventStore(client, KeySpace(key_prefix))
    with pytest.raises(StoreUnavailable):
        store.read(GAME)
    with pytest.raises(AppendOutcomeUnknown) as info:
        store.append(GAME, 0, new_events(GENESIS, [b"{}"]), prev=GENESIS)
    assert info.value.idempotency_key and info.value.idempotency_key.startswith("auto-")
