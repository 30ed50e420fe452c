"""``GameMode``: the hooks a game of the rule books overrides, with the classic rules as defaults.

As python-chess gives each variant a ``Board`` subclass that overrides a few
methods (``is_variant_end``, move generation), a mode here overrides a few
hooks; everything else is the classic game. The rule modules
(``riskcore.rules``) never ask which mode is played: they ask the mode
attached to the state (``state.mode``) for the one decision that differs.

Hooks, by where the game asks them:

- setup: ``seat_list``, ``starting_armies``, ``open_game``, ``setup_quota``,
  ``setup_player``, ``after_setup``, ``rolls_for_first_turn``;
- the rules a game starts with: ``rule_defaults`` (``rule_set``);
- the turn: ``opening_phase``, ``phase_after``, ``reinforcements``, ``placeable``,
  ``trade_value``, ``attack_refusal``, ``defender_of``, ``defender_dice_cap``,
  ``battle_bonus``, ``defence_chooser``, ``after_battle``, ``after_conquest``,
  ``eliminator``, ``cards_captured``, ``fortify_reach``, ``end_of_turn``;
- the end: ``outcome``;
- forks: ``hidden_piles``, ``shuffle_for_fork``;
- who acts and what they may do: ``waiting_for``, ``command_handlers``,
  ``event_appliers``, ``phase_actions``;
- what viewers see: ``hand_of``, ``view`` (a mode's own event with a secret
  hides it itself: ``Event.redacted_for``), ``deal_unseen`` (a bot's guess at them).

Hooks that are called on every battle or placement are plain methods of
one shared instance (``riskcore.engine.registry``), so a hook costs a method
call and never a test of the mode's name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from riskcore.engine.decision import Decision
from riskcore.engine.evolve import APPLIERS, Applier
from riskcore.engine.legal import Builder, builders_by_type
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleOptionError, RuleViolation
from riskcore.model.options import MODE_OPTIONS, OPTIONS, RuleSet
from riskcore.model.state import ATTACK, DEFEND, FORTIFY, REINFORCE, State
from riskcore.mypyc_hints import mypyc_attr
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import actions, battle, fortify, reinforce, setup, turns
from riskcore.rules.flow import start_turn

Handler = Callable[[Decision, Any], None]

# The turn of docs/rules.md (the classic game): reinforce, attack, fortify (its end ends the turn).
_CLASSIC_TURN = {REINFORCE: ATTACK, ATTACK: FORTIFY}
# docs/rules.md, the classic game: "Starting armies" (classic, 3-6 players).
CLASSIC_STARTING_ARMIES = {3: 35, 4: 30, 5: 25, 6: 20}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning seat (if one), every winner, and why."""

    winner: str | None
    winners: tuple[str, ...]
    reason: str


