"""The mission game of the 2006 Swedish edition (docs/rules.md, "The mission game").

Every player draws four secret missions, one of each grade (captain, major,
colonel, general), from a graded deck named by the ``mission_deck`` option
(the printed cards' texts are not known to this project: the deck shipped
is the project's own, ``graded-house-v1``). In their own turn a player
*claims* a mission whose goal holds at the moment its card names (any time
in the turn, or at its end, in the fortify phase): at most one a turn, and
a claimed mission stays claimed whatever happens later. After three, the
fourth is shown to everyone. The first to claim all four wins; eliminating
everyone else wins too. Card sets trade at the fixed values; an eliminated
player's territory cards go to the conqueror, never their missions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from riskcore.engine.decision import Decision, check_turn, violation
from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Action, Builder
from riskcore.engine.registry import register_mode
from riskcore.model.state import ATTACK, FORTIFY, REINFORCE, State
from riskcore.modes import missions
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.commands import register_command
from riskcore.rules import setup
from riskcore.rules.flow import finish_if_decided

GRADES = (1, 2, 3, 4)  # captain, major, colonel, general
REVEAL_AFTER = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimMission(cmd.Command):
    card: str


register_command(ClaimMission, "claim_mission", fields={"card": "str"})


def _deck(state: State) -> tuple[missions.MissionCard, ...]:
    return missions.load_deck(state.rules.mission_deck)


def _claimable(state: State, seat: str) -> list[missions.MissionCard]:
    """``seat``'s unclaimed missions it may claim now (``claim_mission`` checks)."""
    if _claimed_this_turn(state, seat) or state.current != seat:
        return []
    deck = _deck(state)
    rule = state.rules.mission_target_gone
    found = []
    for mission in state.missions.get(seat, ()):
        card = missions.card_named(deck, mission.card)
        if (
            not mission.claimed
            and _moment(state, card)
            and missions.goal_met(state, seat, card.goal, rule)
        ):
            found.append(card)
    return found


def _claimed_this_turn(state: State, seat: str) -> bool:
    turn: int | None = state.mode_data.get("claimed_turn", {}).get(seat)
    return turn == state.turn


def _moment(state: State, card: missions.MissionCard) -> bool:
    """Whether now is the moment the card names: any time in the turn, or its end."""
    if card.when == missions.TURN_END:
        return state.phase == FORTIFY
    return state.phase in (REINFORCE, ATTACK, FORTIFY)


def claim_mission(d: Decision, command: ClaimMission) -> None:
    s = d.state
    seat = command.seat
    check_turn(s, seat)
    own = {m.card: m for m in s.missions.get(seat, ())}
    mission = own.get(command.card)
    if mission is None:
        raise violation("not_your_mission", f"{command.card!r} is not one of your missions")
    if mission.claimed:
        raise violation("mission_claimed", f"{command.card!r} is already claimed")
    if _claimed_this_turn(s, seat):
        raise violation("one_mission_a_turn", "a mission is claimed at most once a turn")
    card = missions.card_named(_deck(s), command.card)
    if not _moment(s, card):
        raise violation("not_the_moment", f"{card.id} is claimed at the end of your turn")
    if not missions.goal_met(s, seat, card.goal, s.rules.mission_target_gone):
        raise violation("mission_not_done", f"{card.id} is not done: {card.text}")
    d.emit(missions.MissionClaimed(seat=seat, card=card.id))
    left = [m for m in s.missions[seat] if not m.claimed]
    if len(s.missions[seat]) - len(left) == REVEAL_AFTER and left:
        d.emit(missions.MissionRevealed(seat=seat, card=left[0].card))
    finish_if_decided(d)


def _claims(s: State, seat: str) -> list[Action]:
    return [
        {"command": {"type": "claim_mission", "card": card.id}, "bounds": {}}
        for card in _claimable(s, seat)
    ]


class MissionGame(GameMode):
    name = "mission_game"
    title = "The mission game: four graded missions each"
    win_condition = (
        "The first player to claim all four missions (one a turn) wins; eliminating every"
        " other player wins too."
    )
    rule_defaults: ClassVar[Mapping[str, Any]] = {"card_values": "fixed"}
    own_options: ClassVar[frozenset[str]] = frozenset(
        {"mission_deck", "mission_target_gone", "missions_dealt"}
    )

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {**super().command_handlers(), ClaimMission: claim_mission}

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        base = super().event_appliers()
        started, conquered = base[ev.TurnStarted], base[ev.TerritoryConquered]

        def turn_started(state: State, event: ev.TurnStarted) -> None:
            started(state, event)
            missions.reset_conquests(state, event)

        def territory_conquered(state: State, event: ev.TerritoryConquered) -> None:
            conquered(state, event)
            missions.count_conquests(state, event)

        return {
            **base,
            ev.TurnStarted: turn_started,
            ev.TerritoryConquered: territory_conquered,
            missions.MissionDealt: missions.applier_for(_deck),
            missions.MissionClaimed: missions.claimed,
            missions.MissionRevealed: missions.revealed,
        }

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        table = super().phase_actions()
        for phase in (REINFORCE, ATTACK, FORTIFY):
            table[phase] = (("claim_mission", _claims), *table[phase])
        return table

    def open_game(self, d: Decision) -> None:
        missions.check_deck_fits(_deck(d.state), d.state)
        if d.state.rules.missions_dealt == "before_setup":
            missions.deal_missions(d, _deck(d.state), GRADES)
        super().open_game(d)

    def after_setup(self, d: Decision) -> None:
        if d.state.rules.missions_dealt == "after_setup":
            missions.deal_missions(d, _deck(d.state), GRADES)
        setup.start_play(d)

    def outcome(self, state: State) -> Outcome | None:
        """All four claimed wins; so does being the last player in."""
        for seat in state.active_players():
            held = state.missions.get(seat, ())
            if held and all(m.claimed for m in held):
                return Outcome(seat, (seat,), "missions")
        return super().outcome(state)

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        """The rivals' hidden missions, guessed (``missions.deal_unseen``)."""
        missions.deal_unseen(real, state, seat, rng, _deck(real))

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        shown = missions.mission_view(state, viewer, _deck(state))
        shown["claimable"] = (
            [c.id for c in _claimable(state, viewer)] if viewer in state.seats else []
        )
        return shown


register_mode(MissionGame)
