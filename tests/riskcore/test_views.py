"""What each viewer may see (docs/engine.md, "The state": each field's secrecy).

The rule books: a hand is one's own (000_ed9208fe5525be2d.txt: "Titta på
uppdragskorten, men se till så att ingen annan ser vad det står"), the draw
pile is face down (003_281a902b564cb498.txt: "plaats de kaarten met de gezicht
naar beneden"), and the number of cards anyone holds matters to everyone (the
forced trade at 5).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from riskcore.model.state import State
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.views.seatview import SeatView
from riskcore.views.view import redact, view
from tests.riskcore.helpers import (
    Game,
    ScriptedRng,
    cards_with,
    new,
    play,
    position,
    set_up,
    split,
)

INFANTRY = cards_with("infantry")
CAVALRY = cards_with("cavalry")
SECRET_TYPES = (ev.DeckShuffled, ev.CardDrawn, ev.PlayerEliminated)


def seat_entry(v: dict[str, Any], seat: str) -> dict[str, Any]:
    return next(s for s in v["seats"] if s["id"] == seat)


@pytest.fixture
def holding() -> Game:
    """p1 holds two cards, p2 three, p3 none; p1 to play."""
    owners = split({"p1": ["brazil"], "p3": ["japan"]}, "p2")
    hands = {"p1": INFANTRY[:2], "p2": CAVALRY[:3]}
    return position(owners, {"brazil": 5}, hands=hands)


def test_a_seat_sees_its_own_cards_and_only_counts_of_the_others(holding: Game) -> None:
    """000_ed9208fe5525be2d.txt: "Titta på uppdragskorten, men se till så att ingen annan ser
    vad det står" (kept secret); RISK cards likewise, their number public."""
    mine = view(holding.state, "p1")
    assert seat_entry(mine, "p1")["cards"] == INFANTRY[:2]
    assert seat_entry(mine, "p2")["cards"] is None
    assert seat_entry(mine, "p2")["card_count"] == 3
    assert seat_entry(mine, "p3")["card_count"] == 0
    theirs = view(holding.state, "p2")
    assert seat_entry(theirs, "p2")["cards"] == CAVALRY[:3]
    assert seat_entry(theirs, "p1")["cards"] is None


def test_spectators_see_no_cards(holding: Game) -> None:
    """Spectators see public information only (card counts, not cards)."""
    public = view(holding.state, None)
    assert all(s["cards"] is None for s in public["seats"])
    assert [s["card_count"] for s in public["seats"]] == [2, 3, 0]


def test_the_deck_order_and_the_seed_are_hidden_until_the_end(holding: Game) -> None:
    """003_281a902b564cb498.txt: "plaats de kaarten met de gezicht naar beneden"."""
    for viewer in ("p1", "p2", None):
        v = view(holding.state, viewer)
        assert v["deck"] is None and v["seed"] is None
        assert v["deck_size"] == 44 - 5
        assert v["seed_commitment"] == holding.state.seed_commitment


def test_everything_is_visible_after_the_game_ends() -> None:
    """The deck order and the server seed are seen by nobody until the game ends; after
    it, everything is public."""
    game = new(3)
    play(game, random.Random(2))
    for viewer in ("p1", None):
        v = view(game.state, viewer)
        assert v["deck"] == game.state.deck
        assert v["seed"] == game.seed.hex()
        for seat in v["seats"]:
            assert seat["cards"] == game.state.hand(seat["id"])
    for event in game.events:
        for viewer in ("p2", None):
            assert redact(event, viewer, reveal=True) == event


def hide_differently(state: State, seat: str) -> State:
    """The same public position with ``seat``'s hidden cards swapped for deck cards and the
    deck reordered: nothing ``seat`` may not see is the same."""
    other = state.copy()
    hand = other.hands[seat]
    swap = min(len(hand), len(other.deck))
    other.hands[seat] = other.deck[:swap] + hand[swap:]
    other.deck = list(reversed(hand[:swap] + other.deck[swap:]))
    return other


def test_views_do_not_depend_on_what_the_viewer_cannot_see(holding: Game) -> None:
    """Changing p2's hand and the deck order changes nothing p1 or a spectator sees."""
    changed = hide_differently(holding.state, "p2")
    assert changed.hands["p2"] != holding.state.hands["p2"]
    for viewer in ("p1", "p3", None):
        assert view(changed, viewer) == view(holding.state, viewer)
    assert view(changed, "p2") != view(holding.state, "p2")


def test_seat_view_answers_what_the_view_shows(holding: Game) -> None:
    """``SeatView`` "exposes nothing a seat could not read from ``riskcore.views.view.view``"."""
    seat_view = SeatView(holding.state, "p1")
    v = view(holding.state, "p1")
    assert seat_view.as_dict() == v
    assert seat_view.my_hand() == seat_entry(v, "p1")["cards"]
    assert seat_view.card_count("p2") == seat_entry(v, "p2")["card_count"]
    assert seat_view.deck_size() == v["deck_size"]
    assert seat_view.reserve() == v["reinforcements"]
    for territory, info in v["territories"].items():
        assert (seat_view.owner(territory), seat_view.troops(territory)) == (
            info["owner"],
            info["armies"],
        )


# Redacted events -------------------------------------------------------------------------


