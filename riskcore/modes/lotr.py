"""Lord of the Rings Risk, the 2002 edition (docs/rules.md, "Lord of the Rings Risk").

Played on the Middle-earth board by 2 to 4 players, each of the good or the
evil side (two players add a neutral army, as in ``riskcore.modes.middle_earth``).

- Setup: the territory cards are dealt by side (``DEALS``), the rest of the
  territories claimed one at a time, the armies placed one at a time, and
  then each player puts a *leader* on a territory of their own
  (``SETUP_LEADER``, the mode's own setup phase).
- Battles: a leader adds 1 to its side's highest die, attacking or
  defending; a stronghold adds 1 to its defender's highest die (never to an
  attack from it). A leader that attacks and wins moves into the conquered
  territory; a leader whose territory falls is lost. A player with no leader
  left puts one back on an own territory at the end of the turn, in the
  manoeuvre phase, before the turn's card is drawn (``leader_to_place``
  until then). In the manoeuvre phase a leader may also move on its own, once
  a turn, along own territories, never into a territory holding another
  leader of the same player.
- The Fellowship moves one step along its path at the end of every player's
  turn; from a square marked for it only on a roll of 4 or more. When it
  leaves the Dead Marshes the game ends and the score decides
  (``score_table``), ties broken by territories, strongholds, adventure
  points and at last a roll of three dice (``ScoreTieRolled``).
- Card sets trade at fixed values, 5 cards force a trade, an attacker rolling
  one die lets the defender roll one, a manoeuvre follows a chain of own
  territories: the mode's ``rule_defaults``.

- Adventure cards (``riskcore.modes.adventure``, the deck named by the
  ``adventure_deck`` option, which this mode sets): three dealt to each player
  before the first turn, one drawn at the end of a turn in which a leader
  reached a site of power, missions claimed there, power cards played at their
  moments; the points of played cards count in the score (``adventure_points``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from riskcore.engine.decision import Decision, check_owns, check_turn, violation
from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Action, Builder
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, REINFORCE, State
from riskcore.modes import adventure
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.modes.middle_earth import (
    EVIL,
    GOOD,
    NEUTRAL,
    check_board,
    deal_two_sides,
    neutral_dice_chooser,
    passive_neutral,
    side_piles,
    two_sided_seats,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.commands import register_command
from riskcore.protocol.dice import GameRng
from riskcore.protocol.events import Event, register_event
from riskcore.rules import battle, fortify, setup, turns
from riskcore.rules.flow import finish_if_decided

SETUP_LEADER = "setup_leader"  # each player in turn puts a leader on the board
IN_TURN = (REINFORCE, ATTACK, FORTIFY)  # a second leader may be put on in these
# docs/rules.md (Lord of the Rings Risk): 35 armies each for 2 or 3 players, 30 for 4.
ARMIES = {2: 35, 3: 35, 4: 30}
# The side of each seat p1..pN: as the deal tables seat them in turn order.
SIDES = {2: (GOOD, EVIL), 3: (EVIL, GOOD, EVIL), 4: (GOOD, EVIL, GOOD, EVIL)}
# The deal by side: per side, the rows its players take in turn order, each row
# (cards of the side, neutral cards). Three players: 5 evil + 4 neutral, 9 good,
# 4 evil + 5 neutral; four: 5 good, 5 evil, 4 good, 4 evil.
DEALS: dict[int, dict[str, tuple[tuple[int, int], ...]]] = {
    3: {EVIL: ((5, 4), (4, 5)), GOOD: ((9, 0),)},
    4: {GOOD: ((5, 0), (4, 0)), EVIL: ((5, 0), (4, 0))},
}
LEADER_BONUS = 1
STRONGHOLD_BONUS = 1
STRONGHOLD_POINTS = 2
LEAVE_ROLL = 4  # a marked square is left on a roll of 4 or more
TIE_DICE = 3


# Commands ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceLeader(cmd.Command):
    """Put a leader on an own territory: in setup, or when none of yours is left."""

    territory: str


register_command(PlaceLeader, "place_leader", fields={"territory": "str"})


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveLeader(cmd.Command):
    """Move a leader on its own in the manoeuvre phase, along own territories."""

    source: str
    target: str


register_command(MoveLeader, "move_leader", fields={"source": "str", "target": "str"})


# Events --------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class LeadersCalled(Event):
    """Every army is placed: the players put their leaders on, ``seat`` first."""

    seat: str


register_event(LeadersCalled, "leaders_called")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderPlaced(Event):
    """``seat`` put a leader on ``territory``: ``setup``, or ``return`` (none was left).
    In setup, ``next_seat`` places next (None: every player has)."""

    seat: str
    territory: str
    reason: str
    next_seat: str | None = None


register_event(LeaderPlaced, "leader_placed")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderMoved(Event):
    """``seat``'s leader went from ``source`` to ``target``: with a ``conquest`` it won,
    or as a ``manoeuvre``."""

    seat: str
    source: str
    target: str
    reason: str


register_event(LeaderMoved, "leader_moved")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderLost(Event):
    """The last army with ``seat``'s leader in ``territory`` fell to ``by``."""

    seat: str
    territory: str
    by: str


