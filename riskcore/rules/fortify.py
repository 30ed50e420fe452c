"""The fortify phase: one move between own territories (docs/rules.md, "Fortify")."""

from __future__ import annotations

from riskcore.boards.board import IMPASSABLE_KINDS
from riskcore.engine.decision import Decision, check_owns, check_turn, violation
from riskcore.errors import RuleViolation
from riskcore.model.state import ATTACK, FORTIFY, State
from riskcore.protocol import events as ev
from riskcore.protocol.commands import Fortify
from riskcore.rules.battle import check_attack_phase, not_a_border


def reachable(s: State, seat: str, source: str) -> set[str]:
    """Own territories a fortify from ``source`` may reach under the rule option."""
    if s.rules.fortify == "adjacent":
        holder = s.owner.get  # ``controller``, kept at hand: asked of every neighbour
        return {t for t in s.board.neighbours[source] if holder(t) == seat}
    holder = s.owner.get
    seen = {source}
    frontier = [source]
    while frontier:
        here = frontier.pop()
        for nxt in s.board.neighbours[here]:
            if nxt not in seen and holder(nxt) == seat:
                seen.add(nxt)
                frontier.append(nxt)
    seen.discard(source)
    return seen


def unreachable(s: State, source: str, target: str) -> RuleViolation:
    """Why a move from ``source`` cannot reach ``target``: a river or mountains between
    them (``battle.not_a_border``), else no border or no chain of your own."""
    if s.board.border_kind(source, target) in IMPASSABLE_KINDS or s.rules.fortify == "adjacent":
        return not_a_border(s, source, target)
    return violation("not_connected", f"cannot move from {source!r} to {target!r}")


def check_may_fortify(s: State, seat: str) -> None:
    """Fortifying needs the seat's turn and its fortify phase, once a turn."""
    check_turn(s, seat)
    if s.phase == FORTIFY and s.fortified:
        raise violation("already_fortified", "you have fortified this turn; end your turn")
    if s.phase == ATTACK:
        raise violation("wrong_phase", "end the attack phase before fortifying")
    if s.phase != FORTIFY:
        check_attack_phase(s)


def fortify(d: Decision, command: Fortify) -> None:
    s = d.state
    check_may_fortify(s, command.seat)
    check_owns(s, command.seat, command.source)
    check_owns(s, command.seat, command.target)
    if command.target not in s.mode.fortify_reach(s, command.seat, command.source):
        raise unreachable(s, command.source, command.target)
    most = s.troops(command.source) - 1
    if not 1 <= command.count <= most:
        raise violation(
            "invalid_count",
            f"move 1 to {most} armies from {command.source!r}, not {command.count!r}",
        )
    d.emit(
        ev.Fortified(
            seat=command.seat, source=command.source, target=command.target, count=command.count
        )
    )
