"""Power cards: who may play which card when, and what each effect does."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from riskcore.engine.decision import Decision, check_can_act, check_owns, check_turn, violation
from riskcore.model.state import FORTIFY, State
from riskcore.modes.adventure.deck import (
    BEFORE_ATTACK_STRONGHOLD,
    FELLOWSHIP_ROLLED,
    FELLOWSHIP_UNROLLED,
    POWER,
    POWER_MOMENTS,
    WINDOWS,
    AdventureCard,
    deck_of,
    plays,
)
from riskcore.modes.adventure.protocol import AdventurePlayed, PlayAdventure
from riskcore.modes.adventure.queries import (
    blocked_borders,
    discard_due,
    extra_manoeuvres,
    hand,
    window,
    window_seat,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import battle, fortify


def _held(s: State, seat: str, number: int) -> AdventureCard:
    if s.phase in WINDOWS:
        check_can_act(s, seat)
        if window_seat(s) != seat:
            raise violation("not_your_turn", f"the Fellowship's window waits for {window_seat(s)}")
    else:
        check_turn(s, seat)
    if not plays(s) or number not in hand(s, seat):
        raise violation("adventure_not_held", f"you hold no adventure card {number!r}")
    if discard_due(s, seat):
        raise violation("adventure_discard_due", "you hold four adventure cards: discard one first")
    return deck_of(s).cards[number]


def drawn_closes(state: State, seat: str) -> bool:
    """``seat`` drew its adventure card this turn and plays no more cards in it
    (``adventure_draw_closes``; 002_84c66041fccdfcee.txt: «Efter att du har dragit ett
    äventyrskort kan inga fler kort spelas under den spelturen, förutom händelsekort»).
    The drawer is the player whose turn it is; the other players' cards stay open."""
    return (
        state.rules.adventure_draw_closes
        and seat == state.current
        and state.mode_data.get("adventure_drawn_turn") == state.turn
    )


def play(d: Decision, command: PlayAdventure) -> None:
    s = d.state
    seat = command.seat
    card = _held(s, seat, command.adventure)
    if card.kind != POWER:
        raise violation(
            "not_a_power_card", f"{card.name!r} is a {card.kind} card, not a power card"
        )
    if drawn_closes(s, seat):
        raise violation(
            "adventure_drawn", "you drew an adventure card this turn: no more cards but events"
        )
    if s.phase not in POWER_MOMENTS[card.moment] or not _window_fits(s, card):
        raise violation(
            "adventure_wrong_moment",
            f"{card.name!r} is played {card.moment.replace('_', ' ')}, not in {s.phase!r}",
        )
    facts = _POWER[card.primitive](s, seat, card, command)
    d.emit(
        AdventurePlayed(
            seat=seat,
            adventure=command.adventure,
            source=command.source,
            target=command.target,
            facts=facts,
        )
    )


def _window_fits(s: State, card: AdventureCard) -> bool:
    """A Fellowship card fits the window's try: after a roll, without one, or in a
    named territory only (A Balrog! in Moria)."""
    open_window = window(s)
    if open_window is None:
        return True
    rolled = open_window["roll"] is not None
    if card.moment == FELLOWSHIP_ROLLED and not rolled:
        return False
    if card.moment == FELLOWSHIP_UNROLLED and rolled:
        return False
    where = card.params.get("in") if card.primitive == "fellowship_stays" else None
    step = s.fellowship or 0
    return where is None or s.board.path[step].territory == where


def _attack_named(s: State, seat: str, card: AdventureCard, command: PlayAdventure) -> str:
    """The attack a before-attack card names must be one the player could make now."""
    if command.source is None or command.target is None:
        raise violation("adventure_needs_attack", f"{card.name!r} names an attack: source, target")
    battle.check_attack(s, seat, command.source, command.target)
    if card.moment == BEFORE_ATTACK_STRONGHOLD and command.target not in s.board.strongholds:
        raise violation(
            "adventure_not_a_stronghold", f"{card.name!r} is played on a stronghold only"
        )
    return command.target