register_event(LeaderLost, "leader_lost")


@dataclass(frozen=True, slots=True, kw_only=True)
class FellowshipMoved(Event):
    """End of ``seat``'s turn: the Fellowship's try to move on. ``roll`` is the die on a
    marked square (None elsewhere); ``step`` is its place on the path afterwards
    (the path's length: it has left the Dead Marshes)."""

    seat: str
    roll: int | None
    moved: bool
    step: int


register_event(FellowshipMoved, "fellowship_moved")


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreTieRolled(Event):
    """Players level on score, territories, strongholds and adventure points rolled three
    dice each (``rounds``: each round's dice per seat, ties among the highest re-rolled)."""

    rounds: tuple[dict[str, list[int]], ...]
    winner: str


register_event(ScoreTieRolled, "score_tie_rolled", tuples=("rounds",))


# Queries ---------------------------------------------------------------------


def leaders_of(state: State, seat: str | None) -> tuple[str, ...]:
    return state.leaders.get(seat, ()) if seat is not None else ()


def second_leader_owed(state: State, seat: str) -> bool:
    """A second leader drawn this turn waits to be placed before the turn ends
    (``second_leader`` ``at_once``; 002_84c66041fccdfcee.txt: «SÄTT EN ANDRA LEDARE I
    SPEL SPELAS OMEDELBART Placera en andra Ledare i valfritt territorium»)."""
    return (
        state.rules.second_leader == "at_once"
        and adventure.second_leader_due(state, seat)
        and bool(state.leaders.get(seat))
    )


def leaderless(state: State, seat: str) -> bool:
    """No leader of ``seat`` on the board while it holds territory: one must be placed."""
    return not state.leaders.get(seat) and bool(state.territories_of(seat))


def fellowship_step(state: State) -> int:
    return state.fellowship or 0


def fellowship_left(state: State) -> bool:
    return fellowship_step(state) >= len(state.board.path)


def adventure_points(state: State, seat: str) -> int:
    """Points of the adventure cards ``seat`` played: its power and mission cards."""
    return adventure.points_of(state, seat)


def score_table(state: State) -> dict[str, dict[str, int]]:
    """docs/rules.md (Lord of the Rings Risk, "The end"): per player, 1 point a territory,
    each whole region's bonus, 2 a stronghold, and the adventure points."""
    table = {}
    for seat in state.order:
        if not state.seats[seat].plays:
            continue
        held = set(state.territories_of(seat))
        regions = sum(g.bonus for g in state.board.groups if g.territories <= held)
        strongholds = sum(1 for t in state.board.strongholds if t in held)
        adventure = adventure_points(state, seat)
        table[seat] = {
            "territories": len(held),
            "regions": regions,
            "strongholds": strongholds,
            "adventure": adventure,
            "total": len(held) + regions + STRONGHOLD_POINTS * strongholds + adventure,
        }
    return table


