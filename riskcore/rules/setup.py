"""Setting a game up (docs/rules.md, "Setup" and "The two-player game").

``start_game`` makes the opening events: the game itself, the die roll for
the order (ties re-rolled) and, when territories are dealt, the deal. Then
players claim territories one at a time and place armies one at a time (or,
in the two-player game, 3 of their own and 1 for each neutral), until every
army is on the board; the deck is shuffled and the first turn starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from riskcore.boards.board import WILD
from riskcore.engine.decision import Decision, check_territory, check_turn, violation
from riskcore.errors import RuleOptionError
from riskcore.model.state import SETUP_CLAIM, SETUP_PHASES, SETUP_PLACE, State
from riskcore.protocol import events as ev
from riskcore.protocol.commands import ClaimTerritory, PlaceArmies
from riskcore.rules.flow import start_turn


def check_enough_to_claim(s: State) -> None:
    """Claiming needs at least one army per territory among the players."""
    territories = len(s.board.territory_names)
    if sum(s.reserve[p] for p in s.order) < territories:
        raise RuleOptionError(f"starting armies too few to claim {territories} territories")


def roll_for_order(d: Decision, purpose: str, contenders: Sequence[str]) -> None:
    """Everyone rolls one die; the highest starts, ties among the highest re-roll."""
    rounds: list[dict[str, int]] = []
    left = list(contenders)
    while len(left) > 1:
        rolls = {seat: d.rng.die() for seat in left}
        rounds.append(rolls)
        best = max(rolls.values())
        left = [seat for seat in left if rolls[seat] == best]
    winner = left[0]
    s = d.state
    seats = list(s.order)
    start = seats.index(winner)
    order = tuple(seats[start:] + seats[:start])
    if purpose != "setup":
        d.emit(ev.OrderRolled(purpose=purpose, rounds=tuple(rounds), winner=winner, order=order))
        return
    phase = SETUP_PLACE if s.owner else SETUP_CLAIM
    d.emit(
        ev.OrderRolled(
            purpose=purpose, rounds=tuple(rounds), winner=winner, order=order, next_phase=phase
        )
    )
    d.amend(setup_turn=next_setup_turn(s, winner, including=True))


def deal(d: Decision, receivers: Sequence[str], counts: Sequence[int] | None) -> None:
    """Deal the territory cards (wild cards removed first), one army on each.

    Round-robin from the first receiver, or ``counts`` cards to each in turn.
    """
    cards = [c for c in d.state.board.cards if c.symbol != WILD]
    d.rng.shuffle(cards)
    owners: dict[str, str] = {}
    if counts is None:
        for i, card in enumerate(cards):
            assert card.territory is not None
            owners[card.territory] = receivers[i % len(receivers)]
    else:
        position = 0
        for receiver, count in zip(receivers, counts, strict=True):
            for card in cards[position : position + count]:
                assert card.territory is not None
                owners[card.territory] = receiver
            position += count
    d.emit(ev.TerritoriesDealt(owners=owners, next_phase=SETUP_PLACE))
    if d.state.current is not None:
        d.amend(setup_turn=next_setup_turn(d.state, d.state.current, including=True))


def claim(d: Decision, command: ClaimTerritory) -> None:
    s = d.state
    check_turn(s, command.seat)
    if s.phase == SETUP_PLACE:
        raise violation("all_claimed", "every territory is claimed; place armies instead")
    check_phase_setup(s, SETUP_CLAIM)
    check_territory(s, command.territory)
    if s.is_claimed(command.territory):
        raise violation(
            "territory_taken",
            f"{command.territory!r} is already held by {s.controller(command.territory)!r}",
        )
    last = len(s.owner) + 1 == len(s.board.territory_names)
    d.emit(
        ev.TerritoryClaimed(
            seat=command.seat,
            territory=command.territory,
            next_phase=SETUP_PLACE if last else None,
        )
    )
    d.amend(setup_turn=next_setup_turn(s, command.seat))
    begin_play_if_placed(d)


def place_in_setup(d: Decision, command: PlaceArmies) -> None:
    s = d.state
    if s.phase == SETUP_CLAIM:
        raise violation("must_claim", "claim an unclaimed territory first")
    check_territory(s, command.territory)
    player = s.mode.setup_player(s, command.seat, command.territory)
    if player is None:
        holder = s.controller(command.territory)
        raise violation(
            "not_your_territory",
            f"{command.territory!r} is held by {holder!r}, not {command.seat!r}",
        )
    allowed = s.setup_quota.get(player, 0)
    if allowed <= 0:
        raise violation(
            "quota_used", f"no more armies for {player!r} this round; place for another"
        )
    if not 1 <= command.count <= allowed:
        raise violation("invalid_count", f"count {command.count!r} must be 1..{allowed}")
    d.emit(
        ev.ArmiesPlaced(
            seat=command.seat, player=player, territory=command.territory, count=command.count
        )
    )
    if not any(s.setup_quota.values()):
        d.amend(setup_turn=next_setup_turn(s, command.seat))
    begin_play_if_placed(d)


def next_setup_turn(s: State, after: str, *, including: bool = False) -> dict[str, Any]:
    """The setup turn that begins after ``after``'s: the next player clockwise
    (``after`` itself if ``including``) still to set up, and its quota
    (``GameMode.setup_quota``); seat None once everyone has set up.

    While territories are unclaimed every active player claims in turn,
    armies left or not (only resignations can make armies run short): all
    territories are claimed before anyone places (003: "Ga door tot alle 42
    gebieden zijn opgeëist"). After that, only players with armies left.
    """
    claiming = len(s.owner) < len(s.board.territory_names)
    i = s.order.index(after)
    for step in range(0 if including else 1, len(s.order) + 1):
        seat = s.order[(i + step) % len(s.order)]
        if s.is_active(seat) and (claiming or s.reserve.get(seat, 0) > 0):
            return {"seat": seat, "quota": s.mode.setup_quota(s, seat)}
    return {"seat": None, "quota": {}}


def check_phase_setup(s: State, phase: str) -> None:
    if s.phase != phase:
        raise violation("wrong_phase", f"this needs the {phase} phase; the game is in {s.phase!r}")


def begin_play_if_placed(d: Decision) -> None:
    """Once every army is placed, the mode's next step (``GameMode.after_setup``)."""
    s = d.state
    if s.phase in SETUP_PHASES and s.current is None:
        s.mode.after_setup(d)


def start_play(d: Decision) -> None:
    """Shuffle the deck and start the first turn (after a re-roll, if the mode rolls)."""
    s = d.state
    order = [card.id for card in s.board.cards]
    d.rng.shuffle(order)
    d.emit(ev.DeckShuffled(order=tuple(order)))
    if s.mode.rolls_for_first_turn(s.rules):
        roll_for_order(d, "first_turn", s.active_players())
        first = s.current
    else:
        first = next(p for p in s.order if s.is_active(p))
    assert first is not None
    start_turn(d, first)
