"""Attacks, battles, blitz, the defender's dice, conquest and elimination.

docs/rules.md, the classic game: "Attack", "Conquest", "Elimination". A battle is one roll; the
attacker rolls 1-3 dice with at least dice+1 armies in the source, the
defender 1-2 (2 only with 2+ armies), pairs compare high to high and ties
go to the defender (``riskcore.rules.odds.compare_dice``).
"""

from __future__ import annotations

from riskcore.engine.decision import (
    Decision,
    check_can_act,
    check_owns,
    check_territory,
    check_turn,
    violation,
)
from riskcore.engine.evolve import ALWAYS_MOST
from riskcore.errors import RuleViolation
from riskcore.model.state import ATTACK, DEFEND, OCCUPY, REINFORCE, State
from riskcore.protocol import events as ev
from riskcore.protocol.commands import Attack, Blitz, Defend, Occupy, SetDefence
from riskcore.rules.flow import finish_if_decided

# 001_c708159c204162c3.txt: after an elimination, trade until you hold 4 or fewer.
TRADE_DOWN_TO = 4


def check_attack_phase(s: State) -> None:
    """Attacking needs the attack phase; say what is owed first if not."""
    if s.phase == ATTACK:
        return
    if s.phase == OCCUPY:
        raise violation("must_occupy", "move armies into the conquered territory first")
    if s.phase == REINFORCE and s.must_trade_until is not None:
        raise violation("must_trade_cards", "trade a set of cards first")
    if s.phase == REINFORCE:
        left = s.reserve.get(s.current or "", 0)
        raise violation("armies_to_place", f"place your {left} remaining armies first")
    if s.phase == DEFEND:
        raise violation("waiting_for_defender", "the defender has not chosen their dice yet")
    raise violation("wrong_phase", f"attacks need the attack phase; the game is in {s.phase!r}")


def check_attack(s: State, seat: str, source: str, target: str) -> int:
    """Validate an attack from ``source`` on ``target``; return the most dice allowed."""
    check_turn(s, seat)
    check_attack_phase(s)
    check_owns(s, seat, source)
    check_territory(s, target)
    if not s.board.adjacent(source, target):
        raise not_a_border(s, source, target)
    holder = s.owner.get(target)
    if holder == seat:
        raise violation("own_territory", f"{target!r} is yours; attack someone else")
    if holder is None and s.mode.defender_of(s, target) is None:
        raise violation("contested", f"nobody controls {target!r}; there is no defender")
    mode = s.mode
    if mode.refuses_more_attacks:
        refusal = mode.attack_refusal(s, seat, source, target)
        if refusal is not None:
            raise refusal
    armies = s.troops(source)
    if armies < 2:
        raise violation("too_few_armies", f"{source!r} has {armies} army; attacking needs 2")
    return min(3, armies - 1)


def not_a_border(s: State, source: str, target: str) -> RuleViolation:
    """The refusal of a move between ``source`` and ``target``, which share no border:
    across a river away from its bridges, over mountains, or simply not touching."""
    kind = s.board.border_kind(source, target)
    if kind == "river":
        return violation(
            "river_without_bridge",
            f"a river runs between {source!r} and {target!r}, away from any bridge",
        )
    if kind == "mountain":
        return violation(
            "mountains_impassable",
            f"mountains stand between {source!r} and {target!r}; they cannot be crossed",
        )
    return violation("not_adjacent", f"{source!r} does not border {target!r}")


def defender_of(s: State, target: str) -> str:
    """Whose armies defend ``target``: its controller, or where nobody controls
    it (a tie), the one the mode names (``GameMode.defender_of``)."""
    defender = s.owner.get(target) or s.mode.defender_of(s, target)
    assert defender is not None  # ``check_attack``: someone defends the target
    return defender


def defending_seat(s: State) -> str | None:
    """Who picks the defender's dice, or None when the maximum is rolled
    (``GameMode.defence_chooser``)."""
    battle = s.pending_battle
    if battle is None:
        return None
    chooser: str | None = s.mode.defence_chooser(s, battle.defender, s.current)
    return chooser


def defence_cap(s: State, target: str, attacker_dice: int) -> int:
    """The most dice the defender of ``target`` may roll against ``attacker_dice``: the
    mode's cap, and one against one die where the rule option ``one_die_vs_one`` says so
    (docs/rules.md, "Lord of the Rings Risk")."""
    cap = s.mode.defender_dice_cap(s, target)
    return 1 if attacker_dice == 1 and s.rules.one_die_vs_one else cap