def _standing(row: Mapping[str, int]) -> tuple[int, int, int, int]:
    """What ranks players, in the book's order: score, territories, strongholds, adventure."""
    return (row["total"], row["territories"], row["strongholds"], row["adventure"])


def ranking(state: State) -> list[str]:
    """The active players by final standing; a tie at the top goes to the dice winner."""
    table = score_table(state)
    players = [p for p in state.active_players() if p in table]
    tie_winner = state.mode_data.get("tie_winner")
    return sorted(
        players,
        key=lambda p: (
            tuple(-v for v in _standing(table[p])),
            p != tie_winner,
            state.order.index(p),
        ),
    )


def tied_at_top(state: State) -> list[str]:
    table = score_table(state)
    players = [p for p in state.active_players() if p in table]
    if not players:
        return []
    best = max(_standing(table[p]) for p in players)
    return [p for p in players if _standing(table[p]) == best]


# Handlers ------------------------------------------------------------------


def place_leader(d: Decision, command: PlaceLeader) -> None:
    s = d.state
    seat = command.seat
    check_turn(s, seat)
    if s.phase == SETUP_LEADER:
        check_owns(s, seat, command.territory)
        following = _next_to_place(s, seat)
        d.emit(
            LeaderPlaced(
                seat=seat, territory=command.territory, reason="setup", next_seat=following
            )
        )
        if following is None:
            _start_play(d)
        return
    if adventure.second_leader_due(s, seat) and s.leaders.get(seat) and s.phase in IN_TURN:
        _place_second_leader(d, command)
        return
    if s.phase != FORTIFY:
        raise violation(
            "wrong_phase",
            "a leader goes back on the board at the end of your turn, when manoeuvring",
        )
    if s.leaders.get(seat):
        raise violation(
            "leader_in_play",
            "you have a leader on the board; a new one comes only when none is left",
        )
    check_owns(s, seat, command.territory)
    d.emit(LeaderPlaced(seat=seat, territory=command.territory, reason="return"))


def _place_second_leader(d: Decision, command: PlaceLeader) -> None:
    """The second leader an adventure card brought: on an own territory without one."""
    s = d.state
    check_owns(s, command.seat, command.territory)
    if command.territory in s.leaders.get(command.seat, ()):
        raise violation(
            "leader_already_there",
            f"{command.territory!r} holds a leader of yours; two never share a territory",
        )
    d.emit(LeaderPlaced(seat=command.seat, territory=command.territory, reason="second"))


def _start_play(d: Decision) -> None:
    """Every leader is placed: the adventure cards are dealt, then the first turn."""
    adventure.deal(d)
    setup.start_play(d)


def _next_to_place(s: State, after: str) -> str | None:
    """The next player in turn order still without a leader in setup."""
    i = s.order.index(after)
    for seat in s.order[i + 1 :]:
        if s.is_active(seat) and not s.leaders.get(seat):
            return seat
    return None


def move_leader(d: Decision, command: MoveLeader) -> None:
    s = d.state
    seat, source, target = command.seat, command.source, command.target
    check_turn(s, seat)
    if s.phase != FORTIFY:
        fortify.check_may_fortify(s, seat)  # names what is owed first
        raise violation("wrong_phase", "leaders move on their own in the manoeuvre phase")
    if source not in s.leaders.get(seat, ()):
        raise violation("no_leader_there", f"no leader of yours is in {source!r}")
    if s.mode_data.get("leader_moved_turn", {}).get(seat) == s.turn:
        raise violation("leader_moved", "a leader has manoeuvred this turn already")
    if adventure.mission_leader(s, seat) == source:
        raise violation(
            "leader_on_mission",
            f"the leader in {source!r} claimed a mission: it stays until the next player's turn",
        )
    check_owns(s, seat, target)
    if target in s.leaders.get(seat, ()):
        raise violation(
            "leader_already_there",
            f"{target!r} holds a leader of yours; two never share a territory",
        )
    if target not in s.mode.fortify_reach(s, seat, source):
        raise fortify.unreachable(s, source, target)
    d.emit(LeaderMoved(seat=seat, source=source, target=target, reason="manoeuvre"))


