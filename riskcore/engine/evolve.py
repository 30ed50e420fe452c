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
from riskcore.engine.registry import mode_named
from riskcore.model.options import RuleSet
from riskcore.model.state import (
    ATTACK,
    DEFEND,
    FINISHED,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_CLAIM,
    SETUP_PLACE,
    Occupation,
    PendingBattle,
    Seat,
    State,
)
from riskcore.protocol import events as ev

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
        version=1,
        order=tuple(s.id for s in seats.values() if s.kind == "player"),
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


def _next_setup_seat(state: State, after: str, *, including: bool = False) -> str | None:
    """Next player clockwise (from ``after`` itself if ``including``) still to set up.

    While territories are unclaimed every active player claims in turn,
    armies left or not (only resignations can make armies run short): all
    territories are claimed before anyone places (003: "Ga door tot alle 42
    gebieden zijn opgeëist"). After that, only players with armies left.
    """
    claiming = len(state.owner) < len(state.board.territory_names)
    i = state.order.index(after)
    for step in range(0 if including else 1, len(state.order) + 1):
        seat = state.order[(i + step) % len(state.order)]
        if state.is_active(seat) and (claiming or state.reserve.get(seat, 0) > 0):
            return seat
    return None


def _start_setup_turn(state: State, seat: str | None) -> None:
    state.current = seat
    state.setup_quota = state.mode.setup_quota(state, seat) if seat else {}


@_applies(ev.GameCreated)
def _game_created(state: State, event: ev.GameCreated) -> None:  # pragma: no cover
    raise ValueError("game_created can only be the first event")


@_applies(ev.OrderRolled)
def _order_rolled(state: State, event: ev.OrderRolled) -> None:
    state.order = tuple(event.order)
    if event.purpose == "setup":
        state.phase = SETUP_PLACE if state.owner else SETUP_CLAIM
        _start_setup_turn(state, _next_setup_seat(state, event.winner, including=True))
    else:
        state.current = event.winner


@_applies(ev.TerritoriesDealt)
def _territories_dealt(state: State, event: ev.TerritoriesDealt) -> None:
    for territory, player in event.owners.items():
        state.gain(territory, player, 1)
        state.reserve[player] -= 1
    state.phase = SETUP_PLACE
    if state.current is not None:
        _start_setup_turn(state, _next_setup_seat(state, state.current, including=True))


@_applies(ev.TerritoryClaimed)
def _territory_claimed(state: State, event: ev.TerritoryClaimed) -> None:
    state.gain(event.territory, event.seat, 1)
    state.reserve[event.seat] = max(0, state.reserve[event.seat] - 1)
    if len(state.owner) == len(state.board.territory_names):
        state.phase = SETUP_PLACE
    _start_setup_turn(state, _next_setup_seat(state, event.seat))


@_applies(ev.ArmiesPlaced)
def _armies_placed(state: State, event: ev.ArmiesPlaced) -> None:
    state.gain(event.territory, event.player, event.count)
    state.reserve[event.player] -= event.count
    if state.phase == SETUP_PLACE:
        quota = state.setup_quota
        quota[event.player] = quota.get(event.player, 0) - event.count
        if not any(quota.values()):
            _start_setup_turn(state, _next_setup_seat(state, event.seat))
    elif state.reserve[event.player] == 0 and state.must_trade_until is None:
        state.phase = ATTACK


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
    state.must_trade_until = len(state.hand(event.seat)) - 3 if event.must_trade else None
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
    state.lose(event.source, event.seat, event.attacker_losses)
    state.lose(event.target, event.defender, event.defender_losses)
    state.last_battle_dice = len(event.attacker_dice)
    state.pending_battle = None
    state.phase = ATTACK


@_applies(ev.TerritoryConquered)
def _territory_conquered(state: State, event: ev.TerritoryConquered) -> None:
    state.take_over(event.target, event.seat)
    state.occupation = Occupation(event.source, event.target, event.min_move, event.max_move)
    state.conquered = True
    state.phase = OCCUPY


@_applies(ev.TerritoryOccupied)
def _territory_occupied(state: State, event: ev.TerritoryOccupied) -> None:
    state.lose(event.source, event.seat, event.count)
    state.gain(event.target, event.seat, event.count)
    state.occupation = None
    state.phase = REINFORCE if state.must_trade_until is not None else ATTACK


@_applies(ev.PlayerEliminated)
def _player_eliminated(state: State, event: ev.PlayerEliminated) -> None:
    state.out[event.player] = "eliminated"
    captured = state.hands.get(state.hand_id(event.player), [])
    state.hands[state.hand_id(event.seat)].extend(captured)
    captured.clear()
    if event.must_trade:
        state.must_trade_until = 4


@_applies(ev.PhaseEnded)
def _phase_ended(state: State, event: ev.PhaseEnded) -> None:
    if event.phase == ATTACK:
        state.phase = FORTIFY


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
    if state.phase in (SETUP_CLAIM, SETUP_PLACE) and state.current == event.seat:
        _start_setup_turn(state, _next_setup_seat(state, event.seat))


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


assert set(APPLIERS) == set(ev.BASE_EVENT_TYPES), "every event type needs an applier"
