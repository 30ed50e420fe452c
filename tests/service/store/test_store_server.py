"""The store on a private Redis started from deploy/redis.conf.

These tests start their own redis-server on the shipped file (private
socket and directory) because they do what the shared test server must not
see: restart it, flush its scripts, drop its memory limit below its use.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as redis_lib

from riskcore.audit.chain import GENESIS
from service.store.errors import StoreFull
from service.store.event_store import EventStore
from service.store.keys import KeySpace
from service.store.values import new_events

CONF = Path(__file__).resolve().parents[3] / "deploy" / "redis.conf"


@contextlib.contextmanager
def shipped_redis(directory: Path) -> Iterator[redis_lib.Redis]:
    """redis-server on deploy/redis.conf, its data and socket in ``directory``."""
    process = start(directory)
    client = redis_lib.Redis(unix_socket_path=str(directory / "redis.sock"))
    try:
        yield client
    finally:
        client.close()
        stop(process)


def start(directory: Path) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server")
    if server is None:  # pragma: no cover - environment
        pytest.skip("redis-server is not installed")
    sock = directory / "redis.sock"
    args = [server, str(CONF), "--port", "0", "--unixsocket", str(sock), "--dir", str(directory)]
    process = subprocess.Popen([*args, "--daemonize", "no"], stdout=subprocess.DEVNULL)
    for _ in range(250):
        if sock.exists():
            return process
        assert process.poll() is None, "redis-server refused deploy/redis.conf"
        time.sleep(0.02)
    stop(process)
    pytest.fail("redis-server did not open its socket")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(10)


def test_the_shipped_config_is_durable_and_never_evicts(tmp_path: Path) -> None:
    names = ("appendonly", "appendfsync", "maxmemory-policy", "no-appendfsync-on-rewrite")
    with shipped_redis(tmp_path) as client:
        settings = {name: client.config_get(name)[name] for name in names}
        node_bytes = client.config_get("stream-node-max-bytes")["stream-node-max-bytes"]
    assert settings == {
        "appendonly": "yes",
        "appendfsync": "everysec",
        "maxmemory-policy": "noeviction",
        "no-appendfsync-on-rewrite": "no",
    }
    assert node_bytes == "8192"


def test_a_full_redis_refuses_appends_whole_and_keeps_what_it_has(tmp_path: Path) -> None:
    with shipped_redis(tmp_path) as client:
        store = EventStore(client, KeySpace("full"))
        head = store.append("g", 0, new_events(GENESIS, [b'{"n":1}']), prev=GENESIS).head_hash
        used = client.info("memory")["used_memory"]
        client.config_set("maxmemory", used // 2)  # over the limit: noeviction refuses writes
        with pytest.raises(StoreFull):
            store.append("g", 1, new_events(head, [b'{"n":2}', b'{"n":3}']), prev=head)
        assert [e.payload for e in store.read("g")] == [b'{"n":1}']
        assert store.head("g") == (1, head)
        assert len(store.notifications(store.keys.partition("g"))) == 1
        client.config_set("maxmemory", 0)
        assert store.append("g", 1, new_events(head, [b'{"n":2}']), prev=head).last_version == 2


def test_noscript_after_a_script_flush_reloads_and_appends_once(tmp_path: Path) -> None:
    with shipped_redis(tmp_path) as client:
        store = EventStore(client, KeySpace("ns"))
        head = store.append("g", 0, new_events(GENESIS, [b'{"n":1}']), prev=GENESIS).head_hash
        client.script_flush()
        assert client.script_exists(store._append.sha) == [False]
        store.append("g", 1, new_events(head, [b'{"n":2}']), prev=head)
        assert client.script_exists(store._append.sha) == [True]
        assert [e.version for e in store.read("g")] == [1, 2]


def test_a_restart_forgets_scripts_but_not_events(tmp_path: Path) -> None:
    """Kill -9 after an acknowledged append, restart from the AOF, append again."""
    process = start(tmp_path)
    client = redis_lib.Redis(unix_socket_path=str(tmp_path / "redis.sock"))
    try:
        store = EventStore(client, KeySpace("rs"))
        payloads = [b'{"n":1}', b'{"n":2}', b'{"n":3}']
        result = store.append("g", 0, new_events(GENESIS, payloads), prev=GENESIS, seed=b"s")
        process.kill()  # no shutdown save: only the AOF brings the game back
        process.wait(10)
        (tmp_path / "redis.sock").unlink(missing_ok=True)
        process = start(tmp_path)
        assert client.script_exists(store._append.sha) == [False]
        more = new_events(result.head_hash, [b'{"n":4}'])
        assert store.append("g", 3, more, prev=result.head_hash).last_version == 4
        events = store.read("g")
        assert [e.payload for e in events] == [*payloads, b'{"n":4}']
        assert store.seed("g") == b"s"
        assert len(store.notifications(store.keys.partition("g"))) == 2
    finally:
        client.close()
        stop(process)
