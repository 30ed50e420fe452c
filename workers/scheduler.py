"""The deadline scheduler: moves due jobs from RQ's scheduled registries to their queues.

Every ``risk worker`` runs one as a thread; one of them at a time holds a
lock per queue and does the moving, the others wait for it to lapse. RQ's
own scheduler (``work(with_scheduler=True)``) is not used: its lock lives
61 s and a worker that started while it was held retries only every 10
minutes, so a worker killed with ``kill -9`` left every clock dead for
minutes. Here the lock lives ``lock_seconds`` (3 s) and is renewed every
round (0.5 s), so when its holder dies, another worker takes over within
a few seconds. The lock keys and scripts are RQ's own, so this scheduler
and an RQ scheduler on the same queues also exclude each other.

A job is never due early: ``workers.clock.due_at`` rounds the deadline up
to RQ's whole seconds, and a deadline job that finds its clock still
running schedules itself again (``workers.jobs``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Sequence

from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue
from rq.scheduler import RQScheduler
from rq.scripts import acquire_or_refresh_lock, release_lock

log = logging.getLogger(__name__)
LOCK_SECONDS = 3
INTERVAL_SECONDS = 0.5


class DeadlineScheduler:
    """Moves due jobs of ``queues`` while it holds their locks; see the module docstring."""

    def __init__(
        self,
        connection: Redis,
        queues: Sequence[Queue],
        *,
        lock_seconds: int = LOCK_SECONDS,
        interval: float = INTERVAL_SECONDS,
        name: str | None = None,
    ) -> None:
        self.connection = connection
        self.names = [q.name for q in queues]
        self.lock_seconds = lock_seconds
        self.interval = interval
        self.name = name or f"deadlines-{uuid.uuid4().hex}"
        self.held: set[str] = set()
        self._mover = RQScheduler(
            self.names, connection=connection, serializer=queues[0].serializer
        )

    def tick(self) -> int:
        """One round: take or renew the locks, then move the due jobs of the queues held.

        Returns how many queues this scheduler holds.
        """
        held = set()
        for name in self.names:
            key = RQScheduler.get_locking_key(name)
            outcome = acquire_or_refresh_lock(self.connection, key, self.name, self.lock_seconds)
            if outcome == "acquired":
                log.info("scheduler %s took the lock of %s", self.name, name)
            if outcome != "taken":
                held.add(name)
        self.held = held
        if held:
            self._mover.prepare_registries(sorted(held))
            self._mover.enqueue_scheduled_jobs()
        return len(held)

    def release(self) -> None:
        """Give the locks up at once (a clean stop), so another worker need not wait."""
        for name in self.held:
            release_lock(self.connection, RQScheduler.get_locking_key(name), self.name)
        self.held = set()

    def run(self, stop: threading.Event) -> None:
        """Round after round until ``stop`` is set; a Redis outage is waited out."""
        try:
            while not stop.is_set():
                try:
                    self.tick()
                except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                    log.warning("scheduler lost Redis: %s", error)
                    self.held = set()
                    stop.wait(1.0)
                    continue
                stop.wait(self.interval)
        finally:
            with contextlib.suppress(RedisConnectionError, RedisTimeoutError, OSError):
                self.release()  # else the locks lapse on their own