def end_phase(d: Decision, command: cmd.EndPhase) -> None:
    """The turn does not end while the player has no leader on the board; then the
    turn's adventure card is drawn, and with four in hand one is discarded first
    (``discard_adventure`` ends the turn)."""
    s = d.state
    if s.phase == FORTIFY and s.current == command.seat:
        if leaderless(s, command.seat):
            raise violation(
                "leader_to_place", "put a leader on one of your territories before the turn ends"
            )
        if adventure.discard_due(s, command.seat):
            raise violation(
                "adventure_discard_due", "you hold four adventure cards: discard one first"
            )
        if second_leader_owed(s, command.seat):
            if d.events:  # a discard in this command: the turn waits for the leader
                return
            raise violation(
                "second_leader_to_place",
                "place the second leader you drew before the turn ends (it is played at once)",
            )
        if adventure.draw_due(s, command.seat):
            adventure.draw(d, command.seat)
            if adventure.discard_due(s, command.seat) or second_leader_owed(s, command.seat):
                return
        if _window_before_the_fellowship(d, command.seat):
            return
    turns.end_phase(d, command)


def _window_before_the_fellowship(d: Decision, seat: str) -> bool:
    """The turn's territory card, then the Fellowship's window if anyone holds an
    adventure card; the turn ends when the window closes (``_close_window``)."""
    s = d.state
    if fellowship_left(s) or not adventure.window_holders(s, seat):
        return False
    if s.conquered:
        turns.draw_card(d, seat)
    return adventure.open_window(d, seat)


def _close_window(d: Decision) -> None:
    """Everyone asked has played or passed: the Fellowship moves or stays, and the
    turn of the window's player ends."""
    s = d.state
    open_window = adventure.window(s)
    if open_window is None or open_window["waiting"]:
        return
    ender = open_window["seat"]
    moved, roll = adventure.fellowship_leaves(s)
    step = fellowship_step(s)
    if roll is None and not moved and not open_window["effects"].get("stays"):
        roll = d.rng.die()  # a must-roll card on an unmarked square
        moved = roll >= LEAVE_ROLL
    d.emit(FellowshipMoved(seat=ender, roll=roll, moved=moved, step=step + 1 if moved else step))
    if fellowship_left(s):
        _break_a_tie(d)
    turns.end_turn(d, ender)


def _then_close_window(handler: Handler) -> Handler:
    """A pass or a play in a window; the last answer closes it (the Fellowship moves,
    or the attack the defender answered goes on)."""

    def handled(d: Decision, command: Any) -> None:
        attacked = adventure.defence_window(d.state)
        pending = dict(attacked["command"]) if attacked else None
        attacker = attacked["seat"] if attacked else None
        handler(d, command)
        _close_window(d)
        if pending is not None and attacker is not None and not adventure.called_off(d.state):
            _resume_attack(d, attacker, pending)

    return handled


def _resume_attack(d: Decision, attacker: str, body: dict[str, Any]) -> None:
    """The attack a defender's window held, sent again (now without a window)."""
    s = d.state
    if s.phase != ATTACK or s.current != attacker:
        return
    command = cmd.command_from_dict(body, attacker)
    try:
        s.mode.handlers[type(command)](d, command)
    except RuleViolation:  # its defender left the game meanwhile: the attack is void
        return


def _with_defence_window(base: Handler) -> Handler:
    """An attack on a player holding an adventure card waits for that player's answer
    (once a turn a territory). The command is checked in full first, on a copy."""

    def handled(d: Decision, command: cmd.Attack | cmd.Blitz) -> None:
        s = d.state
        if s.phase != ATTACK or not adventure.defence_window_due(s, command.seat, command.target):
            base(d, command)
            return
        base(Decision(s, GameRng(b"check only", s.game_id, s.version)), command)
        adventure.open_defence_window(d, command)

    return handled


