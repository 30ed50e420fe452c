"""The rules of active neutral armies (docs/rules.md, "Active neutrals"): the
marker track, bribes, ally reinforcement, attacking and fortifying with allies.

Each neutral's marker stands on a track of three places: allied with player
one, uninvolved (the middle), allied with player two. ``State.alliances``
holds the player it is allied with, ``None`` (or no entry) for the middle.
A step *toward* a player moves it one place nearer that player's end; a
step *away* one place nearer the other's. It never leaves the track.

An ally's armies are the neutral seat's own (a battle or a fortify made
with them names the neutral as its ``seat``): the player commands them in
their turn, and the rules below check the player's turn and the alliance.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from riskcore.engine.decision import (
    Decision,
    check_can_act,
    check_territory,
    check_turn,
    violation,
)
from riskcore.model.state import ATTACK, DEFEND, FINISHED, FORTIFY, OCCUPY, State
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.commands import register_command
from riskcore.protocol.events import Event, register_event
from riskcore.rules import battle, fortify, turns
from riskcore.rules.battle import check_attack_phase
from riskcore.rules.flow import FORCED_TRADE_AT

# Phases of the active-neutral turn besides the classic ones.
BRIBE = "bribe"
REINFORCE_ALLIES = "reinforce_allies"
# docs/rules.md (active neutrals): a neutral holding 5 cards can no longer be bribed.
MOST_CARDS = 5
# ``marker_dice``: after each command (games recorded before the option), or when an
# attack is over; ``attack_first``, as games recorded from game_created v7 until issue 53
# rolled them (the first neutral's die only).
COMMAND, ATTACK_FIRST = "command", "attack_first"
# docs/rules.md (active neutrals): a marker die of 1-4 moves the marker a step away; 5-6 leaves it.
MOVES_ON_AT_MOST = 4


# Commands -------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Bribe(cmd.Command):
    """Give ``cards`` face down to ``neutral``: each moves its marker a step toward you."""

    neutral: str
    cards: tuple[int, ...]


register_command(Bribe, "bribe", fields={"neutral": "str", "cards": "tuple[int, ...]"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ReinforceAlly(cmd.Command):
    """Roll one die for your ally ``neutral``; then place that many of its armies."""

    neutral: str


register_command(ReinforceAlly, "reinforce_ally", fields={"neutral": "str"})


# Events ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class NeutralBribed(Event):
    """``seat`` gave ``cards`` to ``neutral`` (which cards: secret to ``seat``);
    ``ally`` is where its marker stands after it (a player, or None: uninvolved)."""

    seat: str
    neutral: str
    cards: tuple[int, ...]
    ally: str | None

    def redacted_for(self, viewer: str | None) -> Event:
        if viewer == self.seat:
            return self
        return dataclasses.replace(self, cards=(-1,) * len(self.cards))

    def summary_facts(self) -> dict[str, int]:
        return {"cards_bribed": len(self.cards)}


register_event(NeutralBribed, "neutral_bribed", secret=("cards",), tuples=("cards",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AllyReinforcementRolled(Event):
    """``seat`` rolled ``die`` for its ally ``neutral``: that many armies to place."""

    seat: str
    neutral: str
    die: int


register_event(AllyReinforcementRolled, "ally_reinforcement_rolled")


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkerRolled(Event):
    """After an attack on a neutral territory or with an ally, the die for
    ``neutral``: on 1-4 its marker stepped away from ``seat`` (``ally`` is where
    it stands now)."""

    seat: str
    neutral: str
    die: int
    ally: str | None

    def summary_facts(self) -> dict[str, int]:
        return {"markers_moved": 1} if self.die <= MOVES_ON_AT_MOST else {}


register_event(MarkerRolled, "marker_rolled")


# The track --------------------------------------------------------------------


def neutrals(state: State) -> list[str]:
    """The neutral seats still on the board."""
    return state.non_players()


def is_neutral(state: State, seat: str | None) -> bool:
    return seat is not None and seat in state.seats and not state.seats[seat].plays


def opponent(state: State, player: str) -> str:
    """The other player (the game has two)."""
    return next(p for p in state.order if p != player)


def allies_of(state: State, player: str) -> list[str]:
    return [n for n in neutrals(state) if state.alliances.get(n) == player]


def toward(now: str | None, player: str, other: str) -> str | None:
    """Where a marker standing at ``now`` stands after a step toward ``player``."""
    return None if now == other else player


def away(now: str | None, player: str, other: str) -> str | None:
    """Where a marker standing at ``now`` stands after a step away from ``player``."""
    return None if now == player else other


def room(state: State, neutral: str) -> int:
    """How many more cards ``neutral`` may be given."""
    return max(0, MOST_CARDS - len(state.hands.get(neutral, [])))


# Bribes -----------------------------------------------------------------------


def bribe(d: Decision, command: Bribe) -> None:
    s = d.state
    seat, neutral, cards = command.seat, command.neutral, command.cards
    check_turn(s, seat)
    if s.phase != BRIBE:
        raise violation(
            "not_bribe_phase", f"neutrals are bribed at the start of a turn, not in {s.phase!r}"
        )
    check_neutral(s, neutral)
    hand = s.hand(seat)
    if not cards:
        raise violation("card_not_held", "name at least one card of your hand to give")
    for i, card in enumerate(cards):
        if card not in hand or card in cards[:i]:
            raise violation("card_not_held", f"card {card!r} is not in your hand")
    left = room(s, neutral)
    if len(cards) > left:
        held = MOST_CARDS - left
        raise violation(
            "neutral_full",
            f"{neutral!r} holds {held} cards; a neutral holding {MOST_CARDS} can no longer be"
            f" bribed ({left} more)",
        )
    ally, other = s.alliances.get(neutral), opponent(s, seat)
    for _ in cards:
        ally = toward(ally, seat, other)
    d.emit(NeutralBribed(seat=seat, neutral=neutral, cards=tuple(cards), ally=ally))


def check_neutral(s: State, neutral: str) -> None:
    if not is_neutral(s, neutral):
        raise violation("unknown_neutral", f"no neutral army {neutral!r} in this game")
    if neutral in s.out:
        raise violation("neutral_out", f"the neutral army {neutral!r} is out of the game")


def bribed(state: State, event: NeutralBribed) -> None:
    hand = state.hands[state.hand_id(event.seat)]
    for card in event.cards:
        hand.remove(card)
    state.hands.setdefault(event.neutral, []).extend(event.cards)
    state.bribes.setdefault(event.seat, []).extend(event.cards)
    state.alliances[event.neutral] = event.ally


def forget_given(state: State, cards: tuple[int, ...]) -> None:
    """Cards that left a neutral (its elimination) are no longer anyone's bribes."""
    for giver, given in state.bribes.items():
        state.bribes[giver] = [c for c in given if c not in cards]


