"""The team game: two against two (docs/rules.md, "The team game").

Seats alternate between the teams (p1 and p3 are team A, p2 and p4 team B),
so turns alternate too, whoever rolls highest. Team-mates may stand in one
territory: the player with most armies there controls it, nobody on a tie
(``State.settle``). A team never attacks its own armies; it fortifies
through its own territories into any where the team stands, moving only
the mover's armies. Cards belong to the team: one hand per team, which the
team-mate whose turn it is plays. The first team to put one player of the
other out of the game wins.

What the rule book leaves open is decided here and written in docs/rules.md:
a territory holds armies of one team only (a conquest empties it, and no
rule moves armies into a territory of the other team); a player is out when
its last army on the board falls, even in a territory a team-mate holds;
attacks go out from territories the attacker controls; a tie of the other
team is defended by the tied player who plays next; a resignation loses
the game for the team, as an elimination does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from riskcore.engine.decision import Decision, check_territory, violation
from riskcore.engine.legal import Action, Builder
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import FORTIFY, State
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules.flow import finish_if_decided
from riskcore.rules.fortify import check_may_fortify

TEAMS = ("A", "B")  # seat p1 is in team A, p2 in B, p3 in A, p4 in B
TEAM_HAND = "team:"  # a team's hand id: "team:A"


def team_of(state: State, seat: str) -> str:
    team = state.seats[seat].team
    assert team is not None  # every seat of a team game has its team
    return team


def members(state: State, team: str) -> list[str]:
    """The team's players, in seat order."""
    return [s for s, info in state.seats.items() if info.team == team]


def stands_in(state: State, team: str, territory: str) -> bool:
    """Whether any army of ``team`` is in ``territory`` (all there are one team's)."""
    holder = state.owner.get(territory)
    if holder is not None:
        return state.seats[holder].team == team
    armies = state.armies
    return any(armies.get((territory, p), 0) > 0 for p in members(state, team))


def movable(state: State, seat: str, territory: str) -> int:
    """``seat``'s armies that may leave ``territory``: one army must stay, a
    team-mate's counts (docs/rules.md, "The team game")."""
    own = state.armies.get((territory, seat), 0)
    if territory in state.shared:
        return own
    return own - 1


def team_reach(state: State, seat: str, source: str) -> set[str]:
    """Where ``seat`` may fortify from ``source``: a neighbour where the team stands,
    or under ``fortify=connected`` any such territory along a path of them."""
    team = team_of(state, seat)
    neighbours = state.board.neighbours
    if state.rules.fortify == "adjacent":
        return {t for t in neighbours[source] if stands_in(state, team, t)}
    seen = {source}
    frontier = [source]
    while frontier:
        here = frontier.pop()
        for nxt in neighbours[here]:
            if nxt not in seen and stands_in(state, team, nxt):
                seen.add(nxt)
                frontier.append(nxt)
    seen.discard(source)
    return seen


def where_armies(state: State, seat: str) -> list[str]:
    """Territories holding armies of ``seat``, on the board's order."""
    armies = state.armies
    return [t for t in state.board.territory_names if armies.get((t, seat), 0) > 0]


def team_fortify(d: Decision, command: cmd.Fortify) -> None:
    """docs/rules.md (the team game): from a territory with your armies into one where your team
    stands, through territories where it stands; only your armies move."""
    s = d.state
    seat, source, target = command.seat, command.source, command.target
    check_may_fortify(s, seat)
    check_territory(s, source)
    check_territory(s, target)
    if s.armies.get((source, seat), 0) < 1:
        raise violation("not_your_armies", f"you have no armies in {source!r} to move")
    if not stands_in(s, team_of(s, seat), target):
        raise violation("not_your_territory", f"{target!r} holds no army of your team")
    if target not in team_reach(s, seat, source):
        code = "not_adjacent" if s.rules.fortify == "adjacent" else "not_connected"
        path = f"from {source!r} to {target!r}"
        raise violation(code, f"no way through your team's territories {path}")
    most = movable(s, seat, source)
    if not 1 <= command.count <= most:
        raise violation(
            "invalid_count", f"move 1 to {most} of your armies from {source!r}, not {command.count}"
        )
    d.emit(ev.Fortified(seat=seat, source=source, target=target, count=command.count))


def _fortify_actions(s: State, seat: str) -> list[Action]:
    if s.fortified:
        return []
    actions: list[Action] = []
    for source in where_armies(s, seat):
        most = movable(s, seat, source)
        if most < 1:
            continue
        for target in sorted(team_reach(s, seat, source)):
            command = {"type": "fortify", "source": source, "target": target, "count": most}
            actions.append({"command": command, "bounds": {"count": [1, most]}})
    return actions


