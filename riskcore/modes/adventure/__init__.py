"""Adventure cards of Lord of the Rings Risk (docs/rules.md, "Adventure cards").

A deck is a data file (``riskcore/modes/decks/adventure-*.json``) named by the
``adventure_deck`` rule option ("none": no adventure cards, as the games
recorded before they were played). Each card of the file has a *kind*:

- ``event``: played at once when drawn, then another card is drawn;
- ``mission``: claimed by bringing a leader to its ``site`` (a site of power)
  in the battle or manoeuvre phase; the reward is paid at once and the
  leader then stays put until the next player's turn;
- ``power``: kept secret and played at the ``moment`` it names.

Its *effect* is a small declarative form: one primitive (``EFFECTS`` for
events and power cards, the mission reward for missions) with its
parameters, so a new card needs data, never code. Each copy of a card is a
card of its own: the card numbers a game uses are places in ``Deck.cards``.

Secrets: the pile's order (``AdventureDeckShuffled``) is nobody's until the
end; a card drawn (``AdventureCardDrawn``) is its holder's alone until it is
played, claimed or discarded. Played power and mission cards stay in front
of their player and count their points at the end (``points_of``); events
and discards go to the discard pile and count nothing.

The package holds one module per concern: ``deck`` (the data), ``protocol``
(commands and events), ``queries``, ``event_cards`` (the deal and the draw),
``powers``, ``missions``, ``windows``, ``appliers``, ``actions`` (legal actions)
and ``view``; every name stays importable from ``riskcore.modes.adventure``.
"""

from __future__ import annotations

from riskcore.modes.adventure.actions import (
    discards,
    extra_fortifies,
    mission_claims,
    passes,
    power_plays,
)
from riskcore.modes.adventure.appliers import (
    APPLIERS,
    note_arrival,
    note_extra_fortify,
    second_leader_placed,
    turn_started,
    window_closed,
)
from riskcore.modes.adventure.deck import (
    AFTER_ATTACKS,
    AT_ONCE,
    ATTACKED,
    BEFORE_ATTACK,
    BEFORE_ATTACK_STRONGHOLD,
    DEALT,
    DECKS,
    DEFENCE_WINDOW,
    EACH_TERRITORY,
    EVENT,
    EVENT_EFFECTS,
    FELLOWSHIP_LEAVES,
    FELLOWSHIP_ROLLED,
    FELLOWSHIP_UNROLLED,
    HAND_LIMIT,
    LEAVE_ROLL,
    MISSION,
    MOMENTS,
    NO_DECK,
    POWER,
    POWER_EFFECTS,
    POWER_MOMENTS,
    SIDES,
    SITE,
    SOURCES,
    TURN_START,
    UPRISING,
    WINDOW,
    WINDOWS,
    AdventureCard,
    Deck,
    deck_names,
    deck_of,
    load_deck,
    parse_deck,
    plays,
)
from riskcore.modes.adventure.event_cards import (
    deal,
    discard,
    draw,
    shuffle_for_fork,
    uprisings_rise,
)
from riskcore.modes.adventure.handlers import HANDLERS
from riskcore.modes.adventure.missions import claim
from riskcore.modes.adventure.powers import (
    attacking_armies,
    drawn_closes,
    extra_fortify,
    play,
    roll_choices,
)
from riskcore.modes.adventure.protocol import (
    AdventureCardDrawn,
    AdventureDeckShuffled,
    AdventureDefenceWindowOpened,
    AdventureDiscarded,
    AdventureMissionClaimed,
    AdventurePlayed,
    AdventureUprisingKept,
    AdventureUprisingRevealed,
    AdventureWindowOpened,
    AdventureWindowPassed,
    ClaimAdventure,
    DiscardAdventure,
    PassAdventure,
    PlayAdventure,
)
from riskcore.modes.adventure.queries import (
    blocked_borders,
    border_blocked,
    called_off,
    defence_window,
    defence_window_due,
    discard_due,
    draw_due,
    extra_manoeuvres,
    fellowship_leaves,
    hand,
    mission_leader,
    points_of,
    second_leader_due,
    storm_refuses,
    stronghold_off,
    unblocked_reach,
    uprising_cards,
    window,
    window_holders,
    window_seat,
)
from riskcore.modes.adventure.view import deal_unseen, unseen, view
from riskcore.modes.adventure.windows import open_defence_window, open_window, pass_window

__all__ = [
    "AFTER_ATTACKS",
    "APPLIERS",
    "ATTACKED",
    "AT_ONCE",
    "BEFORE_ATTACK",
    "BEFORE_ATTACK_STRONGHOLD",
    "DEALT",
    "DECKS",
    "DEFENCE_WINDOW",
    "EACH_TERRITORY",
    "EVENT",
    "EVENT_EFFECTS",
    "FELLOWSHIP_LEAVES",
    "FELLOWSHIP_ROLLED",
    "FELLOWSHIP_UNROLLED",
    "HANDLERS",
    "HAND_LIMIT",
    "LEAVE_ROLL",
    "MISSION",
    "MOMENTS",
    "NO_DECK",
    "POWER",
    "POWER_EFFECTS",
    "POWER_MOMENTS",
    "SIDES",
    "SITE",
    "SOURCES",
    "TURN_START",
    "UPRISING",
    "WINDOW",
    "WINDOWS",
    "AdventureCard",
    "AdventureCardDrawn",
    "AdventureDeckShuffled",
    "AdventureDefenceWindowOpened",
    "AdventureDiscarded",
    "AdventureMissionClaimed",
    "AdventurePlayed",
    "AdventureUprisingKept",
    "AdventureUprisingRevealed",
    "AdventureWindowOpened",
    "AdventureWindowPassed",
    "ClaimAdventure",
    "Deck",
    "DiscardAdventure",
    "PassAdventure",
    "PlayAdventure",
    "attacking_armies",
    "blocked_borders",
    "border_blocked",
    "called_off",
    "claim",
    "deal",
    "deal_unseen",
    "deck_names",
    "deck_of",
    "defence_window",
    "defence_window_due",
    "discard",
    "discard_due",
    "discards",
    "draw",
    "draw_due",
    "drawn_closes",
    "extra_fortifies",
    "extra_fortify",
    "extra_manoeuvres",
    "fellowship_leaves",
    "hand",
    "load_deck",
    "mission_claims",
    "mission_leader",
    "note_arrival",
    "note_extra_fortify",
    "open_defence_window",
    "open_window",
    "parse_deck",
    "pass_window",
    "passes",
    "play",
    "plays",
    "points_of",
    "power_plays",
    "roll_choices",
    "second_leader_due",
    "second_leader_placed",
    "shuffle_for_fork",
    "storm_refuses",
    "stronghold_off",
    "turn_started",
    "unblocked_reach",
    "unseen",
    "uprising_cards",
    "uprisings_rise",
    "view",
    "window",
    "window_closed",
    "window_holders",
    "window_seat",
]