def resign_in_window(d: Decision, command: cmd.Resign) -> None:
    """A player a window waits for who resigns passes first."""
    s = d.state
    attacked = adventure.defence_window(s)
    pending = dict(attacked["command"]) if attacked else None
    attacker = attacked["seat"] if attacked else None
    if adventure.window_seat(s) == command.seat:
        d.emit(adventure.AdventureWindowPassed(seat=command.seat))
    turns.resign_command(d, command)
    _close_window(d)
    if pending is not None and attacker is not None and command.seat != attacker:
        _resume_attack(d, attacker, pending)


def play_adventure(d: Decision, command: adventure.PlayAdventure) -> None:
    """A power card; one that moves the Fellowship off the board ends the game."""
    adventure.play(d, command)
    if fellowship_left(d.state) and d.state.phase != FINISHED:
        _break_a_tie(d)
        finish_if_decided(d)


def fortify_command(d: Decision, command: cmd.Fortify) -> None:
    """A manoeuvre, or one of the extra ones a power card gave; none over a border
    You shall not pass holds."""
    s = d.state
    if _blocked_manoeuvre(s, command.seat, command.source, command.target):
        raise violation(
            "border_blocked",
            f"a blocked bridge stands between {command.source!r} and {command.target!r}",
        )
    if not adventure.extra_fortify(d, command):
        fortify.fortify(d, command)


def _blocked_manoeuvre(s: State, seat: str, source: str, target: str) -> bool:
    """A manoeuvre the seat could make now but for a blocked bridge (any other fault
    is named by the manoeuvre's own checks)."""
    if not adventure.blocked_borders(s) or s.phase != FORTIFY or s.current != seat:
        return False
    if s.owner.get(source) != seat:
        return False
    reach = s.mode.fortify_reach(s, seat, source)
    return target in reach and target not in adventure.unblocked_reach(s, seat, source, reach)


def occupy_command(d: Decision, command: cmd.Occupy) -> None:
    """A conquest's armies move in; a Local uprising on that territory then rises."""
    battle.occupy(d, command)
    adventure.uprisings_rise(d, command.seat)


# Appliers --------------------------------------------------------------------


def _leaders_called(state: State, event: LeadersCalled) -> None:
    state.phase = SETUP_LEADER
    state.current = event.seat


def _leader_placed(state: State, event: LeaderPlaced) -> None:
    state.leaders[event.seat] = (*state.leaders.get(event.seat, ()), event.territory)
    if event.reason == "setup":
        state.current = event.next_seat
    elif event.reason == "second":
        adventure.second_leader_placed(state, event.seat)


def _leader_moved(state: State, event: LeaderMoved) -> None:
    state.leaders[event.seat] = tuple(
        event.target if t == event.source else t for t in state.leaders[event.seat]
    )
    if event.reason == "manoeuvre":
        state.mode_data.setdefault("leader_moved_turn", {})[event.seat] = state.turn
    adventure.note_arrival(state, event.target)


def _leader_lost(state: State, event: LeaderLost) -> None:
    state.leaders[event.seat] = tuple(t for t in state.leaders[event.seat] if t != event.territory)


def _fellowship_moved(state: State, event: FellowshipMoved) -> None:
    state.fellowship = event.step
    adventure.window_closed(state)


def _tie_rolled(state: State, event: ScoreTieRolled) -> None:
    state.mode_data["tie_winner"] = event.winner


# Legal actions -----------------------------------------------------------------


def _placements(s: State, seat: str) -> list[Action]:
    if s.phase in IN_TURN and adventure.second_leader_due(s, seat) and s.leaders.get(seat):
        own = s.leaders[seat]
        return [
            {"command": {"type": "place_leader", "territory": t}, "bounds": {}}
            for t in s.territories_of(seat)
            if t not in own
        ]
    if s.phase in (REINFORCE, ATTACK):
        return []
    if s.phase == FORTIFY and not leaderless(s, seat):
        return []
    return [
        {"command": {"type": "place_leader", "territory": t}, "bounds": {}}
        for t in s.territories_of(seat)
    ]


