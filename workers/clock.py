"""The one place workers read the time, so tests move it with freezegun."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime


def now() -> float:
    """Seconds since the epoch."""
    return time.time()


def now_ms() -> int:
    return int(now() * 1000)


def due_at(epoch_ms: int) -> datetime:
    """When to schedule a job that must not run before ``epoch_ms``.

    RQ's scheduled registry keeps whole seconds (it truncates), so a job
    scheduled at 12:00:00.900 is due at 12:00:00 and can run 0.9 s early.
    Rounding up to the next whole second makes "due" never mean "early".
    """
    return datetime.fromtimestamp(math.ceil(epoch_ms / 1000), tz=UTC)
