"""Lord of the Rings Risk, the 2002 edition (docs/rules.md, "Lord of the Rings Risk").

Played on the Middle-earth board by 2 to 4 players, each of the good or the
evil side (two players add a neutral army, as in ``riskcore.modes.middle_earth``).

- Setup: the territory cards are dealt by side (``DEALS``), the rest of the
  territories claimed one at a time, the armies placed one at a time, and
  then each player puts a *leader* on a territory of their own
  (``SETUP_LEADER``, the mode's own setup phase).
- Battles: a leader adds 1 to its side's highest die, attacking or
  defending; a stronghold adds 1 to its defender's highest die (never to an
  attack from it). A leader that attacks and wins moves into the conquered
  territory; a leader whose territory falls is lost. A player with no leader
  left puts one back on an own territory at the end of the turn, in the
  manoeuvre phase, before the turn's card is drawn (``leader_to_place``
  until then). In the manoeuvre phase a leader may also move on its own, once
  a turn, along own territories, never into a territory holding another
  leader of the same player.
- The Fellowship moves one step along its path at the end of every player's
  turn; from a square marked for it only on a roll of 4 or more. When it
  leaves the Dead Marshes the game ends and the score decides
  (``score_table``), ties broken by territories, strongholds, adventure
  points and at last a roll of three dice (``ScoreTieRolled``).
- Card sets trade at fixed values, 5 cards force a trade, an attacker rolling
  one die lets the defender roll one, a manoeuvre follows a chain of own
  territories: the mode's ``rule_defaults``.

- Adventure cards (``riskcore.modes.adventure``, the deck named by the
  ``adventure_deck`` option, which this mode sets): three dealt to each player
  before the first turn, one drawn at the end of a turn in which a leader
  reached a site of power, missions claimed there, power cards played at their
  moments; the points of played cards count in the score (``adventure_points``).

The package holds one module per concern: ``protocol`` (numbers, commands,
events), ``leaders``, ``scoring`` (the Fellowship and the score), ``handlers``,
``appliers``, ``actions`` (legal actions) and ``mode`` (``LordOfTheRings``);
every name stays importable from ``riskcore.modes.lotr``.
"""

from __future__ import annotations

from riskcore.modes.lotr.handlers import (
    end_phase,
    fortify_command,
    move_leader,
    occupy_command,
    place_leader,
    play_adventure,
    resign_in_window,
)
from riskcore.modes.lotr.leaders import leaderless, leaders_of, second_leader_owed
from riskcore.modes.lotr.mode import LordOfTheRings
from riskcore.modes.lotr.protocol import (
    ARMIES,
    DEALS,
    IN_TURN,
    LEADER_BONUS,
    LEAVE_ROLL,
    SETUP_LEADER,
    SIDES,
    STRONGHOLD_BONUS,
    STRONGHOLD_POINTS,
    TIE_DICE,
    FellowshipMoved,
    LeaderLost,
    LeaderMoved,
    LeaderPlaced,
    LeadersCalled,
    MoveLeader,
    PlaceLeader,
    ScoreTieRolled,
)
from riskcore.modes.lotr.scoring import (
    adventure_points,
    fellowship_left,
    fellowship_step,
    ranking,
    score_table,
    tied_at_top,
)

__all__ = [
    "ARMIES",
    "DEALS",
    "IN_TURN",
    "LEADER_BONUS",
    "LEAVE_ROLL",
    "SETUP_LEADER",
    "SIDES",
    "STRONGHOLD_BONUS",
    "STRONGHOLD_POINTS",
    "TIE_DICE",
    "FellowshipMoved",
    "LeaderLost",
    "LeaderMoved",
    "LeaderPlaced",
    "LeadersCalled",
    "LordOfTheRings",
    "MoveLeader",
    "PlaceLeader",
    "ScoreTieRolled",
    "adventure_points",
    "end_phase",
    "fellowship_left",
    "fellowship_step",
    "fortify_command",
    "leaderless",
    "leaders_of",
    "move_leader",
    "occupy_command",
    "place_leader",
    "play_adventure",
    "ranking",
    "resign_in_window",
    "score_table",
    "second_leader_owed",
    "tied_at_top",
]
