"""The classic game with secret missions (docs/rules.md, "Secret missions").

After the setup, each player is dealt one mission card of the classic deck
(``decks/secret-missions.json``), the destroy cards of seats not in play
taken out first. A player wins the moment their mission is done: the
engine looks after every command, for every player still in, the player
whose turn it is first, so a destroy mission done by somebody else's
elimination (``mission_target_gone=complete``) wins in that player's turn.
Conquering the world still wins too. Territories are dealt by default, as
the classic mission rules say.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from riskcore.engine.decision import Decision
from riskcore.engine.evolve import Applier
from riskcore.engine.registry import register_mode
from riskcore.model.state import FINISHED, OCCUPY, SETUP_PHASES, State
from riskcore.modes import missions
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import setup
from riskcore.rules.flow import finish_if_decided

DECK = "secret-missions"


def _deck(state: State) -> tuple[missions.MissionCard, ...]:
    return missions.load_deck(DECK)


def _then_look_for_a_mission(handler: Handler) -> Handler:
    """The command, then the mission check: a mission wins the moment it is done
    (never with a conquered territory still waiting for its armies)."""

    def checked(d: Decision, command: Any) -> None:
        handler(d, command)
        phase = d.state.phase
        if phase not in SETUP_PHASES and phase not in (OCCUPY, FINISHED):
            finish_if_decided(d)

    return checked


class SecretMissions(GameMode):
    name = "secret_missions"
    title = "Classic Risk with secret missions"
    win_condition = (
        "The first player whose secret mission is done wins, at once (checked after every"
        " command); conquering the whole world, or being the last player left, wins too."
    )
    rule_defaults: ClassVar[Mapping[str, Any]] = {"setup": "deal"}
    own_options: ClassVar[frozenset[str]] = frozenset({"mission_target_gone", "missions_dealt"})

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {kind: _then_look_for_a_mission(h) for kind, h in super().command_handlers().items()}

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        base = super().event_appliers()
        eliminated = base[ev.PlayerEliminated]

        def eliminated_by(state: State, event: ev.PlayerEliminated) -> None:
            if event.player not in state.out:  # (a seat that left is not destroyed later)
                missions.note_elimination(state, event)
            eliminated(state, event)

        return {
            **base,
            ev.PlayerEliminated: eliminated_by,
            missions.MissionDealt: missions.applier_for(_deck),
        }

    def open_game(self, d: Decision) -> None:
        missions.check_deck_fits(_deck(d.state), d.state)
        if d.state.rules.missions_dealt == "before_setup":
            missions.deal_missions(d, _deck(d.state), (0,))
        super().open_game(d)

    def after_setup(self, d: Decision) -> None:
        """Deal the missions to the players still in (the destroy cards of seats not
        in play, or gone in setup, taken out first), then play."""
        if d.state.rules.missions_dealt == "after_setup":
            missions.deal_missions(d, _deck(d.state), (0,))
        setup.start_play(d)

    def outcome(self, state: State) -> Outcome | None:
        """The first player (the one on turn first) whose mission is done wins."""
        if state.phase not in SETUP_PHASES and state.missions:
            for seat in self._by_turn(state):
                if self.mission_done(state, seat):
                    return Outcome(seat, (seat,), "mission")
        return super().outcome(state)

    def mission_done(self, state: State, seat: str) -> bool:
        deck = _deck(state)
        rule = state.rules.mission_target_gone
        return any(
            missions.goal_met(state, seat, missions.card_named(deck, m.card).goal, rule)
            for m in state.missions.get(seat, ())
        )

    @staticmethod
    def _by_turn(state: State) -> list[str]:
        active = state.active_players()
        if state.current in active:
            start = active.index(state.current)
            active = active[start:] + active[:start]
        return active

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        """The rivals' hidden missions, guessed (``missions.deal_unseen``)."""
        missions.deal_unseen(real, state, seat, rng, _deck(real))

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        return missions.mission_view(state, viewer, _deck(state))


register_mode(SecretMissions)
