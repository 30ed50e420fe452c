"""``risk worker`` and ``risk relay``: the processes an operator runs many of.

Imports Redis, RQ and the workers at the top: ``riskcli.main`` imports this
module only when one of the two commands runs.
"""

from __future__ import annotations

import os
import signal
import threading
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
from workers.queues import CLOCKS_QUEUE, GAMES_QUEUE, queue
from workers.relay import Relay


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


def _start_relay(
    store: Client, queues: redis.Redis, keys: KeySpace
) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    relay = Relay(store, keys, queue(queues, keys))
    thread = threading.Thread(target=relay.run, args=(stop,), name="relay", daemon=True)
    thread.start()
    return thread, stop


@click.command()
@click.option("--relay/--no-relay", default=True, show_default=True, help="Run a relay thread too.")
@click.option("--fork", is_flag=True, help="Run each job in a forked process (slower, isolated).")
@click.option("--burst", is_flag=True, help="Stop when the queues are empty.")
@click.option("--log-level", default="INFO", show_default=True)
def worker(relay: bool, fork: bool, burst: bool, log_level: str) -> None:
    """An RQ worker for bot turns and clocks (with RQ's scheduler), plus the relay.

    Stops gracefully on SIGTERM or Ctrl-C: the job in hand finishes first.
    Settings: REDIS_URL, RISK_REDIS_CLUSTER, RISK_QUEUE_URL, RISK_KEY_PREFIX.
    """
    logs.configure(log_level, json_lines=_json_logs())
    (store, connection), keys = _connections(), _keys()
    jobs.use_store(store)
    relay_thread = _start_relay(store, connection, keys) if relay else None
    queues = [queue(connection, keys, name) for name in (GAMES_QUEUE, CLOCKS_QUEUE)]
    worker_class = Worker if fork else SimpleWorker
    try:
        worker_class(queues, connection=connection, serializer=JSONSerializer).work(
            with_scheduler=True, burst=burst, logging_level=log_level
        )
    finally:
        if relay_thread is not None:
            relay_thread[1].set()
            relay_thread[0].join(timeout=5)


@click.command(name="relay")
@click.option("--log-level", default="INFO", show_default=True)
def relay_command(log_level: str) -> None:
    """Only the relay: outbox notifications to RQ jobs. Stops on SIGTERM or Ctrl-C."""
    logs.configure(log_level, json_lines=_json_logs())
    (store, connection), keys = _connections(), _keys()
    thread, stop = _start_relay(store, connection, keys)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    while thread.is_alive() and not stop.is_set():
        stop.wait(0.5)
    stop.set()
    thread.join(timeout=5)
