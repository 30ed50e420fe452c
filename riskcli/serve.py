"""``risk serve``: the API under gunicorn, configured from options and the environment.

gunicorn with gevent workers (``riskcli.http_workers``): long-polls and
event streams wait for minutes, and a greenlet per connection makes a
thousand of them cheap where a thread pool ran out at a few dozen;
processes use both cores for the CPU-bound part (deciding, folding, JSON).
``--worker-class gthread`` keeps the thread pool (``--threads`` per
process). Each worker builds its own app (and Redis clients) after the
fork, after gevent has patched the standard library. With more
than one worker, metrics are shared through ``PROMETHEUS_MULTIPROC_DIR``
(a private temporary directory unless one is set), so ``/metrics``
reports the whole server whichever worker answers.

This module imports gunicorn and the service at the top: ``riskcli.main``
imports it only when ``risk serve`` runs, and turns a missing server extra
into a one-line message.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from typing import Any

import click
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

from service import logs
from service.settings import Settings
from service.store.database import migrate

__all__ = ["serve"]
_WORKER_CLASSES = {
    "gevent": "riskcli.http_workers.GeventWorker",
    "gthread": "riskcli.http_workers.ThreadedWorker",
}


@click.command("serve")
@click.option("--bind", envvar="RISK_BIND", default="127.0.0.1:8000", show_default=True)
@click.option("--workers", envvar="RISK_WORKERS", type=click.IntRange(1, 64), default=2)
@click.option(
    "--worker-class",
    envvar="RISK_WORKER_CLASS",
    type=click.Choice(["gevent", "gthread"]),
    default="gevent",
    show_default=True,
    help="gevent: a greenlet per connection; gthread: a pool of --threads threads.",
)
@click.option("--threads", envvar="RISK_THREADS", type=click.IntRange(1, 256), default=16)
@click.option(
    "--connections",
    envvar="RISK_CONNECTIONS",
    type=click.IntRange(10),
    default=4000,
    show_default=True,
    help="Most connections a gevent worker serves at once.",
)
@click.option("--timeout", type=click.IntRange(5), default=60, help="Worker heartbeat timeout.")
@click.option("--access-log/--no-access-log", default=False, show_default=True)
@click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    default="INFO",
    show_default=True,
    help="The server's and gunicorn's; `risk dev` runs it at WARNING (its own lines first).",
)
def serve(
    bind: str,
    workers: int,
    worker_class: str,
    threads: int,
    connections: int,
    timeout: int,
    access_log: bool,
    log_level: str,
) -> None:
    """Serve the REST API (REDIS_URL, RISK_KEY_PREFIX, RISK_ADMIN_TOKEN, ... from the env)."""
    settings = Settings.from_env(  # fail fast
        bind=bind, workers=workers, threads=threads, connections=connections
    )
    logs.configure(
        log_level.upper(), json_lines=os.environ.get("RISK_LOG_FORMAT", "json") != "text"
    )
    # One JSON line per request (service.http.app) replaces gunicorn's access log.
    logging.getLogger("service.access").setLevel(logging.INFO if access_log else logging.WARNING)
    _migrate(settings)
    shared = _metrics_directory(workers)
    options = {
        "bind": bind,
        "workers": workers,
        "threads": threads,
        "worker_class": _WORKER_CLASSES[worker_class],
        "worker_connections": connections,
        "timeout": timeout,
        "graceful_timeout": 10,
        # Also the time a client has to send a request's headers (gevent), so a
        # slow client cannot hold a connection open by trickling them.
        "keepalive": 5,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": log_level.lower(),
        "limit_request_field_size": 8190,
        # gunicorn's control socket has one default path per user: every server on
        # the host (tests, benchmarks, `risk dev`) would fight over it. Not needed.
        "control_socket_disable": True,
        "child_exit": _child_exit,
    }
    try:
        _Server(settings, options).run()
    finally:
        if shared:
            shutil.rmtree(shared, ignore_errors=True)


def _migrate(settings: Settings) -> None:
    """Bring the archive's schema up to date before the workers fork (issue 48). A
    database that is away does not stop the server: live games are in Redis, and
    only the archive's reads answer 503 until it is back and migrated."""
    try:
        migrate(settings.database_url)
    except Exception as error:
        logging.getLogger(__name__).warning("archive not migrated: %s", error)


def _metrics_directory(workers: int) -> str | None:
    """Set up multi-process metrics; returns a directory to remove at exit, if we made it."""
    if workers < 2 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    directory = tempfile.mkdtemp(prefix="risk-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    return directory


def _child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


class _Server(BaseApplication):  # type: ignore[misc]
    """gunicorn run in-process, so ``risk serve`` needs no config file.

    The app is imported in ``load``, in each worker after the fork, so the
    metrics library sees ``PROMETHEUS_MULTIPROC_DIR`` before it starts.
    """

    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self._settings = settings
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            if value is not None:
                self.cfg.set(key, value)

    def load(self) -> Any:
        from service.http.app import create_app

        return create_app(self._settings)