def forced_trade_after_bribes(state: State) -> None:
    """Applied when the bribe phase ends: the forced trade of a hand of 5 or more
    (docs/rules.md) is counted now, with the cards the bribes left."""
    held = len(state.hand(state.current or ""))
    if held >= FORCED_TRADE_AT:
        state.must_trade_until = held - 3


# Reinforcing allies -------------------------------------------------------------


def reinforce_ally(d: Decision, command: ReinforceAlly) -> None:
    s = d.state
    seat, neutral = command.seat, command.neutral
    check_turn(s, seat)
    if s.phase != REINFORCE_ALLIES:
        raise violation(
            "wrong_phase", f"allies are reinforced after your own armies, not in {s.phase!r}"
        )
    check_neutral(s, neutral)
    if s.alliances.get(neutral) != seat:
        raise violation("not_your_ally", f"{neutral!r} is not allied with {seat!r}")
    if neutral in s.mode_data.get("allies_rolled", ()):
        raise violation("ally_already_reinforced", f"{neutral!r} was reinforced this turn")
    d.emit(AllyReinforcementRolled(seat=seat, neutral=neutral, die=d.rng.die()))


def ally_rolled(state: State, event: AllyReinforcementRolled) -> None:
    state.reserve[event.neutral] = state.reserve.get(event.neutral, 0) + event.die
    state.mode_data.setdefault("allies_rolled", []).append(event.neutral)
    state.mode_data.setdefault("ally_armies", {})[event.neutral] = event.die


