"""The commands and events of adventure cards."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from riskcore.protocol import commands as cmd
from riskcore.protocol.commands import register_command
from riskcore.protocol.events import Event, register_event


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayAdventure(cmd.Command):
    """Play the power card ``adventure`` from your hand; an attack it comes before
    names ``source`` and ``target``, a leader it moves names them too, a border it
    blocks names its two ends; ``shift`` is what a card that lets its player choose
    adds to the Fellowship's roll (Faramir: +2 or -2)."""

    adventure: int
    source: str | None = None
    target: str | None = None
    shift: int | None = None


register_command(
    PlayAdventure,
    "play_adventure",
    fields={
        "adventure": "int",
        "source": "str | None",
        "target": "str | None",
        "shift": "int | None",
    },
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimAdventure(cmd.Command):
    """Claim the mission card ``adventure``: a leader of yours stands on its site.
    A reward of armies somewhere in a region names the ``territory``."""

    adventure: int
    territory: str | None = None


register_command(
    ClaimAdventure, "claim_adventure", fields={"adventure": "int", "territory": "str | None"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardAdventure(cmd.Command):
    """Discard ``adventure``: a fourth card was drawn and three may be held."""

    adventure: int


register_command(DiscardAdventure, "discard_adventure", fields={"adventure": "int"})


@dataclass(frozen=True, slots=True, kw_only=True)
class PassAdventure(cmd.Command):
    """Play nothing in the Fellowship's window (a bot passes at once)."""


register_command(PassAdventure, "pass_adventure")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDeckShuffled(Event):
    """The adventure pile, top first (secret until the end): ``deal``, the cards dealt
    at setup (the events taken out), ``pile``, what is left with the events back, or
    ``fork``, a fork's pile drawn again from its own seed."""

    adventure_order: tuple[int, ...]
    purpose: str

    def redacted_for(self, viewer: str | None) -> Event:
        return dataclasses.replace(self, adventure_order=(-1,) * len(self.adventure_order))


register_event(
    AdventureDeckShuffled,
    "adventure_deck_shuffled",
    secret=("adventure_order",),
    tuples=("adventure_order",),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureCardDrawn(Event):
    """``seat`` took the pile's top card ``adventure`` (secret to all but ``seat``):
    dealt at setup (``deal``) or drawn at the end of a turn (``draw``)."""

    seat: str
    adventure: int
    reason: str

    def redacted_for(self, viewer: str | None) -> Event:
        return self if viewer == self.seat else dataclasses.replace(self, adventure=-1)


register_event(AdventureCardDrawn, "adventure_card_drawn", secret=("adventure",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventurePlayed(Event):
    """``seat`` played ``adventure`` (an event as it was drawn, or a power card), with
    what it did in ``facts``: ``changes`` ([territory, seat, armies gained or lost]),
    ``revealed_cards`` (territory cards shown and discarded), and the lasting effects
    (``storm``, ``stronghold_off``, ``extra_manoeuvres``, ``second_leader``,
    ``leader`` [from, to], ``fellowship_step``, ``blocked`` [the bridge's ends]),
    ``called_off`` (the attack a defender answered does not go on) and
    ``uprising`` (its territory card follows, ``AdventureUprisingKept``)."""

    seat: str
    adventure: int
    source: str | None = None
    target: str | None = None
    facts: dict[str, Any]


register_event(AdventurePlayed, "adventure_played")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureMissionClaimed(Event):
    """``seat``'s leader in ``territory`` claimed the mission ``adventure``; ``facts``
    holds the reward's ``changes`` (its territory cards are drawn as ``card_drawn``)."""

    seat: str
    adventure: int
    territory: str
    facts: dict[str, Any]


register_event(AdventureMissionClaimed, "adventure_mission_claimed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureWindowOpened(Event):
    """End of ``seat``'s turn: the Fellowship tries to move on, ``roll`` the die of a
    marked square (None elsewhere). Each player holding an adventure card (a public
    count) may play a card for the moment or pass, in the order of ``waiting``."""

    seat: str
    roll: int | None
    waiting: tuple[str, ...]


register_event(AdventureWindowOpened, "adventure_window_opened", tuples=("waiting",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDefenceWindowOpened(Event):
    """``seat`` declared an attack from ``source`` on ``defender``'s ``target`` (the
    ``command`` it sent); ``defender`` holds an adventure card (a public count) and
    may play one for the moment or pass before the attack goes on."""

    seat: str
    defender: str
    source: str
    target: str
    command: dict[str, Any]


register_event(AdventureDefenceWindowOpened, "adventure_defence_window_opened")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureUprisingKept(Event):
    """Local uprising: ``seat`` took the territory card ``card`` from the pile (the
    first from the top naming a territory) and keeps it aside, secret to all but
    ``seat``, until it holds that territory."""

    seat: str
    adventure: int
    card: int

    def redacted_for(self, viewer: str | None) -> Event:
        return self if viewer == self.seat else dataclasses.replace(self, card=-1)


register_event(AdventureUprisingKept, "adventure_uprising_kept", secret=("card",))


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureUprisingRevealed(Event):
    """``seat`` holds ``territory``, the one the territory card ``card`` its Local
    uprising ``adventure`` kept names: the card is shown (then discarded) and
    ``armies`` join ``seat`` there."""

    seat: str
    adventure: int
    card: int
    territory: str
    armies: int


register_event(AdventureUprisingRevealed, "adventure_uprising_revealed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureWindowPassed(Event):
    """``seat`` played nothing in the window (the Fellowship's or a defender's)."""

    seat: str


register_event(AdventureWindowPassed, "adventure_window_passed")


@dataclass(frozen=True, slots=True, kw_only=True)
class AdventureDiscarded(Event):
    """``seat`` held four adventure cards and discarded ``adventure`` (no points)."""

    seat: str
    adventure: int


register_event(AdventureDiscarded, "adventure_discarded")
