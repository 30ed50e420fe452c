"""The commands of the mode: leaders placed and moved, the turn's end with its windows."""

from __future__ import annotations

from typing import Any

from riskcore.engine.decision import Decision, check_owns, check_turn, violation
from riskcore.errors import RuleViolation
from riskcore.model.state import ATTACK, FINISHED, FORTIFY, State
from riskcore.modes import adventure
from riskcore.modes.base import Handler
from riskcore.modes.lotr.leaders import leaderless, second_leader_owed
from riskcore.modes.lotr.protocol import (
    IN_TURN,
    LEAVE_ROLL,
    SETUP_LEADER,
    FellowshipMoved,
    LeaderMoved,
    LeaderPlaced,
    MoveLeader,
    PlaceLeader,
)
from riskcore.modes.lotr.scoring import _break_a_tie, fellowship_left, fellowship_step
from riskcore.protocol import commands as cmd
from riskcore.protocol.dice import GameRng
from riskcore.rules import battle, fortify, setup, turns
from riskcore.rules.flow import finish_if_decided


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
