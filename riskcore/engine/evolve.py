"""Applying events to state: ``evolve`` and ``fold``.

Like ``chess.Board.push``, applying does not check legality: events are
facts that ``decide`` already validated, and every random outcome is inside
them, so applying never rolls, never reads a clock and never fails on a
well-formed event stream. ``apply`` mutates a state the caller owns;
``evolve`` copies first; ``fold`` copies once and applies many.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from riskcore.boards.board import load_board
from riskcore.engine.forked import forked_state
from riskcore.engine.registry import mode_named
from riskcore.model.options import RuleSet
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FINISHED,
    FORTIFY,
    OCCUPY,
    SETUP_PLACE,
    Occupation,
    PendingBattle,
    Seat,
    State,
)
from riskcore.protocol import events as ev
from riskcore.protocol import legacy
from riskcore.protocol.legacy import DERIVED

Applier = Callable[[State, Any], None]
# The appliers of the base events; a mode's table (``GameMode.appliers``)
# starts from these and adds its own.
APPLIERS: dict[type[ev.Event], Applier] = {}


def _applies(event_type: type[ev.Event]) -> Callable[[Applier], Applier]:
    def register(fn: Applier) -> Applier:
        APPLIERS[event_type] = fn
        return fn

    return register


def initial_state(created: ev.GameCreated) -> State:
    """The state right after the first event: everything it needs is in it."""
    if isinstance(created, ev.GameForked):
        return forked_state(created)
    seats = {
        s["id"]: Seat(s["id"], s["kind"], s.get("name", s["id"]), s.get("team"), s.get("side"))
        for s in created.seats
    }
    state = State(
        game_id=created.game_id,
        board=load_board(created.board),
        rules=RuleSet.from_dict(created.rules),
        mode=mode_named(created.mode),
        seats=seats,
        seed_commitment=created.seed_commitment,
        player_seeds=dict(created.player_seeds),
        record_format=created.record_format,
        version=1,
        order=tuple(s.id for s in seats.values() if s.plays),
    )
    for seat in created.seats:
        state.reserve[seat["id"]] = seat["armies"]
        state.hands.setdefault(state.hand_id(seat["id"]), [])
    state.deck = [card.id for card in state.board.cards]
    return state


def apply(state: State, event: ev.Event) -> None:
    """Apply one event in place (the caller owns ``state``)."""
    state.mode.appliers[type(event)](state, event)
    state.version += 1


def evolve(state: State, event: ev.Event) -> State:
    """A new state with ``event`` applied; ``state`` is left as it was."""
    new = state.copy()
    apply(new, event)
    return new


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    """Rebuild state from events, optionally continuing from ``state``."""
    iterator = iter(events)
    if state is None:
        first = next(iterator)
        if not isinstance(first, ev.GameCreated):
            raise ValueError(f"a game starts with game_created, not {first.TYPE!r}")
        state = initial_state(first)
    else:
        state = state.copy()
    appliers = state.mode.appliers
    for event in iterator:
        appliers[type(event)](state, event)
        state.version += 1
    return state


def follow(state: State, next_phase: str | None, setup_turn: Any) -> None:
    """Apply the flow's facts of an event: the phase that follows, the setup turn
    that begins. (``Decision.amend`` applies them the same way.)"""
    if next_phase is not None:
        state.phase = next_phase
    if setup_turn is not None:
        state.current = setup_turn["seat"]
        state.setup_quota = dict(setup_turn["quota"])


def _follow_event(state: State, event: Any, next_phase: Any, setup_turn: Any) -> None:
    """``follow`` an event's facts; for a version 1 event, as its engine derived them."""
    if next_phase == DERIVED or setup_turn == DERIVED:
        next_phase, setup_turn = legacy.flow_of(state, event)
    follow(state, next_phase, setup_turn)


@_applies(ev.GameCreated)
def _game_created(state: State, event: ev.GameCreated) -> None:  # pragma: no cover
    raise ValueError("game_created can only be the first event")


@_applies(ev.GameForked)
def _game_forked(state: State, event: ev.GameForked) -> None:  # pragma: no cover
    raise ValueError("game_forked can only be the first event")


@_applies(ev.OrderRolled)
def _order_rolled(state: State, event: ev.OrderRolled) -> None:
    state.order = tuple(event.order)
    if event.purpose != "setup":
        state.current = event.winner
    _follow_event(state, event, event.next_phase, event.setup_turn)


@_applies(ev.TerritoriesDealt)
def _territories_dealt(state: State, event: ev.TerritoriesDealt) -> None:
    for territory, player in event.owners.items():
        state.gain(territory, player, 1)
        state.reserve[player] -= 1
    _follow_event(state, event, event.next_phase, event.setup_turn)


@_applies(ev.TerritoryClaimed)
def _territory_claimed(state: State, event: ev.TerritoryClaimed) -> None:
    state.gain(event.territory, event.seat, 1)
    state.reserve[event.seat] = max(0, state.reserve[event.seat] - 1)
    _follow_event(state, event, event.next_phase, event.setup_turn)


@_applies(ev.ArmiesPlaced)
def _armies_placed(state: State, event: ev.ArmiesPlaced) -> None:
    state.gain(event.territory, event.player, event.count)
    state.reserve[event.player] -= event.count
    if state.phase == SETUP_PLACE:
        quota = state.setup_quota
        quota[event.player] = quota.get(event.player, 0) - event.count
    if event.next_phase is not None or event.setup_turn is not None:  # seldom: the turn moves on
        _follow_event(state, event, event.next_phase, event.setup_turn)


