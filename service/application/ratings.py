"""Ratings of tournament entrants, with openskill, and the tournament table.

Elo rates two players; a Risk game has three to six, and a place matters,
not only the winner. openskill's Plackett-Luce model (a Bayesian rating
for many players per game, of the TrueSkill family, without its patent)
rates every seat of a game at once. A Risk game rewards the win alone, so
the winners share first place and every other seat ties second: ranking the
losers by when they went out would reward a bot that hides and outlasts
the others (the random bot, which hardly attacks, came second in most
three-player games that way), which is not skill at Risk. The table still
shows that order as the mean place. Each rating
is a mean ``mu`` and an uncertainty ``sigma`` (a normal belief about the
entrant's skill, 25 and 25/3 before any game); the table shows the 95%
interval ``mu ± 2 sigma`` and sorts by the *ordinal* ``mu - 3 sigma``, the
skill the entrant has with high confidence, so an entrant who was lucky in
few games does not top one proven over many.

Games are rated in their scheduled order, whatever order they finished in,
so a table is a function of the results: the same on every read and on
every server. Only openskill and the engine are imported here (no Flask,
no Redis): ``risk tournament`` uses it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from riskcore.tournament import Entrant, Outcome, standings

__all__ = ["Rating", "rate", "table"]

_MODEL = PlackettLuce()
Z_INTERVAL = 2.0  # mu ± 2 sigma: about 95% of a normal belief
Z_ORDINAL = 3.0  # openskill's default ordinal, mu - 3 sigma


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - Z_ORDINAL * self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "low": round(self.mu - Z_INTERVAL * self.sigma, 3),
            "high": round(self.mu + Z_INTERVAL * self.sigma, 3),
            "ordinal": round(self.ordinal, 3),
        }


def rate(entrant_ids: Sequence[str], outcomes: Sequence[Outcome]) -> dict[str, Rating]:
    """Every entrant's rating after ``outcomes``, rated in index order."""
    ratings = {e: _MODEL.rating(name=e) for e in entrant_ids}
    for outcome in sorted(outcomes, key=lambda o: o.index):
        seated = list(outcome.places)
        if len(seated) < 2:
            continue
        teams = [[ratings[e]] for e in seated]
        ranks = [1.0 if e in outcome.winners else 2.0 for e in seated]
        rated = _MODEL.rate(teams, ranks=ranks)
        for entrant, (new,) in zip(seated, rated, strict=True):
            ratings[entrant] = new
    return {e: Rating(r.mu, r.sigma) for e, r in ratings.items()}


def table(entrants: Sequence[Entrant], outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """The standings: one row per entrant, best ordinal first (ties: more wins, then id)."""
    ids = [e.id for e in entrants]
    rows = standings(ids, outcomes)
    ratings = rate(ids, outcomes)
    names: Mapping[str, Entrant] = {e.id: e for e in entrants}
    ordered = sorted(ids, key=lambda e: (-ratings[e].ordinal, -rows[e].wins, e))
    return [
        {"rank": rank, "name": names[e].name, **rows[e].to_dict(), "rating": ratings[e].to_dict()}
        for rank, e in enumerate(ordered, 1)
    ]