def _chooser(s: State, defender: str, attacker: str | None) -> str | None:
    """Who picks the defender's dice now: the mode's chooser, unless that seat always
    rolls the most (``set_defence``); None: the most are rolled at once."""
    chooser: str | None = s.mode.defence_chooser(s, defender, attacker)
    if chooser is not None and s.mode_data.get(ALWAYS_MOST, {}).get(chooser):
        return None
    return chooser


def set_defence(d: Decision, command: SetDefence) -> None:
    """A seat's standing preference where defenders choose (docs/rules.md, "Attack"):
    000_ed9208fe5525be2d.txt «Därefter bestämmer försvararen hur många arméer han eller
    hon ska använda»; a seat that always rolls the most has decided once for every
    battle, so no battle waits for it. Turned on while a battle waits for it, that
    battle is rolled at once with the most dice."""
    s = d.state
    check_can_act(s, command.seat)
    if not s.rules.defender_chooses_dice:
        raise violation(
            "defenders_roll_most", "defenders always roll the most dice in this game already"
        )
    now = bool(s.mode_data.get(ALWAYS_MOST, {}).get(command.seat))
    if now == command.always_most:
        raise violation("defence_unchanged", f"always_most is {now} already for {command.seat!r}")
    d.emit(ev.DefenceSet(seat=command.seat, always_most=command.always_most))
    pending = s.pending_battle
    waited = s.phase == DEFEND and pending is not None and defending_seat(s) == command.seat
    if command.always_most and waited and pending is not None:
        cap = defence_cap(s, pending.target, pending.dice)
        most = min(cap, s.armies[(pending.target, pending.defender)])
        s.mode.handlers[Defend](d, Defend(seat=command.seat, dice=most))


def attack(d: Decision, command: Attack) -> None:
    s = d.state
    most = check_attack(s, command.seat, command.source, command.target)
    dice = most if command.dice is None else command.dice
    if dice > most:
        raise violation("too_many_dice", f"{dice!r} dice; {command.source!r} allows at most {most}")
    if dice < 1:
        raise violation("invalid_dice", f"{dice!r} dice; roll 1 to {most}")
    defender = defender_of(s, command.target)
    chooser = _chooser(s, defender, command.seat)
    defending = s.armies[(command.target, defender)]
    choice = min(defence_cap(s, command.target, dice), defending) > 1
    if s.rules.defender_chooses_dice and chooser is not None and choice:
        d.emit(
            ev.AttackDeclared(
                seat=command.seat,
                source=command.source,
                target=command.target,
                dice=dice,
                defender=defender,
            )
        )
        return
    battle(d, command.seat, command.source, command.target, dice, None)


def blitz(d: Decision, command: Blitz) -> None:
    """Battles with the most dice until the target falls, the source is at
    ``stop_at`` or the rule option ``blitz_battles`` is reached: the events are
    exactly those of the battles it stands for."""
    s = d.state
    check_attack(s, command.seat, command.source, command.target)
    if command.stop_at < 1:
        raise violation("invalid_stop_at", f"stop_at {command.stop_at!r} must be at least 1")
    defender = defender_of(s, command.target)
    if s.rules.defender_chooses_dice and _chooser(s, defender, command.seat):
        raise violation(
            "blitz_unavailable", "defenders choose their dice in this game; attack battle by battle"
        )
    seat, source, target = command.seat, command.source, command.target
    armies = s.armies
    floor = command.stop_at
    if armies[(source, seat)] <= floor:  # ``troops``: the seat holds the source
        raise violation("too_few_armies", f"{source!r} already has {floor} or fewer armies")
    fight_blitz(d, seat, source, target, floor)


def fight_blitz(d: Decision, army: str, source: str, target: str, floor: int) -> None:
    """``army``'s battles with the most dice from ``source`` until ``target`` falls,
    ``source`` is down to ``floor`` or ``blitz_battles`` battles are fought."""
    s = d.state
    left = s.rules.blitz_battles or -1  # 0: no bound (games recorded before the option)
    if s.mode.overridden.isdisjoint(_BATTLE_HOOKS) and not s.shared and s.owner.get(target):
        classic_blitz(d, army, source, target, floor, left)
    else:
        blitz_battles(d, army, source, target, floor, left)