@_applies(ev.DeckShuffled)
def _deck_shuffled(state: State, event: ev.DeckShuffled) -> None:
    state.deck = list(event.order)
    if event.reshuffle:
        state.discard = []


@_applies(ev.TurnStarted)
def _turn_started(state: State, event: ev.TurnStarted) -> None:
    state.phase = event.phase
    state.current = event.seat
    state.turn = event.turn
    state.reserve[event.seat] = event.reinforcements
    trade_down_to = event.trade_down_to
    if isinstance(trade_down_to, str):  # DERIVED: a version 1 event
        trade_down_to = legacy.trade_down_to(state, event)
    state.must_trade_until = trade_down_to
    state.bonus_taken = False
    state.conquered = False
    state.fortified = False
    state.setup_quota = {}


@_applies(ev.CardsTraded)
def _cards_traded(state: State, event: ev.CardsTraded) -> None:
    hand = state.hands[state.hand_id(event.seat)]
    for card in event.cards:
        hand.remove(card)
    state.discard.extend(event.cards)
    state.sets_traded += 1
    state.reserve[event.seat] = state.reserve.get(event.seat, 0) + event.armies
    if event.bonus_territory is not None and event.bonus_armies:
        state.gain(event.bonus_territory, event.seat, event.bonus_armies)
        state.bonus_taken = True
    if state.must_trade_until is not None and len(hand) <= state.must_trade_until:
        state.must_trade_until = None


@_applies(ev.AttackDeclared)
def _attack_declared(state: State, event: ev.AttackDeclared) -> None:
    state.pending_battle = PendingBattle(event.source, event.target, event.dice, event.defender)
    state.phase = DEFEND


@_applies(ev.BattleResolved)
def _battle_resolved(state: State, event: ev.BattleResolved) -> None:
    # ``State.lose`` twice, written out: every battle comes here. The attacker
    # holds the source and the defender the target, so only a shared
    # territory can change hands by it.
    armies = state.armies
    armies[(event.source, event.seat)] -= event.attacker_losses
    armies[(event.target, event.defender)] -= event.defender_losses
    shared = state.shared
    if shared:
        for territory in (event.source, event.target):
            if territory in shared:
                state.settle(territory)
    state.last_battle_dice = len(event.attacker_dice)
    state.pending_battle = None
    state.phase = ATTACK


@_applies(ev.TerritoryConquered)
def _territory_conquered(state: State, event: ev.TerritoryConquered) -> None:
    state.take_over(event.target, event.seat, event.defender)
    state.occupation = Occupation(event.source, event.target, event.min_move, event.max_move)
    state.conquered = True
    state.phase = OCCUPY


@_applies(ev.TerritoryOccupied)
def _territory_occupied(state: State, event: ev.TerritoryOccupied) -> None:
    state.lose(event.source, event.seat, event.count)
    state.gain(event.target, event.seat, event.count)
    state.occupation = None
    _follow_event(state, event, event.next_phase, None)


@_applies(ev.PlayerEliminated)
def _player_eliminated(state: State, event: ev.PlayerEliminated) -> None:
    state.out[event.player] = "eliminated"
    # The cards the event names (``GameMode.cards_captured``): in classic, the
    # whole hand; a team's hand stays with the team.
    lost = state.hands.get(state.hand_id(event.player), [])
    state.hands[state.hand_id(event.seat)].extend(event.cards)
    for card in event.cards:
        lost.remove(card)
    if event.trade_down_to is not None:
        state.must_trade_until = event.trade_down_to


@_applies(ev.PhaseEnded)
def _phase_ended(state: State, event: ev.PhaseEnded) -> None:
    _follow_event(state, event, event.next_phase, None)


@_applies(ev.Fortified)
def _fortified(state: State, event: ev.Fortified) -> None:
    state.lose(event.source, event.seat, event.count)
    state.gain(event.target, event.seat, event.count)
    state.phase = FORTIFY
    state.fortified = True


@_applies(ev.CardDrawn)
def _card_drawn(state: State, event: ev.CardDrawn) -> None:
    state.deck.remove(event.card)
    state.hands[state.hand_id(event.seat)].append(event.card)


@_applies(ev.TurnEnded)
def _turn_ended(state: State, event: ev.TurnEnded) -> None:
    state.conquered = False
    state.pending_battle = None
    state.occupation = None


@_applies(ev.PlayerResigned)
def _player_resigned(state: State, event: ev.PlayerResigned) -> None:
    state.out[event.seat] = "resigned"
    hand = state.hands.get(state.hand_id(event.seat), [])
    state.discard.extend(event.discarded)
    for card in event.discarded:
        hand.remove(card)
    state.reserve[event.seat] = 0
    _follow_event(state, event, None, event.setup_turn)


@_applies(ev.GameFinished)
def _game_finished(state: State, event: ev.GameFinished) -> None:
    state.phase = FINISHED
    state.winner = event.winner
    state.winners = event.winners
    state.finish_reason = event.reason
    state.revealed_seed = event.seed
    state.current = None
    state.occupation = None
    state.pending_battle = None


# ``State.mode_data`` key: the seats that always roll the most dice when they defend
# (``set_defence``, ``riskcore.rules.battle``), each mapped to True.
ALWAYS_MOST = "always_most"


@_applies(ev.DefenceSet)
def _defence_set(state: State, event: ev.DefenceSet) -> None:
    chosen = state.mode_data.setdefault(ALWAYS_MOST, {})
    if event.always_most:
        chosen[event.seat] = True
    else:
        chosen.pop(event.seat, None)


assert set(APPLIERS) == set(ev.BASE_EVENT_TYPES), "every event type needs an applier"
