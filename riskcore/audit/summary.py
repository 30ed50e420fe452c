"""Game statistics from the events: who held what over time, and dice luck.

``summarize(events)`` folds a game once and records, at the start of every
turn and once more at the last event (the end, once the game is over), each
player's territories, armies and dice luck so far; it counts battles, and it
compares each side's losses with what exact odds expect for those dice
(``riskcore.rules.odds.roll_outcomes``), so "luck" is actual minus expected
armies destroyed: positive means the dice favoured that player.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from riskcore.engine.evolve import apply, initial_state
from riskcore.model.state import State
from riskcore.protocol import events as ev
from riskcore.rules.odds import roll_outcomes


def summarize(events: Iterable[ev.Event]) -> dict[str, Any]:
    iterator = iter(events)
    first = next(iterator)
    assert isinstance(first, ev.GameCreated), "a game starts with game_created"
    state = initial_state(first)
    players = [s for s, info in state.seats.items() if info.plays]
    timeline: list[dict[str, Any]] = []
    battles = {p: _Battles() for p in state.seats}
    facts: dict[str, dict[str, int]] = {}
    for event in iterator:
        if isinstance(event, ev.BattleResolved):
            _count_battle(battles, event)
        elif type(event) not in BASE_TYPES:
            _count_mode_fact(facts, event)
        apply(state, event)
        if isinstance(event, ev.TurnStarted):
            timeline.append(_snapshot(state, players, battles))
    if timeline and timeline[-1]["version"] != state.version:
        timeline.append(_snapshot(state, players, battles))  # how the last turn ended, or stands
    return {
        "game_id": state.game_id,
        "version": state.version,
        "winner": state.winner,
        "winners": list(state.winners),
        "turns": state.turn,
        "timeline": timeline,
        "players": {p: battles[p].to_dict() for p in state.seats},
        "teams": _teams(state, timeline),
        "mode_facts": facts,
        "scores": _scores(state),
    }


def _scores(state: State) -> dict[str, Any]:
    """The score table where the mode keeps one (Lord of the Rings Risk), as the public
    view shows it at the summary's last event; empty elsewhere."""
    scores: dict[str, Any] = state.mode.view(state, None).get("scores", {})
    return scores


BASE_TYPES = frozenset(ev.BASE_EVENT_TYPES)


def _count_mode_fact(facts: dict[str, dict[str, int]], event: ev.Event) -> None:
    """A mode's own event, counted per seat under its type (missions claimed, ...),
    and the public counts it names itself (``summary_facts``: cards given in bribes,
    markers moved): counts only, so a summary of a running game shows nothing secret."""
    seat = getattr(event, "seat", None) or "-"
    counts = {event.TYPE: 1}
    more = getattr(event, "summary_facts", None)
    if more is not None:
        counts.update(more())
    for name, count in counts.items():
        per_seat = facts.setdefault(name, {})
        per_seat[seat] = per_seat.get(seat, 0) + count


def _teams(state: State, timeline: list[dict[str, Any]]) -> dict[str, Any]:
    """Per team (where seats play in teams): its players, and the timeline's
    territories and armies added up over them. Empty in games without teams."""
    teams: dict[str, list[str]] = {}
    for seat, info in state.seats.items():
        if info.team is not None:
            teams.setdefault(info.team, []).append(seat)
    return {
        team: {
            "players": members,
            "timeline": [
                {
                    "turn": point["turn"],
                    "version": point["version"],
                    "territories": sum(point["territories"].get(p, 0) for p in members),
                    "armies": sum(point["armies"].get(p, 0) for p in members),
                }
                for point in timeline
            ],
        }
        for team, members in teams.items()
    }


def _snapshot(state: State, players: list[str], battles: dict[str, _Battles]) -> dict[str, Any]:
    territories = {p: 0 for p in players}
    armies = {p: 0 for p in players}
    for (_, player), count in state.armies.items():
        if player in armies:
            armies[player] += count
    for holder in state.owner.values():
        if holder in territories:
            territories[holder] += 1
    return {
        "turn": state.turn,
        "version": state.version,
        "territories": territories,
        "armies": armies,
        "luck": {p: battles[p].luck() for p in players},  # so far: the luck line
    }


class _Battles:
    __slots__ = ("attacks", "defences", "destroyed", "expected", "lost")

    def __init__(self) -> None:
        self.attacks = 0
        self.defences = 0
        self.destroyed = 0
        self.lost = 0
        self.expected = Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "battles_attacking": self.attacks,
            "battles_defending": self.defences,
            "armies_destroyed": self.destroyed,
            "armies_lost": self.lost,
            "expected_destroyed": round(float(self.expected), 2),
            "luck": self.luck(),
        }

    def luck(self) -> float:
        return round(self.destroyed - float(self.expected), 2)


def _count_battle(battles: dict[str, _Battles], event: ev.BattleResolved) -> None:
    outcomes = roll_outcomes(len(event.attacker_dice), len(event.defender_dice))
    expected_defender_losses = sum(p * d for (_, d), p in outcomes.items())
    expected_attacker_losses = sum(p * a for (a, _), p in outcomes.items())
    attacker, defender = battles[event.seat], battles[event.defender]
    attacker.attacks += 1
    attacker.destroyed += event.defender_losses
    attacker.lost += event.attacker_losses
    attacker.expected += expected_defender_losses
    defender.defences += 1
    defender.destroyed += event.attacker_losses
    defender.lost += event.defender_losses
    defender.expected += expected_attacker_losses
