"""deploy/redis.conf starts a real Redis with the durability the store relies on."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as redis_lib

CONF = Path(__file__).resolve().parents[2] / "deploy" / "redis.conf"


@pytest.fixture
def configured(tmp_path: Path) -> Iterator[redis_lib.Redis]:
    """redis-server on the shipped file, on a private socket and directory."""
    server = shutil.which("redis-server")
    if server is None:  # pragma: no cover - environment
        pytest.skip("redis-server is not installed")
    sock = tmp_path / "redis.sock"
    args = [server, str(CONF), "--port", "0", "--unixsocket", str(sock), "--dir", str(tmp_path)]
    process = subprocess.Popen([*args, "--daemonize", "no"], stdout=subprocess.DEVNULL)
    client = redis_lib.Redis(unix_socket_path=str(sock))
    try:
        for _ in range(100):
            if sock.exists():
                break
            assert process.poll() is None, "redis-server refused deploy/redis.conf"
            time.sleep(0.02)
        yield client
    finally:
        client.close()
        process.terminate()
        process.wait(10)


def test_the_shipped_config_is_durable_and_never_evicts(configured: redis_lib.Redis) -> None:
    settings = {
        name: configured.config_get(name)[name]
        for name in ("appendonly", "appendfsync", "maxmemory-policy", "no-appendfsync-on-rewrite")
    }
    assert settings == {
        "appendonly": "yes",
        "appendfsync": "everysec",
        "maxmemory-policy": "noeviction",
        "no-appendfsync-on-rewrite": "no",
    }
    assert configured.config_get("stream-node-max-bytes")["stream-node-max-bytes"] == "8192"
