"""The two-player game with passive neutral armies (docs/rules.md, "The two-player game").

Two players and two neutral seats; the territory cards are dealt 12, 12, 9
and 9, with one army on each; in setup a player places 3 armies of their
own and 1 for each neutral per turn; everyone rolls again for the first
turn; a neutral never attacks, and when a neutral defends, the player who
is not attacking rolls its dice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from riskcore.engine.decision import Decision
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.modes.base import GameMode
from riskcore.rules import setup

# docs/rules.md (the two-player game): 36 armies to each player, 24 to each neutral; 12 territories
# to each player, 9 to each neutral; setup turns of 3 own armies + 1 each neutral.
PLAYER_ARMIES = 36
NEUTRAL_ARMIES = 24
DEAL = (12, 12, 9, 9)
OWN_PER_SETUP_TURN = 3
NEUTRALS = ("n1", "n2")


class TwoPlayer(GameMode):
    name = "two_player"
    title = "Two players with neutral armies"
    win_condition = (
        "Eliminate your opponent; the neutral armies need not be beaten. A player whose"
        " opponent resigns wins."
    )
    players = (2, 2)
    own_options: ClassVar[frozenset[str]] = frozenset({"neutrals_must_fall"})

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        seats = super().seat_list(players, rules)
        return seats + [
            {"id": n, "kind": "neutral", "name": f"Neutral {i}", "armies": NEUTRAL_ARMIES}
            for i, n in enumerate(NEUTRALS, 1)
        ]

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        rules = super().rule_set(given)
        plays = self.rule_defaults.get("neutrals", "passive")
        if rules.neutrals != plays:
            raise RuleOptionError(
                f"the {self.name} game plays neutrals={plays}, not {rules.neutrals!r}"
                " (active neutrals are the two_player_active mode)"
            )
        return rules

    def starting_armies(self, rules: RuleSet, players: int) -> int:
        return rules.starting_armies or PLAYER_ARMIES

    def open_game(self, d: Decision) -> None:
        """Deal first (12, 12, 9, 9), then roll for who sets up first."""
        players = list(d.state.order)
        armies = d.state.reserve[players[0]]
        if armies < DEAL[0]:
            raise RuleOptionError(f"each player needs {DEAL[0]} armies for the deal")
        setup.deal(d, [*players, *NEUTRALS], DEAL)
        setup.roll_for_order(d, "setup", players)
        setup.begin_play_if_placed(d)

    def setup_quota(self, state: State, seat: str) -> dict[str, int]:
        quota = {seat: min(OWN_PER_SETUP_TURN, state.reserve[seat])}
        for neutral in state.non_players():
            quota[neutral] = min(1, state.reserve[neutral])
        return quota

    def setup_player(self, state: State, seat: str, territory: str) -> str | None:
        holder = state.controller(territory)
        if holder == seat or (holder is not None and holder in NEUTRALS):
            return holder
        return None

    def rolls_for_first_turn(self, rules: RuleSet) -> bool:
        return True

    def defence_chooser(self, state: State, defender: str, attacker: str | None) -> str | None:
        """A neutral's dice are rolled by the player who is not attacking."""
        if defender in NEUTRALS:
            others = [p for p in state.active_players() if p != attacker]
            return others[0] if len(others) == 1 else None
        return super().defence_chooser(state, defender, attacker)


register_mode(TwoPlayer)
