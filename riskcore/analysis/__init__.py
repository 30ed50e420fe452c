"""Game analysis: who was winning, when it turned, and which moves cost the most.

Pure engine code, like the rest of ``riskcore``: it reads a finished game's
events (envelopes, with the commands that caused them) and plays positions
out with the strong bot's rollout policy (``rollouts``). ``report.analyse``
is the one way in; docs/analysis.md explains the method and its calibration.
"""

from riskcore.analysis.report import DEFAULT_DEPTH, MAX_DEPTH, analyse

__all__ = ["DEFAULT_DEPTH", "MAX_DEPTH", "analyse"]
