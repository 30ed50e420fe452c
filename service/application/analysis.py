"""Game analyses (issue 37): what asking for one costs, and where they are kept.

An analysis of a finished game (``riskcore.analysis``) is asked for once per
depth and run by a costly worker (``workers.analysis``); its status and
report are kept per game head by ``service.store.analyses`` and its job is
queued by ``service.store.queues`` (the service never imports workers).
Asking again for a queued, running or done analysis makes no second job
(idempotent); one whose worker died reads as failed once its lease runs out
(issue 54), and asking again starts it again.

What an address may have queued or running is bounded by weight, not count
(``pending_weight``, ``RISK_ANALYSES_PENDING``; kept by
``service.store.analyses.PendingAnalyses``).
"""

from __future__ import annotations

from service.store.analyses import KEEP_SECONDS, RUNNING_LEASE_MS, Analyses, PendingAnalyses
from service.store.queues import ANALYSIS_JOB

__all__ = [
    "ANALYSIS_JOB",
    "KEEP_SECONDS",
    "RUNNING_LEASE_MS",
    "Analyses",
    "PendingAnalyses",
    "cost_of",
    "pending_weight",
]


def cost_of(depth: int) -> int:
    """What starting an analysis costs from the address's budget of costly requests:
    a quarter of its depth, at least 1 (depth 8, the default, costs 2)."""
    return max(1, depth // 4)


def pending_weight(depth: int) -> int:
    """What a queued or running analysis weighs against the address's bound on them
    (``RISK_ANALYSES_PENDING``): its depth, which its work grows with."""
    return depth
