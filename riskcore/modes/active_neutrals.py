"""Two players with active neutral armies (docs/rules.md, "Active neutrals").

The two-player game (``two_player``: the deal, setup and the defence of a
neutral are the same) where each neutral can become a player's ally and
change sides. A turn: bribe (give cards to neutrals, each a step toward
you) → reinforce (your own territories count, your allies' do not) →
reinforce allies (a die each, placed on its territories) → attack (with
allied armies too; no card for what an ally takes) → a die per neutral
after each attack on a neutral territory or with an ally (1-4 a step away
from you) → fortify, and one free fortify per ally → a card only for a
conquest with your own armies. Eliminating a neutral gives you its cards.

It is a mode of its own rather than an option of ``two_player`` because
its turn has phases, commands and events of its own, and a mode's tables
(``GameMode.handlers``, ``actions_by_phase``) are built once per mode, not
per game. Its games record ``neutrals="active"``, the rule option naming
how neutral armies play.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from riskcore.engine.decision import Decision, check_turn, violation
from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Action, ActionGroup, Builder
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, REINFORCE, State
from riskcore.modes import neutral_rules as nr
from riskcore.modes.base import Handler
from riskcore.modes.two_player import TwoPlayer
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import actions, turns
from riskcore.rules.battle import _chooser
from riskcore.rules.flow import start_turn
from riskcore.rules.fortify import reachable


def _end_phase(d: Decision, command: cmd.EndPhase) -> None:
    s = d.state
    if s.phase == nr.BRIBE:
        check_turn(s, command.seat)
        d.emit(ev.PhaseEnded(seat=command.seat, phase=nr.BRIBE, next_phase=REINFORCE))
    elif s.phase == nr.REINFORCE_ALLIES:
        check_turn(s, command.seat)
        left = nr.armies_left_for_allies(s, command.seat)
        if left:
            raise violation(
                "ally_armies_to_place", f"place your allies' {left} rolled armies first"
            )
        d.emit(ev.PhaseEnded(seat=command.seat, phase=nr.REINFORCE_ALLIES, next_phase=ATTACK))
    else:
        if s.phase == ATTACK:
            check_turn(s, command.seat)
            nr.finish_attack(d, command.seat)
        turns.end_phase(d, command)


def _place(d: Decision, command: cmd.PlaceArmies) -> None:
    if d.state.phase == nr.REINFORCE_ALLIES:
        check_turn(d.state, command.seat)
        nr.place_for_ally(d, command)
    else:
        turns.place_armies(d, command)


# Legal actions ------------------------------------------------------------------


def _bribes(s: State, seat: str) -> list[Action]:
    hand = s.hand(seat)
    return [
        {"command": {"type": "bribe", "neutral": n, "cards": [card]}, "bounds": {}}
        for n in nr.neutrals(s)
        if nr.room(s, n) > 0
        for card in hand
    ]


def _ally_rolls(s: State, seat: str) -> list[Action]:
    rolled = s.mode_data.get("allies_rolled", ())
    return [
        {"command": {"type": "reinforce_ally", "neutral": n}, "bounds": {}}
        for n in nr.allies_of(s, seat)
        if n not in rolled
    ]


def _ally_placements(s: State, seat: str) -> list[Action]:
    found: list[Action] = []
    for ally in nr.allies_of(s, seat):
        left = nr.rolled_left(s, ally)
        if left > 0:
            found += [
                {
                    "command": {"type": "place_armies", "territory": t, "count": left},
                    "bounds": {"count": [1, left]},
                }
                for t in s.territories_of(ally)
            ]
    return found


def _end_if_placed(s: State, seat: str) -> list[Action]:
    if nr.armies_left_for_allies(s, seat):
        return []
    return [{"command": {"type": "end_phase"}, "bounds": {}}]


def _attackable(s: State, seat: str) -> list[tuple[str, str, int, str]]:
    """(source, target, armies in source, defender) for every attack ``seat`` may
    make with its own armies or an ally's."""
    owner, armies, neighbours = s.owner, s.armies, s.board.neighbours
    entries = []
    for army in (seat, *nr.allies_of(s, seat)):
        for source in s.territories_of(army):
            in_source = armies[(source, army)]
            if in_source < 2:
                continue
            for target in neighbours[source]:
                defender = owner.get(target)
                if defender is not None and defender not in (seat, army):
                    entries.append((source, target, in_source, defender))
    return entries


def _attack_action(entry: tuple[str, str, int, str]) -> Action:
    source, target, armies, _ = entry
    dice = min(3, armies - 1)
    return {
        "command": {"type": "attack", "source": source, "target": target, "dice": dice},
        "bounds": {"dice": [1, dice]},
    }


