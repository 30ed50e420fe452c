"""Regular Risk on the Middle-earth board (docs/rules.md, "Regular Risk on Middle-earth").

The Lord of the Rings board played without its special pieces: no leaders,
strongholds, sites of power, adventure cards or Ring. 3 players get 35
armies each, 4 players 40; the territory cards (wild cards out) are dealt
round the table and each player puts one army on each of theirs. Two
players play as in Lord of the Rings Risk: one on the good side, one on the
evil, and a neutral army (``deal_two_sides``). Cards trade at fixed values;
an attacker rolling one die lets the defender roll only one; a manoeuvre
goes to an adjacent own territory only. The last player standing wins.

What this module shares with Lord of the Rings Risk (``riskcore.modes.lotr``):
the board check, the two-player deal with its neutral army, and the neutral's
dice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from riskcore.boards.board import WILD
from riskcore.engine.decision import Decision
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from riskcore.model.state import State
from riskcore.modes.base import GameMode
from riskcore.protocol import events as ev
from riskcore.rules import setup

NEUTRAL = "n1"
GOOD, EVIL = "good", "evil"
# docs/rules.md (regular Risk on Middle-earth): 35 armies each for 2 or 3 players, 40 for 4.
REGULAR_ARMIES = {2: 35, 3: 35, 4: 40}
# Two players: 9 good cards to the good player, 9 evil to the evil one, 14 neutral to the
# neutral army, which gets 2 armies on each; the other 10 territories are claimed in turn.
TWO_PLAYER_DEAL = {GOOD: 9, EVIL: 9, "neutral": 14}
NEUTRAL_ARMIES_EACH = 2


def check_board(state: State, mode: str) -> None:
    """The Middle-earth modes need a board whose cards carry sides (good, evil, neutral)."""
    if not any(card.side for card in state.board.cards):
        raise RuleOptionError(
            f"the {mode} game is played on the middle_earth board, not {state.board.name!r}"
        )


def two_sided_seats(
    mode: GameMode, players: Sequence[str], rules: RuleSet, sides: Sequence[str]
) -> list[dict[str, Any]]:
    """Players p1..pN with the side each plays, and for two players the neutral army
    (a passive one: ``passive_neutral``)."""
    seats = GameMode.seat_list(mode, players, rules)
    for seat, side in zip(seats, sides, strict=True):
        seat["side"] = side
    if len(players) == 2:
        armies = TWO_PLAYER_DEAL["neutral"] * NEUTRAL_ARMIES_EACH
        seats.append(
            {
                "id": NEUTRAL,
                "kind": "neutral",
                "name": "Neutral",
                "armies": armies,
                "side": "neutral",
            }
        )
    return seats


def passive_neutral(mode: GameMode, rules: RuleSet) -> RuleSet:
    """``rules``, refused if they ask for active neutrals: the book gives the
    Middle-earth neutral army no bribes and no track."""
    if rules.neutrals != "passive":
        raise RuleOptionError(
            f"the {mode.name} game's neutral army is passive, not neutrals={rules.neutrals!r}"
        )
    return rules


# The sides of three cards as the trilogy edition's data has them (``card_sides``
# ``trilogy``, games recorded before the option); the board file pictures the 2002 book's:
# 002_84c66041fccdfcee.txt, «RHUDAUR Onda territoriekort FORLINDON Goda territoriekort
# EMYN MUIL Neutrala territoriekort».
TRILOGY_SIDES = {"rhudaur": GOOD, "forlindon": "neutral", "emyn_muil": EVIL}


def card_side(state: State, territory: str, side: str | None) -> str | None:
    """The side of ``territory``'s card in this game (``card_sides``)."""
    if state.rules.card_sides == "trilogy":
        return TRILOGY_SIDES.get(territory, side)
    return side


def side_piles(d: Decision) -> dict[str, list[str]]:
    """The territory cards by side, each pile shuffled (wild cards out)."""
    piles: dict[str, list[str]] = {}
    s = d.state
    cards = [
        (c.territory, card_side(s, c.territory, c.side))
        for c in s.board.cards
        if c.symbol != WILD and c.territory is not None
    ]
    for side in (GOOD, EVIL, "neutral"):
        pile = [territory for territory, of in cards if of == side]
        d.rng.shuffle(pile)
        piles[side] = pile
    return piles


def deal_two_sides(d: Decision) -> None:
    """The two-player deal: the good player's 9, the evil player's 9, the neutral's 14
    with a second army on each; the other territories are then claimed in turn."""
    s = d.state
    piles = side_piles(d)
    owners: dict[str, str] = {}
    for seat in [*s.order, NEUTRAL]:
        side = s.seats[seat].side
        assert side is not None
        for territory in piles[side][: TWO_PLAYER_DEAL[side]]:
            owners[territory] = seat
    d.emit(ev.TerritoriesDealt(owners=owners))
    for territory, seat in owners.items():
        if seat == NEUTRAL:
            extra = NEUTRAL_ARMIES_EACH - 1
            d.emit(ev.ArmiesPlaced(seat=NEUTRAL, player=NEUTRAL, territory=territory, count=extra))


def neutral_dice_chooser(state: State, attacker: str | None) -> str | None:
    """The neutral army's dice are rolled by the player who is not attacking."""
    others = [p for p in state.active_players() if p != attacker]
    return others[0] if len(others) == 1 else None


class MiddleEarth(GameMode):
    name = "middle_earth"
    title = "Regular Risk on the Middle-earth board"
    win_condition = (
        "Conquer every territory of Middle-earth: with two players the neutral army must"
        " fall too. A player whose opponents have all resigned wins at once."
    )
    players = (2, 4)
    board = "middle_earth"
    rule_defaults: ClassVar[Mapping[str, Any]] = {
        "setup": "deal",
        "card_values": "fixed",
        "fortify": "adjacent",
        "one_die_vs_one": True,
        "neutrals_must_fall": True,
    }
    own_options: ClassVar[frozenset[str]] = frozenset({"card_sides", "neutrals_must_fall"})

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        return passive_neutral(self, super().rule_set(given))

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        if len(players) != 2:
            return super().seat_list(players, rules)
        return two_sided_seats(self, players, rules, (GOOD, EVIL))

    def starting_armies(self, rules: RuleSet, players: int) -> int:
        return rules.starting_armies or REGULAR_ARMIES[players]

    def open_game(self, d: Decision) -> None:
        """Roll for who starts; deal every card round the table (two players: by side)."""
        check_board(d.state, self.name)
        if len(d.state.order) != 2:
            super().open_game(d)
            return
        setup.roll_for_order(d, "setup", d.state.order)
        deal_two_sides(d)

    def defence_chooser(self, state: State, defender: str, attacker: str | None) -> str | None:
        if defender == NEUTRAL:
            return neutral_dice_chooser(state, attacker)
        return super().defence_chooser(state, defender, attacker)


register_mode(MiddleEarth)
