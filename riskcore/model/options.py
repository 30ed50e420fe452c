"""Rule options: the one place every edition difference of RULES.md lives.

A ``RuleSet`` is a frozen value recorded in the game's first event and never
changed during a game. Defaults are the classic game as the digest marks
them; each field names the rule book passage that makes it an option.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from riskcore.errors import RuleOptionError

# RULES.md §1 "Starting armies" (classic, 3-6 players) and §2 (two players).
CLASSIC_STARTING_ARMIES = {3: 35, 4: 30, 5: 25, 6: 20}
TWO_PLAYER_ARMIES = 36
NEUTRAL_ARMIES = 24
# RULES.md §1 "Card trades", progressive values: 4, 6, 8, 10, 12, 15, then +5.
PROGRESSIVE_VALUES = (4, 6, 8, 10, 12, 15)
# RULES.md §1, fixed values: three infantry 4, cavalry 6, artillery 8, mixed 10.
FIXED_VALUES = {"infantry": 4, "cavalry": 6, "artillery": 8, "creature": 8, "mixed": 10}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "variant": ("classic", "two_player"),
    "setup": ("claim", "deal"),
    "first_player": ("claim_order", "reroll"),
    "card_values": ("progressive", "fixed"),
    "conquest_min_move": ("dice", "survivors"),
    "elimination_trade_threshold": (5, 6),
    "fortify": ("adjacent", "connected"),
    "defender_chooses_dice": (False, True),
    "neutrals": ("passive",),
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option of RULES.md §1-2 with its default.

    ``starting_armies`` of 0 means "from the table for the player count".

    ``conquest_min_move="survivors"`` is the 2006 Swedish wording (move in
    the armies left on the battlefield after the last battle). Since the
    roll that takes a territory never costs the attacker an army, it always
    equals the dice rolled, as ``"dice"`` does; the option is kept so a game
    records which edition's rule it was played under.
    """

    variant: str = "classic"
    setup: str = "claim"
    first_player: str = "claim_order"
    card_values: str = "progressive"
    conquest_min_move: str = "dice"
    elimination_trade_threshold: int = 6
    fortify: str = "adjacent"
    defender_chooses_dice: bool = False
    neutrals: str = "passive"
    starting_armies: int = 0

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed or type(value) is not type(allowed[0]):
                raise RuleOptionError(f"rule option {name}={value!r}: expected one of {allowed}")
        armies = self.starting_armies
        if type(armies) is not int or not 0 <= armies <= 200:
            raise RuleOptionError(f"rule option starting_armies={self.starting_armies!r}")

    def player_range(self) -> tuple[int, int]:
        return (2, 2) if self.variant == "two_player" else (3, 6)

    def armies_for(self, players: int) -> int:
        """Starting armies per player (RULES.md §1 table; §2 for two players)."""
        if self.starting_armies:
            return self.starting_armies
        if self.variant == "two_player":
            return TWO_PLAYER_ARMIES
        return CLASSIC_STARTING_ARMIES[players]

    def trade_value(self, sets_traded_before: int, symbols: tuple[str, ...]) -> int:
        """Armies for a set, given how many sets anyone traded before it."""
        if self.card_values == "fixed":
            kinds = {s for s in symbols if s != "wild"}
            if len(kinds) == 1 and symbols.count("wild") == 0:
                return FIXED_VALUES.get(kinds.pop(), FIXED_VALUES["mixed"])
            return _best_fixed_value(symbols)
        if sets_traded_before < len(PROGRESSIVE_VALUES):
            return PROGRESSIVE_VALUES[sets_traded_before]
        return PROGRESSIVE_VALUES[-1] + 5 * (sets_traded_before - len(PROGRESSIVE_VALUES) + 1)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RuleOptionError(f"unknown rule option {unknown[0]!r}")
        return cls(**data)


def _best_fixed_value(symbols: tuple[str, ...]) -> int:
    """A wild counts as whichever symbol completes the set; take the best value.

    RULES.md §1: "a wild counts as the symbol that completes the set; the
    player names it". A player always names the most valuable reading.
    """
    kinds = [s for s in symbols if s != "wild"]
    best = FIXED_VALUES["mixed"] if len(set(kinds)) == len(kinds) and len(kinds) < 3 else 0
    if len(set(kinds)) <= 1:
        named = kinds[0] if kinds else "artillery"
        best = max(best, FIXED_VALUES.get(named, FIXED_VALUES["mixed"]))
    return best or FIXED_VALUES["mixed"]