def ally_armies_placed(state: State, event: ev.ArmiesPlaced) -> None:
    """Applied after an ``ArmiesPlaced`` of the ally phase: fewer rolled armies left."""
    left = state.mode_data.get("ally_armies", {})
    if event.player in left:
        left[event.player] -= event.count


def rolled_left(s: State, ally: str) -> int:
    """The armies rolled for ``ally`` this turn still to be placed."""
    left: int = s.mode_data.get("ally_armies", {}).get(ally, 0)
    return left


def place_for_ally(d: Decision, command: cmd.PlaceArmies) -> None:
    """In the ally phase: place rolled armies on that ally's territories."""
    s = d.state
    seat = command.seat
    check_territory(s, command.territory)
    holder = s.owner.get(command.territory)
    if holder is None or holder not in allies_of(s, seat):
        raise violation(
            "not_your_ally", f"{command.territory!r} is held by {holder!r}, not an ally of yours"
        )
    left = rolled_left(s, holder)
    if command.count > left:
        raise violation(
            "more_than_rolled",
            f"{command.count!r} armies; {holder!r} has {left} rolled armies to place",
        )
    if command.count < 1:
        raise violation("invalid_count", f"place at least 1 army, not {command.count!r}")
    d.emit(
        ev.ArmiesPlaced(seat=seat, player=holder, territory=command.territory, count=command.count)
    )


def armies_left_for_allies(s: State, seat: str) -> int:
    return sum(rolled_left(s, n) for n in allies_of(s, seat))


# Attacking with allies ------------------------------------------------------------


def check_attack(s: State, seat: str, source: str, target: str) -> tuple[str, int]:
    """Validate an attack from ``source``, with the seat's own armies or an ally's;
    return whose armies attack and the most dice they may roll."""
    check_turn(s, seat)
    check_attack_phase(s)
    army = commanded(s, seat, source)
    check_territory(s, target)
    if not s.board.adjacent(source, target):
        raise battle.not_a_border(s, source, target)
    holder = s.owner.get(target)
    if holder == army and army != seat:
        raise violation(
            "ally_own_colour", f"{target!r} is {army!r}'s own; an ally never attacks its colour"
        )
    if holder == seat:
        raise violation("own_territory", f"{target!r} is yours; attack someone else")
    if holder is None:
        raise violation("contested", f"nobody controls {target!r}; there is no defender")
    armies = s.armies[(source, army)]
    if armies < 2:
        raise violation("too_few_armies", f"{source!r} has {armies} army; attacking needs 2")
    return army, min(3, armies - 1)


def commanded(s: State, seat: str, source: str) -> str:
    """Whose armies ``seat`` commands in ``source``: its own, or an ally's."""
    check_territory(s, source)
    holder = s.owner.get(source)
    if holder == seat:
        return seat
    if holder is not None and s.alliances.get(holder) == seat and is_neutral(s, holder):
        return holder
    if is_neutral(s, holder):
        raise violation("not_your_ally", f"{source!r} is held by {holder!r}, not an ally of yours")
    raise violation("not_your_territory", f"{source!r} is held by {holder!r}, not {seat!r}")


def attack(d: Decision, command: cmd.Attack) -> None:
    s = d.state
    army, most = check_attack(s, command.seat, command.source, command.target)
    dice = most if command.dice is None else command.dice
    if dice > most:
        raise violation("too_many_dice", f"{dice!r} dice; {command.source!r} allows at most {most}")
    if dice < 1:
        raise violation("invalid_dice", f"{dice!r} dice; roll 1 to {most}")
    defender = battle.defender_of(s, command.target)
    chooser = battle._chooser(s, defender, command.seat)
    choice = (
        min(battle.defence_cap(s, command.target, dice), s.armies[(command.target, defender)]) > 1
    )
    finish_other_attack(d, command.seat, command.target)
    if s.rules.defender_chooses_dice and chooser is not None and choice:
        d.emit(
            ev.AttackDeclared(
                seat=army,
                source=command.source,
                target=command.target,
                dice=dice,
                defender=defender,
            )
        )
        return
    battle.battle(d, army, command.source, command.target, dice, None)
    after_battles(d, command.seat, army, defender)


