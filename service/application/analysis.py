"""Game analyses (issue 37): what asking for one costs, and where they are kept.

An analysis of a finished game (``riskcore.analysis``) is asked for once per
depth and run by a worker (``workers.analysis``); its status and report are
kept per game head by ``service.store.analyses`` and its job is queued by
``service.store.queues`` (the service never imports workers). Asking again
for a queued, running or done analysis makes no second job (idempotent).
"""

from __future__ import annotations

from service.store.analyses import KEEP_SECONDS, Analyses
from service.store.queues import ANALYSIS_JOB

__all__ = ["ANALYSIS_JOB", "KEEP_SECONDS", "Analyses", "cost_of"]


def cost_of(depth: int) -> int:
    """What starting an analysis costs from the address's budget of costly requests:
    a quarter of its depth, at least 1 (depth 8, the default, costs 2)."""
    return max(1, depth // 4)