# The hooks ``battle`` asks on every battle (``after_conquest`` is ``conquer``'s).
_BATTLE_HOOKS = frozenset({"defender_dice_cap", "battle_bonus", "after_battle"})


def blitz_battles(d: Decision, army: str, source: str, target: str, floor: int, left: int) -> None:
    """``fight_blitz``'s battles one ``battle`` at a time, at most ``left`` (-1: no bound)."""
    s = d.state
    armies = s.armies
    while s.phase == ATTACK and armies[(source, army)] > floor and left != 0:
        battle(d, army, source, target, min(3, armies[(source, army)] - 1), None)
        left -= 1


def classic_blitz(d: Decision, army: str, source: str, target: str, floor: int, left: int) -> None:
    """``blitz_battles`` where no battle hook of the mode applies and nobody shares
    a territory: the same battles and events, with what every battle of a blitz
    asks alike asked once (a blitz is most of a simulated game's rules; this is
    ~4 % fewer instructions a random game). A test plays both on the same states."""
    s = d.state
    armies = s.armies
    defender = s.owner.get(target)
    assert defender is not None  # ``fight_blitz``: the target's controller defends
    attacking, defending = (source, army), (target, defender)
    one_against_one = s.rules.one_die_vs_one
    roll = d.rng.battle_dice
    emit = d.emit
    while armies[attacking] > floor and left != 0:
        in_source = armies[attacking]
        dice = 3 if in_source > 3 else in_source - 1
        cap = 1 if dice == 1 and one_against_one else 2
        attacker_roll, defender_roll = roll(dice, min(cap, armies[defending]))
        attacker_losses, defender_losses = losses(attacker_roll, defender_roll)
        emit(
            ev.BattleResolved(
                seat=army,
                source=source,
                target=target,
                defender=defender,
                attacker_dice=attacker_roll,
                defender_dice=defender_roll,
                attacker_losses=attacker_losses,
                defender_losses=defender_losses,
            )
        )
        if armies[defending] == 0:
            conquer(d, army, source, target, defender, dice - attacker_losses)
            return
        left -= 1


def defend(d: Decision, command: Defend) -> None:
    s = d.state
    check_can_act(s, command.seat)
    if s.phase != DEFEND or s.pending_battle is None:
        raise violation("no_battle_pending", "there is no attack waiting for a defence")
    if defending_seat(s) != command.seat:
        raise violation("not_defender", f"seat {command.seat!r} does not defend this battle")
    battle_ = s.pending_battle
    defending = s.armies[(battle_.target, battle_.defender)]
    most = min(defence_cap(s, battle_.target, battle_.dice), defending)
    if command.dice > most:
        raise violation("too_many_dice", f"{command.dice!r} dice; defend with 1 to {most}")
    if command.dice < 1:
        raise violation("invalid_dice", f"{command.dice!r} dice; defend with 1 to {most}")
    assert s.current is not None
    battle(d, s.current, battle_.source, battle_.target, battle_.dice, command.dice)


def resolve_pending_with_max_dice(d: Decision) -> None:
    s = d.state
    pending = s.pending_battle
    if pending is not None and s.current is not None:
        battle(d, s.current, pending.source, pending.target, pending.dice, None)


def losses(
    attacker_roll: tuple[int, ...],
    defender_roll: tuple[int, ...],
    attacker_bonus: int = 0,
    defender_bonus: int = 0,
) -> tuple[int, int]:
    """``compare_dice`` for rolls already sorted high to low (``GameRng.battle_dice``
    sorts them), counted in place: no sorting, checks nor cache on the hot path (a
    cached call cost more than the count; a test compares the two on every roll)."""
    pairs = len(attacker_roll)
    if len(defender_roll) < pairs:
        pairs = len(defender_roll)
    # Pair by pair, high to high, the first with the bonuses: written out for the
    # one or two pairs of a battle (a loop over ``range`` cost more than the rest).
    defender_losses = 0
    if pairs:
        if attacker_roll[0] + attacker_bonus > defender_roll[0] + defender_bonus:
            defender_losses = 1
        if pairs > 1 and attacker_roll[1] > defender_roll[1]:
            defender_losses += 1
        if pairs > 2:  # three dice a side: no board of ours rolls them
            for i in range(2, pairs):
                if attacker_roll[i] > defender_roll[i]:
                    defender_losses += 1
    return pairs - defender_losses, defender_losses