@mypyc_attr(allow_interpreted_subclasses=True)  # a test's or a plug-in's mode
class GameMode:
    """The classic game (docs/rules.md): 3-6 players, world domination wins."""

    name: ClassVar[str] = "classic"
    title: ClassVar[str] = "Classic Risk"
    # How a game of this mode is won, in words (docs/rules.md, "How each mode is won",
    # GET /v1/modes, the lobby and the end of a game on the board read it; issue 53).
    win_condition: ClassVar[str] = (
        "The last player left wins: conquer every territory, or be the only player"
        " still in when the others have been eliminated or have resigned."
    )
    players: ClassVar[tuple[int, int]] = (3, 6)
    # Rule options this mode plays by unless a game sets them (the rule
    # book of the mode says so); recorded in the first event like any other.
    rule_defaults: ClassVar[Mapping[str, Any]] = {}
    # The board a game of this mode is played on unless it names another.
    board: ClassVar[str] = "classic"
    # The options of ``MODE_OPTIONS`` (riskcore/model/options.py) this mode reads; it
    # reads every other option too. A lobby offers a mode these and the others.
    own_options: ClassVar[frozenset[str]] = frozenset()
    # The state's lists whose order is secret (``State`` fields): a fork's position
    # carries each in card order and ``shuffle_for_fork`` draws its order again.
    hidden_piles: ClassVar[tuple[str, ...]] = ("deck",)

    def __init__(self) -> None:
        self.handlers: Mapping[type[cmd.Command], Handler] = self.command_handlers()
        self.appliers: Mapping[type[ev.Event], Applier] = self.event_appliers()
        self.actions_by_phase: Mapping[str, Sequence[tuple[str, Builder]]] = self.phase_actions()
        # The same, by command type: what ``LegalActions.of_type`` looks up.
        self.builders_by_phase: Mapping[str, Mapping[str, Builder]] = {
            phase: builders_by_type(table) for phase, table in self.actions_by_phase.items()
        }
        # The hooks this mode overrides. A hook asked on every battle or every
        # listing of attacks is skipped where a mode keeps the classic default
        # (which the caller then applies itself): a call saved per battle.
        self.overridden = frozenset(
            name
            for name, default in vars(GameMode).items()
            if callable(default) and getattr(type(self), name) is not default
        )
        self.refuses_more_attacks = "attack_refusal" in self.overridden

    def __repr__(self) -> str:
        return f"<game mode {self.name}>"

    # One instance per mode, shared by every state: copies and pickles of a
    # state refer to the registered instance.
    def __deepcopy__(self, memo: dict[int, Any]) -> GameMode:
        return self

    def __reduce__(self) -> tuple[Callable[[str], GameMode], tuple[str]]:
        return (mode_named, (self.name,))

    @classmethod
    def reads_options(cls) -> tuple[str, ...]:
        """The rule options a game of this mode reads, in ``OPTIONS`` order."""
        return tuple(
            o.name for o in OPTIONS if o.name not in MODE_OPTIONS or o.name in cls.own_options
        )

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        """The rule options of a new game: ``given``, else this mode's defaults,
        else the classic ones."""
        return RuleSet.from_dict({**self.rule_defaults, **(given or {})})

    # Commands, events and actions: a mode extends the base tables -----

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        """Which rule handles each command this mode accepts."""
        return {
            cmd.ClaimTerritory: setup.claim,
            cmd.PlaceArmies: turns.place_armies,
            cmd.TradeCards: reinforce.trade,
            cmd.Attack: battle.attack,
            cmd.Blitz: battle.blitz,
            cmd.Defend: battle.defend,
            cmd.SetDefence: battle.set_defence,
            cmd.Occupy: battle.occupy,
            cmd.Fortify: fortify.fortify,
            cmd.EndPhase: turns.end_phase,
            cmd.Resign: turns.resign_command,
            cmd.Abandon: turns.abandon,
        }

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        """How each event this mode emits changes the state."""
        return dict(APPLIERS)

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        """Per phase, the command types a seat may send and who lists them."""
        return dict(actions.BY_PHASE)

    def waiting_for(self, state: State) -> str | None:
        """The seat whose decision the game waits for (the defender's, in a
        battle that waits for dice)."""
        return battle.defending_seat(state) if state.phase == DEFEND else state.current

    # Setup -------------------------------------------------------------

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        """The seats, with each one's starting armies: p1..pN for the players."""
        self.check_player_count(len(players))
        armies = self.starting_armies(rules, len(players))
        return [
            {"id": f"p{i}", "kind": "player", "name": name, "armies": armies}
            for i, name in enumerate(players, 1)
        ]

    def check_player_count(self, count: int) -> None:
        low, high = self.players
        if not low <= count <= high:
            wanted = f"{low}" if low == high else f"{low} to {high}"
            raise RuleOptionError(f"the {self.name} game needs {wanted} players, not {count}")

    def starting_armies(self, rules: RuleSet, players: int) -> int:
        """docs/rules.md (the classic game) table, unless the rule option sets a number."""
        return rules.starting_armies or CLASSIC_STARTING_ARMIES[players]

    def open_game(self, d: Decision) -> None:
        """After the first event: roll for who starts, deal if dealing, place."""
        setup.check_enough_to_claim(d.state)
        setup.roll_for_order(d, "setup", d.state.order)
        if d.state.rules.setup == "deal":
            setup.deal(d, list(d.state.order), None)
        setup.begin_play_if_placed(d)

    def setup_quota(self, state: State, seat: str) -> dict[str, int]:
        """Armies each seat may place in one setup turn: one of your own."""
        return {seat: min(1, state.reserve[seat])}

    def setup_player(self, state: State, seat: str, territory: str) -> str | None:
        """Whose armies ``seat`` may place on ``territory`` in setup: its own."""
        return seat if state.controller(territory) == seat else None

    def rolls_for_first_turn(self, rules: RuleSet) -> bool:
        return rules.first_player == "reroll"

    def after_setup(self, d: Decision) -> None:
        """Every army is placed: shuffle the deck and start the first turn."""
        setup.start_play(d)

    # The turn ----------------------------------------------------------

    def opening_phase(self, state: State, seat: str) -> str:
        """The phase a turn starts in (a mode may put its own phase first)."""
        return REINFORCE

    def phase_after(self, state: State, phase: str) -> str:
        """The phase that follows ``phase`` of a turn: reinforce, attack, fortify."""
        return _CLASSIC_TURN[phase]

    def reinforcements(self, state: State, seat: str) -> int:
        return reinforce.count_reinforcements(state, seat)

    def placeable(self, state: State, seat: str) -> list[str]:
        """Where ``seat`` may place its reinforcements: the territories it controls."""
        return state.territories_of(seat)

    def trade_value(self, state: State, symbols: tuple[str, ...]) -> int:
        return state.rules.trade_value(state.sets_traded, symbols)

    def attack_refusal(
        self, state: State, seat: str, source: str, target: str
    ) -> RuleViolation | None:
        """Why ``seat`` may not attack ``target``, beyond the rules every game has
        (not your own territory, not one nobody controls); None: it may."""
        return None

    def defender_of(self, state: State, target: str) -> str | None:
        """Whose armies defend ``target`` when nobody controls it (a tie of
        armies); None: it cannot be attacked. Ties never happen in classic."""
        return None

    def defender_dice_cap(self, state: State, target: str) -> int:
        return 2

    def battle_bonus(self, state: State, source: str, target: str) -> tuple[int, int]:
        """Added to the attacker's and the defender's highest die (none in classic)."""
        return (0, 0)

    def defence_chooser(self, state: State, defender: str, attacker: str | None) -> str | None:
        """Who picks the defender's dice (None: the most are rolled): the defender."""
        return defender if state.is_active(defender) else None

    def after_battle(self, d: Decision, event: ev.BattleResolved) -> None:
        """Steps after each battle (none in classic)."""

    def after_conquest(self, d: Decision, seat: str, target: str, defender: str) -> None:
        """Steps after a conquest and any elimination (none in classic)."""

    def eliminator(self, state: State, army: str) -> str:
        """The seat an elimination by ``army``'s conquest is credited to, which takes
        the cards: the army's own."""
        return army

    def cards_captured(self, state: State, player: str) -> tuple[int, ...]:
        """The cards an eliminated ``player`` hands to its conqueror: all it held."""
        return tuple(state.hand(player))

    def fortify_reach(self, state: State, seat: str, source: str) -> set[str]:
        return fortify.reachable(state, seat, source)

    def end_of_turn(self, d: Decision, seat: str) -> None:
        """Before the turn passes: a card if anything was conquered."""
        if d.state.conquered:
            turns.draw_card(d, seat)

    def next_turn(self, d: Decision, after: str) -> None:
        start_turn(d, d.state.next_player(after))

    # The end -----------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        """One active player left wins: by conquest, or because the rest left. With
        ``neutrals_must_fall`` a neutral army still on the board must be beaten too."""
        active = state.active_players()
        if len(active) > 1:
            return None
        winner = active[0] if active else None
        eliminated = all(state.out.get(p) == "eliminated" for p in state.order if p != winner)
        if eliminated and winner and state.rules.neutrals_must_fall and state.non_players():
            return None  # 002: "när en armé har erövrat alla territorier i Midgård"
        reason = "conquest" if eliminated else "resignation"
        return Outcome(winner, (winner,) if winner else (), reason)

    # Forks -------------------------------------------------------------

    def shuffle_for_fork(self, d: Decision) -> None:
        """A fork's second event(s): each of ``hidden_piles`` shuffled with the fork's
        own seed (the parent's record would give its order away): the draw pile."""
        order = sorted(d.state.deck)
        d.rng.shuffle(order)
        d.emit(ev.DeckShuffled(order=tuple(order)))

    # What viewers see --------------------------------------------------

    def hand_of(self, state: State, seat: str) -> str:
        """The hand a seat's cards are in: its own."""
        return seat

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        """The mode's own part of a view (nothing in classic)."""
        return {}

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        """Deal the mode's own secrets ``seat`` cannot see into ``state``, a determinised
        copy of ``real`` (``SeatView.determinize``): nothing in classic."""
