"""Rule options: the one declaration of every edition difference of the rule books.

A ``RuleSet`` is a frozen value recorded in the game's first event and never
changed during a game. Each field is declared once, with its default, the
values it may take and the passage that makes it an option; ``OPTIONS`` is
read from that declaration, and the API schema, ``openapi.yaml``, the
command line and ``docs/rules.md`` are built from it or checked against it.

Which game is played (classic, two players, ...) is not an option but a
*mode* (``riskcore.modes``): options are the differences between editions
of one game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from riskcore.errors import RuleOptionError

# docs/rules.md, the classic game: "Card trades", progressive values: 4, 6, 8, 10, 12, 15, then +5.
PROGRESSIVE_VALUES = (4, 6, 8, 10, 12, 15)
# docs/rules.md, fixed values: three infantry 4, cavalry 6, artillery 8, mixed 10.
FIXED_VALUES = {"infantry": 4, "cavalry": 6, "artillery": 8, "creature": 8, "mixed": 10}
MAX_STARTING_ARMIES = 200
# A blitz is one command, appended in one piece: between stacks of tens of thousands of
# armies it would be more battles (one event each) than the store takes at once, so it
# fights at most this many and the attacker blitzes again to go on (docs/rules.md).
BLITZ_BATTLES = 1000
MAX_BLITZ_BATTLES = 5000
# The adventure decks a Lord of the Rings game may name: the data files shipped.
ADVENTURE_DECKS = tuple(
    sorted(p.stem for p in (Path(__file__).parents[1] / "modes" / "decks").glob("adventure-*.json"))
)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option as the declaration gives it: for schemas, CLIs and docs."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None  # None: an integer in ``bounds``
    bounds: tuple[int, int] | None
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _option(
    default: Any, choices: tuple[Any, ...], summary: str, *, mode_only: bool = False
) -> Any:
    """``mode_only``: read only by the modes that name it in ``GameMode.own_options``
    (a form offers it for those modes alone); every other option is read by every mode."""
    return field(
        default=default,
        metadata={"choices": choices, "summary": summary, "mode_only": mode_only},
    )


def _count(default: int, bounds: tuple[int, int], summary: str) -> Any:
    return field(default=default, metadata={"bounds": bounds, "summary": summary})


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option of docs/rules.md with its default (the classic game).

    ``conquest_min_move="survivors"`` is the 2006 Swedish wording (move in
    the armies left on the battlefield after the last battle). Since the
    roll that takes a territory never costs the attacker an army, it always
    equals the dice rolled, as ``"dice"`` does; the option is kept so a game
    records which edition's rule it was played under.
    """

    setup: str = _option(
        "claim", ("claim", "deal"), "claim territories in turn, or deal the territory cards"
    )
    first_player: str = _option(
        "claim_order",
        ("claim_order", "reroll"),
        "the first to claim starts, or everyone rolls again for the first turn",
    )
    card_values: str = _option(
        "progressive",
        ("progressive", "fixed"),
        "sets are worth 4, 6, 8, 10, 12, 15, +5 each; or fixed by symbol (4/6/8, mixed 10)",
    )
    conquest_min_move: str = _option(
        "dice",
        ("dice", "survivors", "one"),
        "a conquest moves in at least the dice rolled, the surviving attackers, or one army"
        " (the Norwegian summary's 'minst en hær')",
    )
    elimination_trade_threshold: int = _option(
        6, (5, 6), "cards in hand after an elimination that force an immediate trade"
    )
    fortify: str = _option(
        "adjacent",
        ("adjacent", "connected"),
        "fortify to a bordering territory, or along a chain of your own",
    )
    defender_chooses_dice: bool = _option(
        False, (False, True), "defenders pick 1 or 2 dice (else they always roll the most)"
    )
    neutrals: str = _option(
        "passive",
        ("passive", "active"),
        "how neutral armies play (two players): obstacles, or allies to bribe"
        " (the two_player_active mode)",
        mode_only=True,  # set by the mode (two_player or two_player_active), chosen by none
    )
    team_placement: str = _option(
        "controlled",
        ("controlled", "present"),
        "team game: reinforce territories you control, or any where you have armies",
        mode_only=True,
    )
    mission_target_gone: str = _option(
        "occupy_24",
        ("occupy_24", "complete"),
        "secret missions: a destroy mission whose target is your own or put out by"
        " another becomes 24 territories (European cards), or is done (1993 US rules)",
        mode_only=True,
    )
    mission_deck: str = _option(
        "graded-house-v1",
        ("graded-house-v1",),
        "the mission game's deck of graded missions (a data file; not the printed cards)",
        mode_only=True,
    )
    one_die_vs_one: bool = _option(
        False,
        (False, True),
        "an attacker rolling one die lets the defender roll only one (2002 Middle-earth book)",
    )
    adventure_deck: str = _option(
        "none",
        ("none", *ADVENTURE_DECKS),
        "Lord of the Rings Risk: the adventure deck (a data file, a reconstruction, not the"
        " printed cards); none plays without adventure cards",
        mode_only=True,
    )
    starting_armies: int = _count(
        0, (0, MAX_STARTING_ARMIES), "armies per player at the start; 0 takes the rule book's table"
    )
    blitz_battles: int = _count(
        BLITZ_BATTLES,
        (0, MAX_BLITZ_BATTLES),
        "battles one blitz command fights at most (the attacker blitzes again to go on);"
        " 0 has no bound, as games recorded before the option do",
    )

    marker_dice: str = _option(
        "attack",
        ("attack", "command", "attack_first"),
        "active neutrals: the marker dice follow a whole attack on one territory, a die"
        " for each neutral it involved (the 2006 book), or each attack or blitz command"
        " (games recorded before the option), or a whole attack with the first neutral's"
        " die only (games recorded with attack before issue 53)",
        mode_only=True,
    )
    missions_dealt: str = _option(
        "before_setup",
        ("before_setup", "after_setup"),
        "the mission games: missions dealt before territories are claimed (the 2006 book),"
        " or once every army is placed (games recorded before the option)",
        mode_only=True,
    )
    neutrals_must_fall: bool = _option(
        False,
        (False, True),
        "a neutral army must be beaten too: the game is won by holding every territory"
        " (the 2002 Middle-earth book, whose games set it), not by the last player left",
        mode_only=True,
    )
    adventure_draw_closes: bool = _option(
        True,
        (True, False),
        "Lord of the Rings: after drawing an adventure card its player plays no more cards"
        " that turn but events (the 2002 book); false as games recorded before the option",
        mode_only=True,
    )
    second_leader: str = _option(
        "at_once",
        ("at_once", "next_turn"),
        "Lord of the Rings: 'Appoint a second leader' is placed as soon as it is drawn (the"
        " 2002 book), or in its player's next turn (games recorded before the option)",
        mode_only=True,
    )
    card_sides: str = _option(
        "book-2002",
        ("book-2002", "trilogy"),
        "Middle-earth: the sides of the Rhudaur, Forlindon and Emyn Muil cards as the 2002"
        " book pictures them (evil, good, neutral), or as the trilogy data has them",
        mode_only=True,
    )

    def __post_init__(self) -> None:
        for spec in OPTIONS:
            value = getattr(self, spec.name)
            if spec.choices is not None:
                allowed = spec.choices
                if value not in allowed or type(value) is not type(allowed[0]):
                    raise RuleOptionError(
                        f"rule option {spec.name}={value!r}: expected one of {allowed}"
                    )
            else:
                assert spec.bounds is not None
                low, high = spec.bounds
                if type(value) is not int or not low <= value <= high:
                    raise RuleOptionError(
                        f"rule option {spec.name}={value!r}: expected an integer {low}..{high}"
                    )

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
        known = {spec.name for spec in OPTIONS}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RuleOptionError(f"unknown rule option {unknown[0]!r}")
        return cls(**data)


OPTIONS: tuple[OptionSpec, ...] = tuple(
    OptionSpec(
        name=f.name,
        default=f.default,
        choices=f.metadata.get("choices"),
        bounds=f.metadata.get("bounds"),
        summary=f.metadata["summary"],
    )
    for f in fields(RuleSet)
)


def _best_fixed_value(symbols: tuple[str, ...]) -> int:
    """A wild counts as whichever symbol completes the set; take the best value.

    docs/rules.md (the classic game): "a wild counts as the symbol that completes the set; the
    player names it". A player always names the most valuable reading.
    """
    kinds = [s for s in symbols if s != "wild"]
    best = FIXED_VALUES["mixed"] if len(set(kinds)) == len(kinds) and len(kinds) < 3 else 0
    if len(set(kinds)) <= 1:
        named = kinds[0] if kinds else "artillery"
        best = max(best, FIXED_VALUES.get(named, FIXED_VALUES["mixed"]))
    return best or FIXED_VALUES["mixed"]


# The options only some modes read (``GameMode.own_options`` names them).
MODE_OPTIONS: frozenset[str] = frozenset(
    f.name for f in fields(RuleSet) if f.metadata.get("mode_only")
)
