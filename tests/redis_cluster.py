"""A real three-primary Redis Cluster on free local ports, for the cluster tests.

Started from the machine's ``redis-server`` (no Docker here): three
cluster-enabled servers, the 16384 slots split between them with
``CLUSTER ADDSLOTSRANGE``, joined by ``CLUSTER MEET``; ready when every
node reports ``cluster_state:ok`` and knows all three. Nothing is kept on
disk beyond the nodes' config files in a temporary directory.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

SLOTS = 16384
NODES = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_node(directory: Path, port: int, bus: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            "redis-server",
            "--port", str(port),
            "--cluster-port", str(bus),  # not port + 10000, which may be taken or > 65535
            "--bind", "127.0.0.1",
            "--cluster-enabled", "yes",
            "--cluster-config-file", f"nodes-{port}.conf",
            "--dir", str(directory),
            "--save", "",
            "--appendonly", "no",
            "--logfile", str(directory / f"{port}.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _wait(check: object, what: str, timeout: float = 60) -> None:  # (20 s: once not, in CI)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except (redis.ConnectionError, redis.ResponseError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"Redis Cluster: {what} did not happen in {timeout} s")


@contextmanager
def redis_cluster(directory: Path) -> Iterator[str]:
    """Run a cluster until the block ends; yields the URL of its first node."""
    if shutil.which("redis-server") is None:
        raise FileNotFoundError("redis-server is not installed")
    ports = [_free_port() for _ in range(NODES)]
    buses = [_free_port() for _ in range(NODES)]
    processes = [_start_node(directory, port, bus) for port, bus in zip(ports, buses, strict=True)]
    try:
        nodes = [redis.Redis(host="127.0.0.1", port=port, socket_timeout=5) for port in ports]
        for node in nodes:
            _wait(node.ping, "a node answering")
        share = SLOTS // NODES
        for i, node in enumerate(nodes):
            last = SLOTS - 1 if i == NODES - 1 else (i + 1) * share - 1
            node.execute_command("CLUSTER ADDSLOTSRANGE", i * share, last)
        for port, bus in zip(ports[1:], buses[1:], strict=True):
            nodes[0].execute_command("CLUSTER MEET", "127.0.0.1", port, bus)
        for node in nodes:
            _wait(lambda n=node: _healthy(n), "the cluster forming")
        for node in nodes:
            node.close()
        yield f"redis://127.0.0.1:{ports[0]}"
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)


def _healthy(node: redis.Redis) -> bool:
    info = node.cluster("INFO")  # parsed by redis-py into a dict of strings
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == NODES