def _add_armies(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    _attack_named(s, seat, card, c)
    return {"changes": [[c.source, seat, card.params["count"]]]}


def _take_defenders(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    target = _attack_named(s, seat, card, c)
    defender = s.owner.get(target)
    taken = min(card.params["count"], s.troops(target) - 1)
    if not taken or defender is None:
        return {"changes": []}
    return {"changes": [[target, defender, -taken], [c.source, seat, taken]]}


def _stronghold_off(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"stronghold_off": _attack_named(s, seat, card, c)}


def _extra_manoeuvres(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"extra_manoeuvres": card.params["count"] + extra_manoeuvres(s)}


def _move_own_leader(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    own = s.leaders.get(seat, ())
    if c.source is None or c.source not in own:
        raise violation("no_leader_there", f"no leader of yours is in {c.source!r}")
    if c.target is None:
        raise violation("adventure_needs_target", f"{card.name!r} names where the leader goes")
    check_owns(s, seat, c.target)
    if c.target in own:
        raise violation(
            "leader_already_there", f"{c.target!r} holds a leader of yours; two never share"
        )
    return {"leader": [c.source, c.target]}


def _hunt(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    step = s.fellowship or 0
    here = s.board.path[step].territory
    if s.owner.get(here) == seat:
        return {"changes": [[here, seat, card.params["armies"]]]}
    return {"fellowship_step": step + 1}


def _stays(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"stays": True}}


def _must_roll(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"must_roll": True}}


def _roll_add(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    return {"window": {"add": _window_add(s) + card.params["add"]}}


def _window_add(s: State) -> int:
    """What cards played in this window added to the roll so far."""
    return int(s.mode_data["window"]["effects"].get("add", 0))


def roll_choices(card: AdventureCard) -> tuple[int, int]:
    """The shifts a card that lets its player choose allows: +by or -by."""
    by: int = card.params["by"]
    return by, -by


def _roll_choice(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """Faramir: the player adds or subtracts the card's number (``shift``)."""
    if c.shift not in roll_choices(card):
        choices = " or ".join(f"{v:+d}" for v in roll_choices(card))
        raise violation(
            "adventure_needs_shift", f"{card.name!r} changes the roll by {choices} (shift)"
        )
    return {"window": {"add": _window_add(s) + c.shift}}


def _block_border(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """You shall not pass: the border named by its two ends, of the card's kind."""
    kind = card.params["kind"]
    if c.source is None or c.target is None or s.board.border_kind(c.source, c.target) != kind:
        raise violation(
            "adventure_needs_border",
            f"{card.name!r} names a border of kind {kind!r} by its two ends (source, target)",
        )
    if frozenset((c.source, c.target)) in blocked_borders(s):
        raise violation("border_already_blocked", f"{c.source!r} - {c.target!r} is blocked already")
    return {"blocked": sorted((c.source, c.target))}


def _destroy_attackers(
    s: State, seat: str, card: AdventureCard, c: PlayAdventure
) -> dict[str, Any]:
    """Violent storms: an attack over a border of the card's kind (by sea) is called off
    and the armies it sends into the battle are destroyed."""
    attacked = s.mode_data["defence_window"]
    source, target = attacked["source"], attacked["target"]
    kind = card.params["border"]
    if s.board.border_kind(source, target) != kind:
        raise violation(
            "adventure_not_by_sea",
            f"{card.name!r} answers an attack over a {kind} border, not {source!r} - {target!r}",
        )
    lost = attacking_armies(s, attacked["command"])
    return {"changes": [[source, attacked["seat"], -lost]], "defence": True, "called_off": True}


def attacking_armies(s: State, body: Mapping[str, Any]) -> int:
    """The armies an attack sends into its (first) battle: an attack's dice (at most
    the source allows), a blitz's most dice. Ours: the book attacks "med högst tre
    bataljoner vid varje tillfälle", so the battle's armies are its dice."""
    most = min(3, s.troops(body["source"]) - 1)
    dice = body.get("dice") if body.get("type") == "attack" else None
    return most if dice is None else min(int(dice), most)


def _reinforce_attacked(
    s: State, seat: str, card: AdventureCard, c: PlayAdventure
) -> dict[str, Any]:
    target = s.mode_data["defence_window"]["target"]
    return {"changes": [[target, seat, card.params["armies"]]], "defence": True}


def _withdraw(s: State, seat: str, card: AdventureCard, c: PlayAdventure) -> dict[str, Any]:
    """All but 1 army of the attacked territory go to a bordering one of the defender's."""
    attacked = s.mode_data["defence_window"]["target"]
    if c.target is None or c.target not in _withdrawals(s, seat, attacked):
        raise violation(
            "adventure_needs_target",
            f"{card.name!r} names a territory of yours bordering {attacked!r} (target)",
        )
    moving = s.troops(attacked) - 1
    changes = [[attacked, seat, -moving], [c.target, seat, moving]] if moving else []
    return {"changes": changes, "defence": True}


def _withdrawals(s: State, seat: str, attacked: str) -> list[str]:
    return [t for t in s.board.neighbours[attacked] if s.owner.get(t) == seat]


_POWER: dict[str, Callable[[State, str, AdventureCard, PlayAdventure], dict[str, Any]]] = {
    "fellowship_stays": _stays,
    "fellowship_must_roll": _must_roll,
    "fellowship_roll_add": _roll_add,
    "reinforce_attacked": _reinforce_attacked,
    "withdraw": _withdraw,
    "add_armies": _add_armies,
    "take_defenders": _take_defenders,
    "stronghold_off": _stronghold_off,
    "extra_manoeuvres": _extra_manoeuvres,
    "move_own_leader": _move_own_leader,
    "hunt_fellowship": _hunt,
    "fellowship_roll_choice": _roll_choice,
    "block_border": _block_border,
    "destroy_attackers": _destroy_attackers,
}


def extra_fortify(d: Decision, command: cmd.Fortify) -> bool:
    """A manoeuvre more (Move by night): True if this one was it."""
    s = d.state
    if not (s.phase == FORTIFY and s.fortified and s.current == command.seat):
        return False
    if extra_manoeuvres(s) < 1:
        return False
    check_owns(s, command.seat, command.source)
    check_owns(s, command.seat, command.target)
    if command.target not in s.mode.fortify_reach(s, command.seat, command.source):
        raise fortify.unreachable(s, command.source, command.target)
    most = s.troops(command.source) - 1
    if not 1 <= command.count <= most:
        raise violation("invalid_count", f"move 1 to {most} armies, not {command.count!r}")
    d.emit(
        ev.Fortified(
            seat=command.seat, source=command.source, target=command.target, count=command.count
        )
    )
    return True