def battle(
    d: Decision, seat: str, source: str, target: str, dice: int, defender_dice: int | None
) -> None:
    s = d.state
    mode = s.mode
    hooked = mode.overridden
    defender = s.owner[target] or defender_of(s, target)
    if defender_dice is None:
        cap = mode.defender_dice_cap(s, target) if "defender_dice_cap" in hooked else 2
        if dice == 1 and s.rules.one_die_vs_one:
            cap = 1
        defender_dice = min(cap, s.armies[(target, defender)])
    attacker_roll, defender_roll = d.rng.battle_dice(dice, defender_dice)
    if "battle_bonus" in hooked:
        bonus = mode.battle_bonus(s, source, target)
        attacker_losses, defender_losses = losses(attacker_roll, defender_roll, *bonus)
    else:
        attacker_losses, defender_losses = losses(attacker_roll, defender_roll)
    resolved = ev.BattleResolved(
        seat=seat,
        source=source,
        target=target,
        defender=defender,
        attacker_dice=attacker_roll,
        defender_dice=defender_roll,
        attacker_losses=attacker_losses,
        defender_losses=defender_losses,
    )
    was_shared = target in s.shared  # (before the battle's losses settle control)
    d.emit(resolved)
    if "after_battle" in hooked:
        mode.after_battle(d, resolved)
    if s.armies[(target, defender)] == 0 and (not was_shared or _emptied(s, target, seat)):
        conquer(d, seat, source, target, defender, dice - attacker_losses)


def _emptied(s: State, target: str, attacker: str) -> bool:
    """No army but the attacker's is left in a shared ``target``: it is taken.
    (Where another seat's armies remain, control passes to whoever has most.)"""
    armies = s.armies
    return all(armies.get((target, p), 0) <= 0 for p in s.seats if p != attacker)


def _least_move(rule: str, dice: int, survivors: int) -> int:
    """The least a conquest moves in by ``conquest_min_move``: the dice of the last battle
    (001, 002), its surviving attackers (000), or one army (004: "flytte minst en hær")."""
    if rule == "dice":
        return dice
    return survivors if rule == "survivors" else 1


def conquer(
    d: Decision, seat: str, source: str, target: str, defender: str, survivors: int
) -> None:
    s = d.state
    most = s.armies[(source, seat)] - 1  # ``troops``: the attacker holds the source
    wanted = _least_move(s.rules.conquest_min_move, s.last_battle_dice, survivors)
    least = max(1, min(wanted, most))
    d.emit(
        ev.TerritoryConquered(
            seat=seat,
            source=source,
            target=target,
            defender=defender,
            min_move=least,
            max_move=most,
        )
    )
    if s.wiped_out(defender):
        captured = s.mode.cards_captured(s, defender)
        taker = s.mode.eliminator(s, seat)
        holding = len(s.hand(taker)) + len(captured)
        forced = holding >= s.rules.elimination_trade_threshold
        d.emit(
            ev.PlayerEliminated(
                seat=taker,
                player=defender,
                cards=captured,
                must_trade=forced,
                trade_down_to=TRADE_DOWN_TO if forced else None,
            )
        )
    if "after_conquest" in s.mode.overridden:
        s.mode.after_conquest(d, seat, target, defender)


def occupy(d: Decision, command: Occupy, seat: str | None = None) -> None:
    """Move armies into the conquered territory; ``seat`` is whose armies they are
    in the event (the commanding seat unless a mode says otherwise: Neutral's ally)."""
    s = d.state
    check_turn(s, command.seat)
    if s.phase != OCCUPY or s.occupation is None:
        raise violation("nothing_to_occupy", "no conquered territory is waiting for armies")
    occ = s.occupation
    if command.count < occ.min_move:
        raise violation(
            "occupy_too_few",
            f"move at least {occ.min_move} armies into {occ.target!r}, not {command.count}",
        )
    if command.count > occ.max_move:
        raise violation(
            "occupy_too_many", f"at most {occ.max_move} armies can move, not {command.count}"
        )
    d.emit(
        ev.TerritoryOccupied(
            seat=seat or command.seat,
            source=occ.source,
            target=occ.target,
            count=command.count,
            next_phase=phase_after_occupying(s),
        )
    )
    finish_if_decided(d)


def phase_after_occupying(s: State) -> str:
    """Back to attacking, unless an elimination left cards to trade first."""
    return REINFORCE if s.must_trade_until is not None else ATTACK
