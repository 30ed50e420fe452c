"""The one place workers read the time, so tests move it with freezegun."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now() -> float:
    """Seconds since the epoch."""
    return time.time()


def now_ms() -> int:
    return int(now() * 1000)


def as_datetime(epoch_ms: int) -> datetime:
    """An aware UTC datetime, as RQ's scheduler wants."""
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
