"""``risk worker`` and ``risk relay``: the processes an operator runs many of.

Imports Redis, RQ and the workers at the top: ``riskcli.main`` imports this
module only when one of the two commands runs.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import click
import redis
from rq import SimpleWorker, Worker
from rq.serializers import JSONSerializer

from service import logs
from service.connections import queue_client, store_client
from service.keys import KeySpace
from service.settings import Settings
from service.store import Client
from workers import jobs
from workers.queues import WORKER_QUEUES, queue
from workers.relay import Relay
from workers.scheduler import DeadlineScheduler

log = logging.getLogger(__name__)


def _connections() -> tuple[Client, redis.Redis]:
    """The game store's client and RQ's (one Redis, or a cluster and a Redis)."""
    settings = Settings.from_env()
    options: dict[str, Any] = {"health_check_interval": 30, "socket_keepalive": True}
    return store_client(settings, **options), queue_client(settings, **options)


def _json_logs() -> bool:
    """JSON lines unless RISK_LOG_FORMAT=text (for reading in a terminal)."""
    return os.environ.get("RISK_LOG_FORMAT", "json") != "text"


def _keys() -> KeySpace:
    return KeySpace(os.environ.get("RISK_KEY_PREFIX", "risk"))


class _Threads:
    """The worker's helper threads (relay, deadline scheduler), watched over.

    A thread that dies of an unexpected error takes the process down (a
    graceful SIGTERM to itself, then exit status 1), so a supervisor restarts
    it, instead of a worker that looks alive while bot games or clocks stop.
    """

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.died: list[str] = []
        self._threads: list[threading.Thread] = []

    def start(self, name: str, target: Callable[[threading.Event], None]) -> None:
        thread = threading.Thread(target=self._watch, args=(name, target), name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _watch(self, name: str, target: Callable[[threading.Event], None]) -> None:
        try:
            target(self.stop)
        except BaseException:
            log.critical("the %s thread died; stopping the process", name, exc_info=True)
            self.died.append(name)
            os.kill(os.getpid(), signal.SIGTERM)

    def alive(self) -> bool:
        return all(thread.is_alive() for thread in self._threads)

    def join(self) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.died:
            raise SystemExit(1)


@click.command()
@click.option("--relay/--no-relay", default=True, show_default=True, help="Run a relay thread too.")
@click.option("--fork", is_flag=True, help="Run each job in a forked process (slower, isolated).")
@click.option("--burst", is_flag=True, help="Stop when the queues are empty.")
@click.option("--log-level", default="INFO", show_default=True)
def worker(relay: bool, fork: bool, burst: bool, log_level: str) -> None:
    """An RQ worker for bot turns and clocks, with a deadline scheduler and the relay.

    Stops gracefully on SIGTERM or Ctrl-C: the job in hand finishes first.
    Settings: REDIS_URL, RISK_REDIS_CLUSTER, RISK_QUEUE_URL, RISK_KEY_PREFIX.
    """
    logs.configure(log_level, json_lines=_json_logs())
    (store, connection), keys = _connections(), _keys()
    jobs.use_store(store)
    queues = [queue(connection, keys, name) for name in WORKER_QUEUES]
    threads = _Threads()
    if relay:
        threads.start("relay", Relay(store, keys, queue(connection, keys)).run)
    threads.start("scheduler", DeadlineScheduler(connection, queues).run)
    worker_class = Worker if fork else SimpleWorker
    try:
        worker_class(queues, connection=connection, serializer=JSONSerializer).work(
            burst=burst, logging_level=log_level
        )
    finally:
        threads.join()


@click.command(name="relay")
@click.option("--log-level", default="INFO", show_default=True)
def relay_command(log_level: str) -> None:
    """Only the relay: outbox notifications to RQ jobs. Stops on SIGTERM or Ctrl-C."""
    logs.configure(log_level, json_lines=_json_logs())
    (store, connection), keys = _connections(), _keys()
    threads = _Threads()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: threads.stop.set())
    threads.start("relay", Relay(store, keys, queue(connection, keys)).run)
    while threads.alive() and not threads.stop.is_set():
        threads.stop.wait(0.5)
    threads.join()