def blitz(d: Decision, command: cmd.Blitz) -> None:
    s = d.state
    seat, source, target = command.seat, command.source, command.target
    army, _ = check_attack(s, seat, source, target)
    if command.stop_at < 1:
        raise violation("invalid_stop_at", f"stop_at {command.stop_at!r} must be at least 1")
    defender = battle.defender_of(s, target)
    if s.rules.defender_chooses_dice and battle._chooser(s, defender, seat):
        raise violation(
            "blitz_unavailable", "defenders choose their dice in this game; attack battle by battle"
        )
    armies = s.armies
    floor = command.stop_at
    if armies[(source, army)] <= floor:
        raise violation("too_few_armies", f"{source!r} already has {floor} or fewer armies")
    finish_other_attack(d, seat, target)
    battle.fight_blitz(d, army, source, target, floor)
    after_battles(d, seat, army, defender)


def defend(d: Decision, command: cmd.Defend) -> None:
    """The defender's dice for a declared attack, made with the player's armies or an ally's."""
    s = d.state
    check_can_act(s, command.seat)
    pending = s.pending_battle
    if s.phase != DEFEND or pending is None or s.current is None:
        raise violation("no_battle_pending", "there is no attack waiting for a defence")
    if battle.defending_seat(s) != command.seat:
        raise violation("not_defender", f"seat {command.seat!r} does not defend this battle")
    cap = battle.defence_cap(s, pending.target, pending.dice)
    most = min(cap, s.armies[(pending.target, pending.defender)])
    if command.dice > most:
        raise violation("too_many_dice", f"{command.dice!r} dice; defend with 1 to {most}")
    if command.dice < 1:
        raise violation("invalid_dice", f"{command.dice!r} dice; defend with 1 to {most}")
    army = s.owner.get(pending.source) or s.current
    player = s.current
    battle.battle(d, army, pending.source, pending.target, pending.dice, command.dice)
    after_battles(d, player, army, pending.defender)


def roll_markers(d: Decision, seat: str, army: str, defender: str) -> None:
    """One die for each neutral the attack involved (the attacking ally, a neutral
    defender) still in play: 1-4 steps its marker away from ``seat``."""
    s = d.state
    if s.phase in (FINISHED, DEFEND):
        return
    involved = [n for n in dict.fromkeys((army, defender)) if is_neutral(s, n) and n not in s.out]
    for neutral in involved:
        die = d.rng.die()
        now = s.alliances.get(neutral)
        ally = away(now, seat, opponent(s, seat)) if die <= MOVES_ON_AT_MOST else now
        d.emit(MarkerRolled(seat=seat, neutral=neutral, die=die, ally=ally))


def after_battles(d: Decision, seat: str, army: str, defender: str) -> None:
    """The marker dice once the battles of a command are fought: at once for each
    command (``marker_dice`` ``command``, as games recorded before the option), or
    when the attack is over (``attack``, 000_ed9208fe5525be2d.txt: «Ett ANGREPP är en
    attack mot ett enskilt territorium och kan bestå av en eller flera strider» and
    «När du har avslutat ett angrepp mot ett neutralt territorium ... kastar du 1
    tärning»): here, when the territory has fallen; otherwise when the player attacks
    another territory or ends the attack phase (``finish_attack``)."""
    s = d.state
    if s.rules.marker_dice == COMMAND:
        roll_markers(d, seat, army, defender)
    elif s.phase == OCCUPY:
        finish_attack(d, seat)


def finish_other_attack(d: Decision, seat: str, target: str) -> None:
    """An attack on a territory other than the one under attack ends that attack."""
    attack = d.state.mode_data.get(ATTACK_UNDER_WAY)
    if attack is not None and attack["target"] != target:
        finish_attack(d, seat)


def finish_attack(d: Decision, seat: str) -> None:
    """The attack under way is over: one marker die for each neutral it involved, the
    attacking ally's and the neutral it attacked (000_ed9208fe5525be2d.txt: «Om du
    använder en allierad för att angripa en annan neutral här kastar du en tärning för
    varje neutral här»). Games recorded with ``marker_dice`` ``attack`` before issue 53
    (``attack_first``) rolled the first one's only: each roll took its neutral off the
    list being read, which skipped the next; they replay so."""
    s = d.state
    attack = s.mode_data.get(ATTACK_UNDER_WAY)
    if attack is None or s.phase == FINISHED:
        return
    involved = (
        attack["neutrals"] if s.rules.marker_dice == ATTACK_FIRST else list(attack["neutrals"])
    )
    for neutral in involved:
        if neutral in s.out:
            continue
        die = d.rng.die()
        now = s.alliances.get(neutral)
        ally = away(now, seat, opponent(s, seat)) if die <= MOVES_ON_AT_MOST else now
        d.emit(MarkerRolled(seat=seat, neutral=neutral, die=die, ally=ally))