def _leader_moves(s: State, seat: str) -> list[Action]:
    if s.mode_data.get("leader_moved_turn", {}).get(seat) == s.turn:
        return []
    actions: list[Action] = []
    own = s.leaders.get(seat, ())
    for source in own:
        if adventure.mission_leader(s, seat) == source:
            continue
        for target in sorted(s.mode.fortify_reach(s, seat, source)):
            if target not in own:
                actions.append(
                    {
                        "command": {"type": "move_leader", "source": source, "target": target},
                        "bounds": {},
                    }
                )
    return actions


def _unless_leaderless(builder: Builder) -> Builder:
    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if leaderless(s, seat) or second_leader_owed(s, seat) else builder(s, seat)

    return build


def _unless_discarding(builder: Builder) -> Builder:
    """With four adventure cards drawn, the only move is a discard (or resigning)."""

    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if adventure.discard_due(s, seat) else builder(s, seat)

    return build


def _unless_owing_a_leader(builder: Builder) -> Builder:
    """With a second leader drawn at the turn's end, the only move is placing it."""

    def build(s: State, seat: str) -> Sequence[Action]:
        return [] if second_leader_owed(s, seat) else builder(s, seat)

    return build


def _fortifies(builder: Builder) -> Builder:
    def build(s: State, seat: str) -> Sequence[Action]:
        listed: Sequence[Action] = adventure.extra_fortifies(s, seat, builder)
        if not adventure.blocked_borders(s):
            return listed
        return [
            a
            for a in listed
            if not _blocked_manoeuvre(s, seat, a["command"]["source"], a["command"]["target"])
        ]

    return build


def _turn_started(base: Applier) -> Applier:
    def started(state: State, event: ev.TurnStarted) -> None:
        base(state, event)
        adventure.turn_started(state, event.seat)

    return started


def _fortified(base: Applier) -> Applier:
    def fortified(state: State, event: ev.Fortified) -> None:
        adventure.note_extra_fortify(state)
        base(state, event)

    return fortified


# The mode ------------------------------------------------------------------------


