"""The deal, the turn's draw, event cards played as drawn, the fourth card discarded."""

from __future__ import annotations

from typing import Any

from riskcore.engine.decision import Decision, check_turn, violation
from riskcore.errors import RuleOptionError
from riskcore.model.state import FINISHED, FORTIFY, State
from riskcore.modes.adventure.deck import DEALT, EVENT, HAND_LIMIT, AdventureCard, deck_of, plays
from riskcore.modes.adventure.protocol import (
    AdventureCardDrawn,
    AdventureDeckShuffled,
    AdventureDiscarded,
    AdventurePlayed,
    AdventureUprisingKept,
    AdventureUprisingRevealed,
    DiscardAdventure,
)
from riskcore.modes.adventure.queries import discard_due, hand, uprising_cards
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev


def deal(d: Decision) -> None:
    """002: "Ta bort händelsekorten ... ge 3 äventyrskort ... till varje spelare. Lägg
    tillbaka händelsekorten i korthögen, blanda": three each, the events put back after."""
    s = d.state
    if not plays(s):
        return
    deck = deck_of(s)
    pile = [n for n in deck.numbers() if deck.cards[n].kind != EVENT]
    players = s.active_players()
    if len(pile) < DEALT * len(players):
        raise RuleOptionError(f"adventure deck {deck.name!r} has too few cards to deal")
    d.rng.shuffle(pile)
    d.emit(AdventureDeckShuffled(adventure_order=tuple(pile), purpose="deal"))
    for _ in range(DEALT):
        for seat in players:
            d.emit(AdventureCardDrawn(seat=seat, adventure=s.adventure_deck[0], reason="deal"))
    rest = list(s.adventure_deck) + deck.numbers(EVENT)
    d.rng.shuffle(rest)
    d.emit(AdventureDeckShuffled(adventure_order=tuple(rest), purpose="pile"))


def shuffle_for_fork(d: Decision) -> None:
    """A fork's adventure pile (in card order in its position) drawn again from the
    fork's own seed, as its draw pile is (issue 53): the parent's record gives the
    pile's order away, and it is still secret in the fork."""
    s = d.state
    if not plays(s):
        return
    order = sorted(s.adventure_deck)
    d.rng.shuffle(order)
    d.emit(AdventureDeckShuffled(adventure_order=tuple(order), purpose="fork"))


def draw(d: Decision, seat: str) -> None:
    """The turn's adventure card: an event is played at once and another drawn, until
    a card to keep comes (or the pile is empty: it is not refilled)."""
    s = d.state
    cards = deck_of(s).cards
    while s.adventure_deck:
        number = s.adventure_deck[0]
        d.emit(AdventureCardDrawn(seat=seat, adventure=number, reason="draw"))
        if cards[number].kind != EVENT:
            return
        card = cards[number]
        d.emit(AdventurePlayed(seat=seat, adventure=number, facts=_event_facts(s, seat, card)))
        if card.primitive == "uprising":
            _keep_uprising(d, seat, number)


def _keep_uprising(d: Decision, seat: str, number: int) -> None:
    """Local uprising: the first territory card from the top naming a territory is
    kept aside, secret (an empty pile is refilled from the discards first, as a draw
    is; a pile of wild cards only gives none); if ``seat`` holds that territory
    already, it rises at once."""
    s = d.state
    if not s.deck and s.discard:
        order = list(s.discard)
        d.rng.shuffle(order)
        d.emit(ev.DeckShuffled(order=tuple(order), reshuffle=True))
    card = next((c for c in s.deck if _names_territory(s, c)), None)
    if card is None:
        return
    d.emit(AdventureUprisingKept(seat=seat, adventure=number, card=card))
    uprisings_rise(d, seat)


def _names_territory(s: State, card: int) -> bool:
    return s.board.card(card).territory is not None


def uprisings_rise(d: Decision, seat: str) -> None:
    """Each card ``seat``'s Local uprisings keep whose territory ``seat`` holds now is
    shown, and its armies join there (trilogy: "when you control that territory")."""
    s = d.state
    kept = s.mode_data.get("uprisings", {}).get(seat, [])
    if not kept or s.phase == FINISHED:
        return
    cards = deck_of(s).cards
    for card, number in zip(list(uprising_cards(s, seat)), list(kept), strict=True):
        territory = s.board.card(card).territory
        if territory is not None and s.owner.get(territory) == seat:
            armies = cards[number].params["armies"]
            d.emit(
                AdventureUprisingRevealed(
                    seat=seat, adventure=number, card=card, territory=territory, armies=armies
                )
            )


def _event_facts(s: State, seat: str, card: AdventureCard) -> dict[str, Any]:
    params = card.params
    if card.primitive == "second_leader":
        room = len(s.leaders.get(seat, ())) < 2 and len(s.territories_of(seat)) > 1
        return {"second_leader": room}
    if card.primitive == "uprising":
        return {"uprising": True}
    if card.primitive == "side_holds":
        territory = params["territory"]
        holder = s.owner.get(territory)
        if holder is None or not s.seats[holder].plays:
            return {"changes": []}
        if s.seats[holder].side == params["side"]:
            return {"changes": [[territory, holder, params["gain"]]]}
        loss = min(params["else_lose"], s.troops(territory) - 1)
        return {"changes": [[territory, holder, -loss]] if loss else []}
    # top_territory_cards
    shown = s.deck[: params["count"]]
    by_id = {c.id: c for c in s.board.cards}
    places = [t for c in shown if (t := by_id[c].territory) is not None]
    facts: dict[str, Any] = {"revealed_cards": list(shown), "changes": []}
    each = params["each"]
    if each == "storm":
        facts["storm"] = places
        return facts
    for territory in places:
        holder = s.owner.get(territory)
        if holder is None:
            continue
        if each == "add_3":
            facts["changes"].append([territory, holder, 3])
        else:  # halve, 1 always staying
            loss = min(s.troops(territory) // 2, s.troops(territory) - 1)
            if loss:
                facts["changes"].append([territory, holder, -loss])
    return facts


def discard(d: Decision, command: DiscardAdventure) -> None:
    """002: "Du kan ta upp ett fjärde, men då måste du kasta ett": the discard, then the
    turn ends as the player asked when the card came."""
    s = d.state
    seat = command.seat
    check_turn(s, seat)
    if command.adventure not in hand(s, seat):
        raise violation("adventure_not_held", f"you hold no adventure card {command.adventure!r}")
    if not discard_due(s, seat):
        raise violation(
            "adventure_hand_not_full", f"you hold {HAND_LIMIT} adventure cards or fewer; keep them"
        )
    d.emit(AdventureDiscarded(seat=seat, adventure=command.adventure))
    if s.phase == FORTIFY:  # the mode's end of the turn (the Fellowship's window)
        s.mode.handlers[cmd.EndPhase](d, cmd.EndPhase(seat=seat))