# ``State.mode_data`` key: the attack under way (``marker_dice`` ``attack``): its
# target and the neutrals it involved so far (attacking allies, a neutral defender).
ATTACK_UNDER_WAY = "attack_under_way"


def battle_fought(state: State, event: ev.BattleResolved) -> None:
    """Note the neutrals a battle involved in the attack under way (a battle on
    another territory starts a new attack)."""
    if state.rules.marker_dice == COMMAND:
        return
    data = state.mode_data
    attack = data.get(ATTACK_UNDER_WAY)
    if attack is None or attack["target"] != event.target:
        attack = data[ATTACK_UNDER_WAY] = {"target": event.target, "neutrals": []}
    for seat in (event.seat, event.defender):
        if is_neutral(state, seat) and seat not in attack["neutrals"]:
            attack["neutrals"].append(seat)


def marker_rolled(state: State, event: MarkerRolled) -> None:
    state.alliances[event.neutral] = event.ally
    attack = state.mode_data.get(ATTACK_UNDER_WAY)
    if attack is not None and event.neutral in attack["neutrals"]:
        attack["neutrals"].remove(event.neutral)
        if not [n for n in attack["neutrals"] if n not in state.out]:
            del state.mode_data[ATTACK_UNDER_WAY]


def occupy(d: Decision, command: cmd.Occupy) -> None:
    """Move into a conquered territory: the armies of whoever took it (an ally's own)."""
    occ = d.state.occupation
    taker = d.state.owner.get(occ.target) if occ is not None else None
    battle.occupy(d, command, seat=taker)


def resign(d: Decision, command: cmd.Resign) -> None:
    """Resigning with an ally's conquest waiting for armies: the ally moves in the
    least first (as for one's own conquest), then the seat leaves."""
    s = d.state
    check_can_act(s, command.seat)
    occ = s.occupation
    army = s.owner.get(occ.target) if occ is not None else None
    if occ is not None and s.current == command.seat and army != command.seat:
        d.emit(
            ev.TerritoryOccupied(
                seat=army or command.seat,
                source=occ.source,
                target=occ.target,
                count=occ.min_move,
                next_phase=battle.phase_after_occupying(s),
            )
        )
    turns.resign(d, command.seat, "resigned")


# Fortifying with allies -------------------------------------------------------------


def fortify_with(d: Decision, command: cmd.Fortify) -> None:
    """Your own fortify (once), or one free fortify for each ally, in any order."""
    s = d.state
    seat = command.seat
    check_turn(s, seat)
    if s.phase == ATTACK:
        raise violation("wrong_phase", "end the attack phase before fortifying")
    if s.phase != FORTIFY:
        check_attack_phase(s)
    army = commanded(s, seat, command.source)
    if army == seat:
        fortify.fortify(d, command)
        return
    if army in s.mode_data.get("allies_fortified", ()):
        raise violation("ally_already_fortified", f"{army!r} has fortified this turn")
    check_territory(s, command.target)
    if s.owner.get(command.target) != army:
        raise violation(
            "not_your_territory", f"{command.target!r} is not held by your ally {army!r}"
        )
    if command.target not in fortify.reachable(s, army, command.source):
        raise fortify.unreachable(s, command.source, command.target)
    most = s.armies[(command.source, army)] - 1
    if not 1 <= command.count <= most:
        raise violation(
            "invalid_count",
            f"move 1 to {most} armies from {command.source!r}, not {command.count!r}",
        )
    d.emit(
        ev.Fortified(seat=army, source=command.source, target=command.target, count=command.count)
    )


def ally_fortifies(s: State, seat: str) -> list[str]:
    """The allies of ``seat`` that may still make their free fortify this turn."""
    done = s.mode_data.get("allies_fortified", ())
    return [n for n in allies_of(s, seat) if n not in done]