class LordOfTheRings(GameMode):
    name = "lotr"
    title = "Lord of the Rings Risk (2002)"
    players = (2, 4)
    board = "middle_earth"
    rule_defaults: ClassVar[Mapping[str, Any]] = {
        "card_values": "fixed",
        "fortify": "connected",
        "one_die_vs_one": True,
        "neutrals_must_fall": True,
        "adventure_deck": "adventure-northern-40-v1",
    }
    own_options: ClassVar[frozenset[str]] = frozenset({"adventure_deck"})

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {
            **super().command_handlers(),
            cmd.EndPhase: end_phase,
            cmd.Fortify: fortify_command,
            PlaceLeader: place_leader,
            MoveLeader: move_leader,
            **adventure.HANDLERS,
            adventure.PlayAdventure: _then_close_window(play_adventure),
            adventure.PassAdventure: _then_close_window(adventure.pass_window),
            cmd.Resign: resign_in_window,
            cmd.Attack: _with_defence_window(battle.attack),
            cmd.Blitz: _with_defence_window(battle.blitz),
            cmd.Occupy: occupy_command,
        }

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        base = super().event_appliers()
        return {
            **base,
            ev.TurnStarted: _turn_started(base[ev.TurnStarted]),
            ev.Fortified: _fortified(base[ev.Fortified]),
            **adventure.APPLIERS,
            LeadersCalled: _leaders_called,
            LeaderPlaced: _leader_placed,
            LeaderMoved: _leader_moved,
            LeaderLost: _leader_lost,
            FellowshipMoved: _fellowship_moved,
            ScoreTieRolled: _tie_rolled,
        }

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        table = super().phase_actions()
        resign = table[FORTIFY][-1]
        table[SETUP_LEADER] = (("place_leader", _placements), resign)
        table[FORTIFY] = (
            ("discard_adventure", adventure.discards),
            *(
                (
                    name,
                    _unless_discarding(
                        builder if name == "place_leader" else _unless_owing_a_leader(builder)
                    ),
                )
                for name, builder in (
                    ("place_leader", _placements),
                    ("move_leader", _leader_moves),
                    ("claim_adventure", adventure.mission_claims),
                    ("play_adventure", adventure.power_plays),
                    *(
                        (
                            name,
                            _unless_leaderless(builder)
                            if name == "end_phase"
                            else _fortifies(builder)
                            if name == "fortify"
                            else builder,
                        )
                        for name, builder in table[FORTIFY]
                        if name != "resign"
                    ),
                )
            ),
            resign,
        )
        for window in adventure.WINDOWS:
            table[window] = (
                ("pass_adventure", adventure.passes),
                ("play_adventure", adventure.power_plays),
                resign,
            )
        table[REINFORCE] = (
            ("place_leader", _placements),
            ("play_adventure", adventure.power_plays),
            *table[REINFORCE],
        )
        table[ATTACK] = (
            ("place_leader", _placements),
            ("claim_adventure", adventure.mission_claims),
            ("play_adventure", adventure.power_plays),
            *table[ATTACK],
        )
        return table

    # Setup -------------------------------------------------------------------

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        return passive_neutral(self, super().rule_set(given))

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        self.check_player_count(len(players))
        return two_sided_seats(self, players, rules, SIDES[len(players)])

    def starting_armies(self, rules: RuleSet, players: int) -> int:
        return rules.starting_armies or ARMIES[players]

    def open_game(self, d: Decision) -> None:
        """Roll for who starts, then deal by side; the rest is claimed in turn."""
        check_board(d.state, self.name)
        if adventure.plays(d.state):
            adventure.deck_of(d.state)  # a bad deck is refused when the game is made
        setup.roll_for_order(d, "setup", d.state.order)
        if len(d.state.order) == 2:
            deal_two_sides(d)
        else:
            _deal_by_side(d)

    def after_setup(self, d: Decision) -> None:
        """Every army is placed: each player puts a leader on, in turn order."""
        first = next((p for p in d.state.order if d.state.is_active(p)), None)
        if first is None:
            _start_play(d)
            return
        d.emit(LeadersCalled(seat=first))

    def next_turn(self, d: Decision, after: str) -> None:
        """A player who resigns while placing leaders passes the placing on."""
        s = d.state
        if s.phase != SETUP_LEADER:
            super().next_turn(d, after)
            return
        following = next((p for p in s.order if s.is_active(p) and not s.leaders.get(p)), None)
        if following is None:
            _start_play(d)
        else:
            d.emit(LeadersCalled(seat=following))

    # Battles -------------------------------------------------------------------

    def battle_bonus(self, state: State, source: str, target: str) -> tuple[int, int]:
        """A leader +1 to its side's highest die; the stronghold +1 to the defender's."""
        attacker = state.owner.get(source)
        defender = state.owner.get(target)
        attack = LEADER_BONUS if source in leaders_of(state, attacker) else 0
        defence = LEADER_BONUS if target in leaders_of(state, defender) else 0
        if target in state.board.strongholds and not adventure.stronghold_off(state, target):
            defence += STRONGHOLD_BONUS
        return attack, defence

    def attack_refusal(
        self, state: State, seat: str, source: str, target: str
    ) -> RuleViolation | None:
        """Winter storms: nobody attacks into or out of the territories it named. You
        shall not pass: no armies cross the blocked bridge without a leader."""
        if adventure.storm_refuses(state, source, target):
            return violation(
                "storm", f"a winter storm holds {source!r} or {target!r}: no attack there"
            )
        if adventure.border_blocked(state, seat, source, target):
            return violation(
                "border_blocked",
                f"the bridge {source!r} - {target!r} is blocked: only with a leader of yours",
            )
        return None

    def defence_chooser(self, state: State, defender: str, attacker: str | None) -> str | None:
        if defender == NEUTRAL:
            return neutral_dice_chooser(state, attacker)
        return super().defence_chooser(state, defender, attacker)

    def after_conquest(self, d: Decision, seat: str, target: str, defender: str) -> None:
        """The defender's leader there is lost; the attacker's leader moves in."""
        s = d.state
        if target in s.leaders.get(defender, ()):
            d.emit(LeaderLost(seat=defender, territory=target, by=seat))
        occupation = s.occupation
        if (
            occupation is not None
            and occupation.source in s.leaders.get(seat, ())
            and adventure.mission_leader(s, seat) != occupation.source
        ):
            d.emit(
                LeaderMoved(seat=seat, source=occupation.source, target=target, reason="conquest")
            )

    # The end of a turn -----------------------------------------------------------

    def waiting_for(self, state: State) -> str | None:
        """In the Fellowship's window, the player it asks now."""
        if state.phase in adventure.WINDOWS:
            return adventure.window_seat(state)
        return super().waiting_for(state)

    def end_of_turn(self, d: Decision, seat: str) -> None:
        """The turn's card, then the Fellowship's move (a roll on a marked square);
        both done already if the Fellowship's window was open."""
        s = d.state
        if s.mode_data.get("window_done_turn") == s.turn:
            return
        super().end_of_turn(d, seat)
        path = s.board.path
        step = fellowship_step(s)
        if step >= len(path):
            return
        roll = d.rng.die() if path[step].needs_roll else None
        moved = roll is None or roll >= LEAVE_ROLL
        d.emit(FellowshipMoved(seat=seat, roll=roll, moved=moved, step=step + 1 if moved else step))
        if fellowship_left(s):
            _break_a_tie(d)

    def outcome(self, state: State) -> Outcome | None:
        """The Fellowship left the Dead Marshes: the best score wins. Before that, the
        last player left wins (every territory conquered, or the others gone)."""
        if fellowship_left(state) and state.active_players():
            winner = ranking(state)[0]
            return Outcome(winner, (winner,), "fellowship_left")
        return super().outcome(state)

    # Views -------------------------------------------------------------------------

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        adventure.deal_unseen(real, state, seat, rng)

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        path = state.board.path
        step = fellowship_step(state)
        here = path[step] if step < len(path) else None
        return {
            "sides": {s: seat.side for s, seat in state.seats.items()},
            "leaders": {s: list(ts) for s, ts in state.leaders.items() if ts},
            "fellowship": {
                "step": step,
                "territory": here.territory if here else None,
                "needs_roll": here.needs_roll if here else False,
                "left": here is None,
            },
            "scores": score_table(state),
            "ranking": ranking(state),
            "leader_moved": state.mode_data.get("leader_moved_turn", {}).get(state.current)
            == state.turn,
            "adventure": adventure.view(state, viewer),
        }


