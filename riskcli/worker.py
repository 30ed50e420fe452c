"""``risk worker`` and ``risk relay``: the processes an operator runs many of.

Imports Redis, RQ and the workers at the top: ``riskcli.main`` imports this
module only when one of the two commands runs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click
import redis
from rq import SimpleWorker, Worker
from rq.serializers import JSONSerializer

from riskcli.costly_workers import CostlyChildren, costly_nice, costly_workers
from service import logs
from service.settings import Settings
from service.store.connections import queue_client, store_client
from service.store.errors import REDIS_OUTAGES
from service.store.keys import KeySpace
from service.store.values import Client
from workers import jobs
from workers.queues import (
    COSTLY_QUEUES,
    GAMES_QUEUES,
    WEBHOOK_WORKER_QUEUES,
    WEBHOOKS_QUEUE,
    WORKER_QUEUES,
    queue,
)
from workers.relay import Relay
from workers.scheduler import DeadlineScheduler

log = logging.getLogger(__name__)


# Every timeout is said here: redis-py 8 gives a client a 5 s socket timeout
# unless told otherwise (earlier versions none). Commands of the store and the
# helper threads answer in milliseconds; a longer wait means Redis is gone.
STORE_SOCKET_TIMEOUT_S = 10
HELPERS_SOCKET_TIMEOUT_S = 10


@dataclass(frozen=True)
class _Connections:
    """The worker process's Redis clients, one pool each.

    RQ's worker blocks in ``BLPOP`` for up to ``dequeue_timeout`` (405 s) and
    raises its client's socket timeout to fit, but only in the pool's settings:
    a connection the relay or the scheduler thread opened before that keeps the
    shorter timeout, and a ``BLPOP`` on it timed out after 5 s, again and again,
    while jobs popped by the abandoned reads were lost (a game stalled after a
    worker restart). So RQ's worker has a pool of its own, which nothing else uses.
    """

    store: Client
    helpers: redis.Redis  # the relay's enqueues, the deadline scheduler
    worker: redis.Redis  # RQ's worker alone; RQ sets its timeout


def _connections() -> _Connections:
    """The game store's clients and RQ's (one Redis, or a cluster and a Redis)."""
    settings = Settings.from_env()
    options: dict[str, Any] = {"health_check_interval": 30, "socket_keepalive": True}
    return _Connections(
        store=store_client(settings, socket_timeout=STORE_SOCKET_TIMEOUT_S, **options),
        helpers=queue_client(settings, socket_timeout=HELPERS_SOCKET_TIMEOUT_S, **options),
        worker=queue_client(settings, socket_timeout=None, **options),
    )


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


class _PromptStop:
    """RQ's worker, with a pubsub thread that notices a stop within a second.

    RQ 3 listens for its commands (``send_shutdown_command`` ...) in a thread
    that waits up to 60 s for a message, and redis-py 8's ``stop`` joins that
    thread: a SIGTERM then left the worker in its teardown for up to a minute
    (seen as "worker did not stop" in the end-to-end tests, a thread dump
    showing the join). The same subscription, waiting 1 s at a time.
    """

    def subscribe(self: Any) -> None:
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=1, daemon=True, exception_handler=self._pubsub_exception_handler
        )


class _SimpleWorker(_PromptStop, SimpleWorker):
    """Jobs in the worker's process (the default)."""


class _ForkingWorker(_PromptStop, Worker):
    """Each job in a forked process (``--fork``)."""


# What each ``--kind`` takes (issue 54): ``all`` is a games worker with costly children.
KIND_QUEUES = {"all": GAMES_QUEUES, "games": GAMES_QUEUES, "costly": COSTLY_QUEUES}


@click.command()
@click.option(
    "--kind",
    type=click.Choice(["all", "games", "costly", "both"]),
    default="all",
    show_default=True,
    help="games: bot turns and clocks; costly: records and analyses (niced); all: a games "
    "worker plus RISK_COSTLY_WORKERS costly child processes; both: every queue in one process.",
)
@click.option("--relay/--no-relay", default=True, show_default=True, help="Run a relay thread too.")
@click.option("--fork", is_flag=True, help="Run each job in a forked process (slower, isolated).")
@click.option("--burst", is_flag=True, help="Stop when the queues are empty.")
@click.option(
    "--webhooks",
    is_flag=True,
    help="Send webhooks only: the webhooks queue and the webhook feed, no games.",
)
@click.option("--log-level", default="INFO", show_default=True)
def worker(kind: str, relay: bool, fork: bool, burst: bool, webhooks: bool, log_level: str) -> None:
    """An RQ worker for bot turns and clocks, with a deadline scheduler and the relay,
    and its costly children for records and analyses (``--kind``).

    Stops gracefully on SIGTERM or Ctrl-C: the job in hand finishes first.
    Settings: REDIS_URL, RISK_REDIS_CLUSTER, RISK_QUEUE_URL, RISK_KEY_PREFIX,
    RISK_COSTLY_WORKERS (1), RISK_COSTLY_NICE (10).
    """
    logs.configure(log_level, json_lines=_json_logs())
    if kind == "costly":
        os.nice(costly_nice())  # games workers and the API go first for the CPU
    connections, keys = _connections(), _keys()
    jobs.use_store(connections.store)
    worker_class = _ForkingWorker if fork else _SimpleWorker
    names = KIND_QUEUES.get(kind, WORKER_QUEUES)
    threads = _Threads()
    if webhooks:  # issue 50: a process of its own, so receivers never slow a game
        from service.application.webhooks import WebhookSettings
        from workers.webhooks import finish_sends

        threads.start("webhook-feed", _webhook_feed(connections, keys).run)
        names: tuple[str, ...] = WEBHOOK_WORKER_QUEUES
        try:
            _work_through_outages(
                worker_class, connections.worker, keys, burst, log_level, threads, names
            )
        finally:
            finish_sends(WebhookSettings.from_env().timeout_s)  # the sends in hand
            threads.join()
        return
    if relay and kind != "costly":
        relay_queue = queue(connections.helpers, keys)
        threads.start("relay", Relay(connections.store, keys, relay_queue).run)
    scheduled = [queue(connections.helpers, keys, name) for name in names]
    threads.start("scheduler", DeadlineScheduler(connections.helpers, scheduled).run)
    children = CostlyChildren(costly_workers() if kind == "all" else 0, log_level, burst)
    children.start()
    try:
        _work_through_outages(
            worker_class, connections.worker, keys, burst, log_level, threads, names
        )
    finally:
        children.stop()
        threads.join()


