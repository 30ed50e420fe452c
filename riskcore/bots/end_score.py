"""How a seat stands on the points a scored game ends on, and how near that end is.

Lord of the Rings Risk ends when the Fellowship leaves its path, and the most
points win (a territory 1, a whole region its bonus, a stronghold 2, the
adventure cards played); until then a seat may also win by conquest. The
strong bot's rollouts end a turn later on each seat's share of the strength
(``evaluate``), which counts armies the end does not score; as the
Fellowship nears its end, the points are what a position is worth.

Read from what the seat may see: the scores and the Fellowship's step are
public, in the mode's part of its view (``view()["mode_state"]``). Modes
without a scored end show neither, and get None.
"""

from __future__ import annotations

from riskcore.model.state import State
from riskcore.views.seatview import SeatView


def standing(state: State, seat: str) -> tuple[float, float] | None:
    """``seat``'s share of the points of the players still in, and how far along
    its path the Fellowship is (0 at its start, 1 once it left); None where the
    game ends on no score."""
    path = len(state.board.path)
    if not path:
        return None
    shown = SeatView(state, seat).mode_state()
    scores, fellowship = shown.get("scores"), shown.get("fellowship")
    if not scores or fellowship is None or seat not in scores:
        return None
    active = set(state.active_players())
    total = sum(row["total"] for player, row in scores.items() if player in active)
    share = scores[seat]["total"] / total if total > 0 else 0.0
    return share, min(1.0, fellowship["step"] / path)