def _blitz_action(entry: tuple[str, str, int, str]) -> Action:
    source, target, armies, _ = entry
    return {
        "command": {"type": "blitz", "source": source, "target": target, "stop_at": 1},
        "bounds": {"stop_at": [1, armies - 1]},
    }


def _attacks(s: State, seat: str) -> Sequence[Action]:
    return ActionGroup(_attackable(s, seat), _attack_action)


def _blitzes(s: State, seat: str) -> Sequence[Action]:
    entries = _attackable(s, seat)
    if s.rules.defender_chooses_dice:
        entries = [e for e in entries if _chooser(s, e[3], seat) is None]
    return ActionGroup(entries, _blitz_action)


def _fortifies(s: State, seat: str) -> list[Action]:
    armies = [] if s.fortified else [seat]
    found: list[Action] = []
    for army in (*armies, *nr.ally_fortifies(s, seat)):
        for source in s.territories_of(army):
            most = s.armies[(source, army)] - 1
            if most < 1:
                continue
            for target in sorted(reachable(s, army, source)):
                body = {"type": "fortify", "source": source, "target": target, "count": most}
                found.append({"command": body, "bounds": {"count": [1, most]}})
    return found


def _replace(
    table: Sequence[tuple[str, Builder]], builders: Mapping[str, Builder]
) -> tuple[tuple[str, Builder], ...]:
    return tuple((name, builders.get(name, builder)) for name, builder in table)


# The mode -------------------------------------------------------------------------


