"""A Redis server of a test's own, on a free port, that the test may kill and restart.

The shared Redis of the suite must never go away under other tests, so the
tests of outages (a worker outliving a Redis restart, a replica that lost
its primary answering MASTERDOWN) start ``redis-server`` themselves. Nothing
is written to disk: a restart comes back empty unless ``appendonly`` is on,
which ``start(aof=True)`` turns on, in the test's temporary directory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """One ``redis-server`` on ``port``: ``kill`` (SIGKILL) and ``start`` again at will."""

    def __init__(self, directory: Path, *options: str, aof: bool = True) -> None:
        self.directory = directory
        self.port = free_port()
        self.options = options
        self.aof = aof
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.aof else []
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--dir", str(self.directory),
                "--logfile", str(self.directory / "redis.log"),
                *persistence,
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_timeout=2)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except (redis.ConnectionError, redis.exceptions.BusyLoadingError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
            except redis.ResponseError:
                break  # a replica without its primary answers PING with an error: it is up
        client.close()

    def kill(self) -> None:
        """``kill -9``: no shutdown, no final write beyond what AOF already has."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@contextmanager
def private_redis(directory: Path, *options: str, aof: bool = True) -> Iterator[PrivateRedis]:
    server = PrivateRedis(directory, *options, aof=aof)
    server.start()
    try:
        yield server
    finally:
        server.stop()
