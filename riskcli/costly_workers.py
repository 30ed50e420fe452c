"""``risk worker``'s costly children (issue 54): analyses and records apart from games.

An analysis runs for minutes and, once started, holds its worker to the end:
in the worker that also plays bot turns and fires clocks it stopped every game
on the server. So ``risk worker`` (``--kind all``, the default) is a games
worker that also starts ``RISK_COSTLY_WORKERS`` child processes (default 1)
of ``risk worker --kind costly``, which take only ``workers.queues.COSTLY_QUEUES``
at a lower CPU priority (``RISK_COSTLY_NICE``, default 10, as the API's
verification helper has): the games worker keeps its queues to itself, and the
kernel gives it the CPU first on a busy machine.

The analysis job's own settings are read where it runs (``workers.analysis``):
``RISK_ANALYSIS_BUDGET`` (600 s, its hard time budget) and ``RISK_ANALYSIS_LEASE``
(30 s, how soon a job whose worker died reads as failed).

A child that dies (killed, out of memory) is started again after a short
pause; the job it held is reported failed when its lease runs out
(``service.store.analyses``). Each child is told by the kernel to stop
when its parent dies (Linux), and stopped with it on SIGTERM.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["CostlyChildren", "costly_nice", "costly_workers"]

log = logging.getLogger(__name__)
RESTART_PAUSE_S = 1.0


def costly_workers() -> int:
    """How many costly children ``--kind all`` starts (``RISK_COSTLY_WORKERS``)."""
    return _whole("RISK_COSTLY_WORKERS", 1)


def costly_nice() -> int:
    """The niceness a costly worker adds to its own (``RISK_COSTLY_NICE``)."""
    return _whole("RISK_COSTLY_NICE", 10)


def _whole(variable: str, default: int) -> int:
    text = os.environ.get(variable, str(default))
    if not text.isdigit():
        raise SystemExit(f"{variable} must be a whole number, not {text!r}")
    return int(text)


class CostlyChildren:
    """The costly worker processes, each started again when it exits unasked."""

    def __init__(self, count: int, log_level: str, burst: bool = False) -> None:
        self._count = count
        self._command = [sys.executable, "-m", "riskcli", "worker", "--kind", "costly"]
        self._command += ["--log-level", log_level, *(["--burst"] if burst else [])]
        self._burst = burst
        self._children: list[subprocess.Popen[bytes]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, name="costly", daemon=True)

    def start(self) -> None:
        with self._lock:
            self._children = [self._spawn() for _ in range(self._count)]
        if self._count:
            self._thread.start()

    def pids(self) -> list[int]:
        with self._lock:
            return [child.pid for child in self._children]

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(self._command, preexec_fn=_stop_with_parent(os.getpid()))

    def _watch(self) -> None:
        """Start a child again when it exits unasked (a burst run's children just end)."""
        while not self._stop.wait(0.5):
            with self._lock:
                for index, child in enumerate(self._children):
                    code = child.poll()
                    if code is None or self._burst or self._stop.is_set():
                        continue
                    log.warning("a costly worker exited with %s; starting another", code)
                    self._stop.wait(RESTART_PAUSE_S)
                    if not self._stop.is_set():
                        self._children[index] = self._spawn()

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM every child: it finishes its job in hand if it can within ``grace``
        seconds; then a second SIGTERM (RQ's cold shutdown: the job is stopped and an
        analysis reported failed, ``workers.analysis``), then SIGKILL."""
        self._stop.set()
        with self._lock:
            children = list(self._children)
        self._signal(children, signal.SIGTERM)
        if self._waited(children, grace):
            return
        self._signal(children, signal.SIGTERM)
        if not self._waited(children, 3.0):
            self._signal(children, signal.SIGKILL)
            self._waited(children, 5.0)

    @staticmethod
    def _signal(children: list[subprocess.Popen[bytes]], signum: int) -> None:
        for child in children:
            if child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    child.send_signal(signum)

    @staticmethod
    def _waited(children: list[subprocess.Popen[bytes]], seconds: float) -> bool:
        """Whether every child exited within ``seconds`` (all of them together)."""
        deadline = time.monotonic() + seconds
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(max(0.0, deadline - time.monotonic()))
        return all(child.poll() is not None for child in children)


def _stop_with_parent(parent: int) -> Callable[[], None] | None:
    """What the child runs before ``exec``: ``prctl(PR_SET_PDEATHSIG, SIGTERM)``."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1

    def arm() -> None:
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)

    return arm