class TeamGame(GameMode):
    name = "team"
    title = "Team game: two against two"
    win_condition = (
        "A team wins when the other team is eliminated, and a team is out with its first"
        " player out: the first team to eliminate ONE player of the other wins. A player"
        " whose partner is out (eliminated, resigned or out of time) loses with the team."
    )
    players = (4, 4)
    # docs/rules.md: trades at the fixed values; the 2006 book's fortify along a path.
    rule_defaults: ClassVar[Mapping[str, Any]] = {"card_values": "fixed", "fortify": "connected"}
    own_options: ClassVar[frozenset[str]] = frozenset({"team_placement"})

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        seats = super().seat_list(players, rules)
        for index, seat in enumerate(seats):
            seat["team"] = TEAMS[index % 2]
        return seats

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {**super().command_handlers(), cmd.Fortify: team_fortify}

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        table = super().phase_actions()
        table[FORTIFY] = tuple(
            ("fortify", _fortify_actions) if name == "fortify" else (name, builder)
            for name, builder in table[FORTIFY]
        )
        return table

    def placeable(self, state: State, seat: str) -> list[str]:
        """The territories ``seat`` controls (``team_placement=controlled``), or
        where its armies stand (``present``, and for a player who controls none)."""
        controlled = state.territories_of(seat)
        if state.rules.team_placement == "present" or not controlled:
            return where_armies(state, seat)
        return controlled

    def attack_refusal(
        self, state: State, seat: str, source: str, target: str
    ) -> RuleViolation | None:
        defender = state.owner.get(target) or self.defender_of(state, target)
        if defender is not None and team_of(state, defender) == team_of(state, seat):
            return violation("team_mate", f"{target!r} is held by your team; attack the other one")
        return None

    def defender_of(self, state: State, target: str) -> str | None:
        """A tie: the tied player who plays next defends (docs/rules.md)."""
        armies = state.armies
        counts = {p: armies.get((target, p), 0) for p in state.order}
        most = max(counts.values(), default=0)
        if most < 1:
            return None
        order = list(state.order)
        start = order.index(state.current) + 1 if state.current in order else 0
        for seat in order[start:] + order[:start]:
            if counts[seat] == most:
                return seat
        return None  # pragma: no cover - ``most`` is someone's count

    def after_battle(self, d: Decision, event: ev.BattleResolved) -> None:
        """A player whose last armies fall where a team-mate still stands is out
        (no conquest follows, so the conquest's elimination test is not reached)."""
        s = d.state
        defender, target = event.defender, event.target
        if s.armies.get((target, defender), 0) > 0 or defender in s.out:
            return
        others = any(s.armies.get((target, p), 0) > 0 for p in s.seats if p != defender)
        if others and s.wiped_out(defender):
            d.emit(
                ev.PlayerEliminated(
                    seat=event.seat, player=defender, cards=(), must_trade=False, trade_down_to=None
                )
            )
            finish_if_decided(d)

    def cards_captured(self, state: State, player: str) -> tuple[int, ...]:
        """The hand is the team's: it stays with the team-mate (and the game is over)."""
        return ()

    def fortify_reach(self, state: State, seat: str, source: str) -> set[str]:
        return team_reach(state, seat, source)

    def outcome(self, state: State) -> Outcome | None:
        """docs/rules.md (the team game): the first team to put a player of the other out wins."""
        gone = [p for p in state.order if p in state.out]
        if not gone:
            return None
        loser = gone[0]
        losing_team = team_of(state, loser)
        winning_team = next(t for t in TEAMS if t != losing_team)
        reason = "elimination" if state.out[loser] == "eliminated" else "resignation"
        return Outcome(None, tuple(members(state, winning_team)), reason)

    def hand_of(self, state: State, seat: str) -> str:
        return TEAM_HAND + team_of(state, seat)

    def team_hand(self, state: State, team: str) -> list[int]:
        return state.hands.get(TEAM_HAND + team, [])

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        """Each team: its players, its hand's size, and the winner once decided."""
        teams = {
            team: {"players": members(state, team), "card_count": len(self.team_hand(state, team))}
            for team in TEAMS
        }
        won = {team_of(state, p) for p in state.winners}
        return {"teams": teams, "winning_team": won.pop() if len(won) == 1 else None}


register_mode(TeamGame)