register_mode(LordOfTheRings)


def _deal_by_side(d: Decision) -> None:
    """Three or four players: each side's rows of the deal table to its players in turn
    order, one army on each territory."""
    s = d.state
    piles = side_piles(d)
    rows = DEALS[len(s.order)]
    taken = {side: 0 for side in piles}
    owners: dict[str, str] = {}
    row_of = {side: 0 for side in rows}
    for seat in s.order:
        side = s.seats[seat].side
        assert side is not None
        own, neutral = rows[side][row_of[side]]
        row_of[side] += 1
        for pile, count in ((side, own), ("neutral", neutral)):
            for territory in piles[pile][taken[pile] : taken[pile] + count]:
                owners[territory] = seat
            taken[pile] += count
    d.emit(ev.TerritoriesDealt(owners=owners))


def _break_a_tie(d: Decision) -> None:
    """docs/rules.md: players still level after adventure points roll three dice; the
    highest total wins, ties among the highest roll again."""
    level = tied_at_top(d.state)
    if len(level) < 2:
        return
    rounds: list[dict[str, list[int]]] = []
    while len(level) > 1:
        rolls = {seat: [d.rng.die() for _ in range(TIE_DICE)] for seat in level}
        rounds.append(rolls)
        best = max(sum(r) for r in rolls.values())
        level = [seat for seat in level if sum(rolls[seat]) == best]
    d.emit(ScoreTieRolled(rounds=tuple(rounds), winner=level[0]))