class ActiveNeutrals(TwoPlayer):
    name = "two_player_active"
    title = "Two players with active neutral armies"
    win_condition = (
        "Eliminate your opponent; the neutral armies need not be beaten. A player whose"
        " opponent resigns wins."
    )
    rule_defaults: ClassVar[Mapping[str, Any]] = {"neutrals": "active"}
    own_options: ClassVar[frozenset[str]] = frozenset({"neutrals_must_fall", "marker_dice"})

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        rules = super().rule_set(given)
        if rules.neutrals != "active":
            raise RuleOptionError(
                f"the {self.name} game plays neutrals=active, not {rules.neutrals!r}"
            )
        return rules

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {
            **super().command_handlers(),
            nr.Bribe: nr.bribe,
            nr.ReinforceAlly: nr.reinforce_ally,
            cmd.PlaceArmies: _place,
            cmd.EndPhase: _end_phase,
            cmd.Attack: nr.attack,
            cmd.Blitz: nr.blitz,
            cmd.Defend: nr.defend,
            cmd.Occupy: nr.occupy,
            cmd.Fortify: nr.fortify_with,
            cmd.Resign: nr.resign,
        }

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        base = super().event_appliers()
        started, ended = base[ev.TurnStarted], base[ev.PhaseEnded]
        conquered, fortified = base[ev.TerritoryConquered], base[ev.Fortified]
        fought = base[ev.BattleResolved]

        def battle_resolved(state: State, event: ev.BattleResolved) -> None:
            fought(state, event)
            nr.battle_fought(state, event)

        eliminated, placed = base[ev.PlayerEliminated], base[ev.ArmiesPlaced]

        def armies_placed(state: State, event: ev.ArmiesPlaced) -> None:
            placed(state, event)
            if state.phase == nr.REINFORCE_ALLIES:
                nr.ally_armies_placed(state, event)

        def player_eliminated(state: State, event: ev.PlayerEliminated) -> None:
            eliminated(state, event)
            nr.forget_given(state, event.cards)

        def turn_started(state: State, event: ev.TurnStarted) -> None:
            started(state, event)
            for fact in (
                "allies_rolled",
                "ally_armies",
                "allies_fortified",
                "own_conquest",
                nr.ATTACK_UNDER_WAY,
            ):
                state.mode_data.pop(fact, None)

        def phase_ended(state: State, event: ev.PhaseEnded) -> None:
            ended(state, event)
            state.mode_data.pop(nr.ATTACK_UNDER_WAY, None)
            if event.phase == nr.BRIBE:
                nr.forced_trade_after_bribes(state)

        def territory_conquered(state: State, event: ev.TerritoryConquered) -> None:
            conquered(state, event)
            if state.seats[event.seat].plays:
                state.mode_data["own_conquest"] = True

        def ally_fortified(state: State, event: ev.Fortified) -> None:
            if state.seats[event.seat].plays:
                fortified(state, event)
                return
            own_done = state.fortified
            fortified(state, event)
            state.fortified = own_done
            state.mode_data.setdefault("allies_fortified", []).append(event.seat)

        return {
            **base,
            ev.TurnStarted: turn_started,
            ev.PhaseEnded: phase_ended,
            ev.TerritoryConquered: territory_conquered,
            ev.BattleResolved: battle_resolved,
            ev.Fortified: ally_fortified,
            ev.PlayerEliminated: player_eliminated,
            ev.ArmiesPlaced: armies_placed,
            nr.NeutralBribed: nr.bribed,
            nr.AllyReinforcementRolled: nr.ally_rolled,
            nr.MarkerRolled: nr.marker_rolled,
        }

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        table = super().phase_actions()
        table[nr.BRIBE] = (
            ("bribe", _bribes),
            ("end_phase", actions._end_phase),
            actions.RESIGN,
        )
        table[nr.REINFORCE_ALLIES] = (
            ("reinforce_ally", _ally_rolls),
            ("place_armies", _ally_placements),
            ("end_phase", _end_if_placed),
            actions.RESIGN,
        )
        table[ATTACK] = _replace(table[ATTACK], {"attack": _attacks, "blitz": _blitzes})
        table[FORTIFY] = _replace(table[FORTIFY], {"fortify": _fortifies})
        return table

    # The turn ---------------------------------------------------------------

    def opening_phase(self, state: State, seat: str) -> str:
        """Bribes first, when the player has a card and a neutral may take one."""
        if state.hand(seat) and any(nr.room(state, n) for n in nr.neutrals(state)):
            return nr.BRIBE
        return REINFORCE

    def next_turn(self, d: Decision, after: str) -> None:
        """A turn that opens with bribes counts its forced trade when they end."""
        s = d.state
        seat = s.next_player(after)
        if self.opening_phase(s, seat) != nr.BRIBE:
            start_turn(d, seat)
            return
        d.emit(
            ev.TurnStarted(
                seat=seat,
                turn=s.turn + 1,
                reinforcements=self.reinforcements(s, seat),
                must_trade=False,
                phase=nr.BRIBE,
                trade_down_to=None,
            )
        )

    def phase_after(self, state: State, phase: str) -> str:
        """Reinforcing is followed by the allies' reinforcement, if there are allies
        (not after a mid-turn trade forced by an elimination)."""
        seat = state.current
        if phase == REINFORCE and not state.conquered and seat and nr.allies_of(state, seat):
            return nr.REINFORCE_ALLIES
        return super().phase_after(state, phase)

    def eliminator(self, state: State, army: str) -> str:
        """A neutral eliminated by an ally's conquest gives its cards to the player."""
        if nr.is_neutral(state, army) and state.current is not None:
            return state.current
        return army

    def end_of_turn(self, d: Decision, seat: str) -> None:
        """A card only for a conquest with the player's own armies."""
        if d.state.mode_data.get("own_conquest"):
            turns.draw_card(d, seat)

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        """Keep the cards ``seat`` gave each neutral in that neutral's hand, and deal
        the rest of the unseen cards around them (``SeatView.determinize`` dealt
        every hand it cannot see at random, so a bot's guessed worlds forgot its
        own bribes: a card it gave could turn up in the opponent's hand)."""
        given = set(real.bribes.get(seat, ()))
        known = {n: [c for c in real.hands.get(n, []) if c in given] for n in nr.neutrals(real)}
        kept = {c for cards in known.values() for c in cards}
        own = {seat, real.hand_id(seat)}
        others = [h for h in state.hands if h not in own]
        pool = [c for h in others for c in state.hands[h] if c not in kept]
        pool += [c for c in state.deck if c not in kept]
        rng.shuffle(pool)
        for hand_id in others:
            mine = known.get(hand_id, [])
            count = len(real.hands[hand_id]) - len(mine)
            state.hands[hand_id], pool = mine + pool[:count], pool[count:]
        state.deck = pool

    # What viewers see -----------------------------------------------------------

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        """The track of every neutral (shown to all), its card count, and the cards
        the viewer gave it (all its cards once the game is over)."""
        over = state.phase == FINISHED
        players = [p for p, info in state.seats.items() if info.plays]
        shown: dict[str, Any] = {}
        for n, info in state.seats.items():
            if info.plays:
                continue
            held = state.hands.get(n, [])
            given = set(state.bribes.get(viewer, ())) if viewer else set()
            shown[n] = {
                "ally": state.alliances.get(n),
                "marker": state.alliances.get(n) or "uninvolved",
                "card_count": len(held),
                "may_be_bribed": n not in state.out and nr.room(state, n) > 0,
                # The cards the viewer may see: those it gave; all once the game is over.
                "cards": [c for c in held if over or c in given],
                "to_place": nr.rolled_left(state, n),
            }
        return {
            "track": [players[0], "uninvolved", players[-1]],
            "neutrals": shown,
            "allies_reinforced": list(state.mode_data.get("allies_rolled", [])),
            "allies_fortified": list(state.mode_data.get("allies_fortified", [])),
        }


register_mode(ActiveNeutrals)