def test_the_shuffled_deck_is_hidden_from_everyone() -> None:
    """003_281a902b564cb498.txt: "plaats de kaarten met de gezicht naar beneden aan de zijkant
    van het bord" — nobody, not even the players, sees the order."""
    game = set_up(3)
    shuffled = next(e for e in game.events if isinstance(e, ev.DeckShuffled))
    for viewer in ("p1", "p2", "p3", None):
        hidden = redact(shuffled, viewer)
        assert isinstance(hidden, ev.DeckShuffled)
        assert hidden.order == (-1,) * 44
        assert hidden.reshuffle == shuffled.reshuffle


def test_a_drawn_card_is_seen_by_its_drawer_only(holding: Game) -> None:
    """003_281a902b564cb498.txt: "verdient u één (en slechts één) risicokaart" — which card,
    only its holder knows."""
    holding.place_all("brazil")
    holding.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1])
    )
    holding.do(cmd.Occupy(seat="p1", count=3))
    holding.end_turn()
    drawn = next(e for e in holding.events if isinstance(e, ev.CardDrawn))
    assert redact(drawn, "p1") == drawn
    for viewer in ("p2", "p3", None):
        assert redact(drawn, viewer) == dataclasses.replace(drawn, card=-1)


def test_captured_cards_are_seen_by_the_conqueror_only() -> None:
    """001_c708159c204162c3.txt: "vinner du alla riskspelkort som den spelaren har samlat in":
    the cards join the conqueror's hand, so only it sees them; the player who lost
    them (out of the game now) and the others see how many."""
    owners = split({"p1": ["brazil", "madagascar"], "p2": ["north_africa"], "p3": ["japan"]}, "p4")
    game = position(owners, {"brazil": 4}, hands={"p2": CAVALRY[:2]})
    game.place_all("madagascar")
    game.do(
        cmd.Attack(seat="p1", source="brazil", target="north_africa"), ScriptedRng([6, 6, 6, 1])
    )
    eliminated = game.events[-1]
    assert isinstance(eliminated, ev.PlayerEliminated)
    assert eliminated.cards == tuple(CAVALRY[:2])
    assert redact(eliminated, "p1") == eliminated
    for viewer in ("p2", "p3", "p4", None):
        assert redact(eliminated, viewer) == dataclasses.replace(eliminated, cards=(-1, -1))


def test_every_other_event_is_public() -> None:
    """Battles, trades, placements, turns: the table sees them all."""
    game = new(4, seed=b"public")
    play(game, random.Random(4))
    kinds: set[type[ev.Event]] = set()
    for event in game.events[:-1]:
        for viewer in ("p1", "p3", None):
            hidden = redact(event, viewer)
            if not isinstance(event, SECRET_TYPES):
                assert hidden is event
                kinds.add(type(event))
            elif isinstance(event, ev.CardDrawn) and event.seat != viewer:
                assert hidden == dataclasses.replace(event, card=-1)
    assert {ev.BattleResolved, ev.CardsTraded, ev.TurnStarted} <= kinds


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Sighted(ev.Event):
    """A mode's own event with a secret: only ``seat`` may see which card."""

    TYPE = "sighted_test_event"
    seat: str
    card: int

    def redacted_for(self, viewer: str | None) -> ev.Event:
        return self if viewer == self.seat else dataclasses.replace(self, card=-1)


def test_a_modes_own_event_hides_its_secret_through_redact() -> None:
    """Views hide secrets: ``redact`` asks every event for its own
    secrets, so a mode's event is hidden on every feed without a hook of the mode."""
    sighted = _Sighted(seat="p1", card=7)
    assert redact(sighted, "p1") == sighted
    assert redact(sighted, "p2").card == -1  # type: ignore[attr-defined]
    assert redact(sighted, None).card == -1  # type: ignore[attr-defined]
    assert redact(sighted, None, reveal=True) == sighted


@pytest.mark.parametrize(("mode", "n"), [("middle_earth", 3), ("lotr", 3), ("lotr", 2)])
def test_middle_earth_views_hide_hands_and_the_deck(mode: str, n: int) -> None:
    """The Middle-earth modes show what the classic game shows: every seat its own cards and
    the others' counts, the deck to nobody; the rest of the view (leaders, the Fellowship,
    the score table) depends on nothing a viewer may not see; every event a viewer gets
    hides what it should."""
    game = new(n, mode=mode, seed=b"leak " + mode.encode())
    play(
        game, random.Random(3), until=lambda s: s.turn >= 6 and sum(map(len, s.hands.values())) > 1
    )
    s = game.state
    holders = [p for p in s.order if s.hands.get(p)]
    assert holders
    for seat in holders:
        changed = hide_differently(s, seat)
        for viewer in [*[p for p in s.order if p != seat], None]:
            assert view(changed, viewer) == view(s, viewer)
            assert seat_entry(view(s, viewer), seat)["cards"] is None
        assert seat_entry(view(s, seat), seat)["cards"] == s.hands[seat]
    for viewer in [*s.order, None]:
        for event in game.events:
            seen = redact(event, viewer)
            if isinstance(event, ev.CardDrawn) and event.seat != viewer:
                assert seen.card == -1
            if isinstance(event, ev.DeckShuffled):
                assert set(seen.order) == {-1}