def _work_through_outages(
    worker_class: type[Worker],
    connection: redis.Redis,
    keys: KeySpace,
    burst: bool,
    log_level: str,
    threads: _Threads,
    names: tuple[str, ...] = WORKER_QUEUES,
) -> None:
    """RQ's work loop, started again whenever Redis went away under it (issue 36, item 4).

    RQ's worker quits its loop on an error it does not expect, and a Redis
    restart in the middle of a job is one: the job fails, RQ's bookkeeping
    of the failure meets the dead connection, and the worker "found an
    unhandled exception, quitting" (bot games and clocks then stopped until
    something restarted the process). Here a loop that ended without a stop
    being asked for (SIGTERM, Ctrl-C, a helper thread that died, a burst run
    that is done) waits until Redis answers again, with backoff, and starts a
    new RQ worker. The job that failed is not lost: its game's lease runs out
    and the relay's watchdog makes a new one (``workers.claims``).
    """
    delay = 0.5
    while True:
        rq_worker = worker_class(
            [queue(connection, keys, name) for name in names],
            connection=connection,
            serializer=JSONSerializer,
        )
        try:
            rq_worker.work(burst=burst, logging_level=log_level)
            if burst or _stop_asked(rq_worker, threads):
                return
            log.warning("RQ's worker loop ended without a stop; starting a new one")
        except REDIS_OUTAGES as error:
            log.warning("Redis went away under RQ's worker: %s", error)
        finally:
            _stop_listening(rq_worker)
        if _stop_asked(rq_worker, threads):
            return
        delay = _wait_for_redis(connection, threads.stop, delay)


def _webhook_feed(connections: _Connections, keys: KeySpace) -> Any:
    """The webhook feed of a ``--webhooks`` worker, on the settings' database."""
    from service.application.webhooks import Webhooks, WebhookSettings
    from service.store.database import create_engine
    from service.store.webhooks import WebhookStore
    from workers.webhook_feed import WebhookFeed
    from workers.webhooks import hand_off

    store = WebhookStore(create_engine(Settings.from_env().database_url))
    webhooks = Webhooks(store, WebhookSettings.from_env())
    sends = queue(connections.helpers, keys, WEBHOOKS_QUEUE)
    return WebhookFeed(connections.store, keys, sends, webhooks, hand_off=hand_off)


def _stop_asked(rq_worker: Worker, threads: _Threads) -> bool:
    """A signal reached RQ's handler (it notes the time of the request, and sets
    ``_stop_requested`` only when busy), or a helper thread died."""
    asked = rq_worker._stop_requested or rq_worker._shutdown_requested_date is not None
    return asked or threads.stop.is_set() or bool(threads.died)


def _stop_listening(rq_worker: Worker) -> None:
    """RQ's pubsub thread outlives a loop that ended on an error: stop it."""
    thread = getattr(rq_worker, "pubsub_thread", None)
    if thread is not None:
        with contextlib.suppress(*REDIS_OUTAGES, RuntimeError):
            thread.stop()


def _wait_for_redis(connection: redis.Redis, stop: threading.Event, delay: float) -> float:
    """Block until Redis answers a PING (or a stop is asked for), retrying with a
    doubling delay up to 5 s; the next outage's first delay."""
    while not stop.is_set():
        try:
            connection.ping()
            return 0.5
        except REDIS_OUTAGES as error:
            log.warning("waiting %.1f s for Redis: %s", delay, error)
            stop.wait(delay)
            delay = min(5.0, delay * 2)
    return delay


@click.command(name="relay")
@click.option("--log-level", default="INFO", show_default=True)
def relay_command(log_level: str) -> None:
    """Only the relay: outbox notifications to RQ jobs. Stops on SIGTERM or Ctrl-C."""
    logs.configure(log_level, json_lines=_json_logs())
    connections, keys = _connections(), _keys()
    threads = _Threads()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: threads.stop.set())
    relay_queue = queue(connections.helpers, keys)
    threads.start("relay", Relay(connections.store, keys, relay_queue).run)
    while threads.alive() and not threads.stop.is_set():
        threads.stop.wait(0.5)
    threads.join()
