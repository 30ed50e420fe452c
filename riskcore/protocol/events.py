"""Events: immutable, past-tense facts. Dice, draws and shuffles are inside.

Each event class has a ``TYPE`` (its stable name on the wire) and a schema
``VERSION``; ``riskcore.protocol.codec`` turns them into canonical JSON and back,
upcasting old versions. Fields that are sequences are tuples so an event
can be shared freely. ``seat`` is always the seat that acted (or, for
events the engine makes on its own, the seat they concern).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from riskcore.protocol.frozen import fast_init

# How a game's events are hashed (docs/records.md): 1, each stored event as it is;
# 2, each event's public part and a commitment to its secret fields (``SECRET``).
RECORD_FORMAT = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    # The fields nobody but some seats may see while the game runs. The hash
    # chain covers them only through a salted commitment (riskcore.audit.sealing),
    # so they must be hidden the chain's way: an int as -1, a list as that many -1.
    SECRET: ClassVar[tuple[str, ...]] = ()

    def redacted_for(self, viewer: str | None) -> Event:
        """The event as ``viewer`` may see it while the game runs.

        The base events' secrets are hidden by ``riskcore.views.view.redact``;
        a mode's own event with a secret overrides this (views call it for
        every event, so a mode needs no hook of its own for it).
        """
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCreated(Event):
    """The first event: board, rule options, seats and the seed commitment."""

    TYPE = "game_created"
    # 2: the mode by name, and each seat's starting armies; 3: record_format, and
    # rules name ``team_placement`` (every option is in ``rules``, so a replay compares them);
    # 4: rules name ``one_die_vs_one``; 5: rules name ``adventure_deck``
    VERSION = 5
    game_id: str
    board: str
    mode: str
    rules: dict[str, Any]
    seats: tuple[dict[str, Any], ...]  # id, kind, name, armies (+ team, side)
    seed_commitment: str
    player_seeds: dict[str, str]
    record_format: int  # how the game's events are hashed (RECORD_FORMAT)


@dataclass(frozen=True, slots=True, kw_only=True)
class OrderRolled(Event):
    """Dice rolled to pick who goes first; ``rounds`` holds re-rolls of ties."""

    TYPE = "order_rolled"
    VERSION = 2
    purpose: str  # "setup" or "first_turn"
    rounds: tuple[dict[str, int], ...]
    winner: str
    order: tuple[str, ...]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: str | None = None
    setup_turn: dict[str, Any] | str | None = None  # str: "derived" (see protocol.legacy)


@dataclass(frozen=True, slots=True, kw_only=True)
class TerritoriesDealt(Event):
    """Setup by dealing: each territory gets one army of its new owner."""

    TYPE = "territories_dealt"
    VERSION = 2
    owners: dict[str, str]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: str | None = None
    setup_turn: dict[str, Any] | str | None = None  # str: "derived" (see protocol.legacy)


@dataclass(frozen=True, slots=True, kw_only=True)
class TerritoryClaimed(Event):
    TYPE = "territory_claimed"
    VERSION = 2
    seat: str
    territory: str
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: str | None = None
    setup_turn: dict[str, Any] | str | None = None  # str: "derived" (see protocol.legacy)


@dataclass(frozen=True, slots=True, kw_only=True)
class ArmiesPlaced(Event):
    """``player``'s armies placed by ``seat`` (they differ for neutral armies)."""

    TYPE = "armies_placed"
    VERSION = 2
    seat: str
    player: str
    territory: str
    count: int
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: str | None = None
    setup_turn: dict[str, Any] | str | None = None  # str: "derived" (see protocol.legacy)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckShuffled(Event):
    """The draw pile, top first. Secret until the game ends."""

    TYPE = "deck_shuffled"
    SECRET = ("order",)
    order: tuple[int, ...]
    reshuffle: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    TYPE = "turn_started"
    VERSION = 3  # 2: the phase the turn opens with; 3: how far a forced trade goes
    seat: str
    turn: int
    reinforcements: int
    must_trade: bool
    phase: str = "reinforce"
    # With a forced trade: the hand size at which trading may stop (version 3;
    # "derived" before, see protocol.legacy).
    trade_down_to: int | str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsTraded(Event):
    """A set turned in; bonus armies go straight onto ``bonus_territory``."""

    TYPE = "cards_traded"
    seat: str
    cards: tuple[int, ...]
    armies: int
    bonus_territory: str | None
    bonus_armies: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AttackDeclared(Event):
    """Only when defenders choose their dice: the battle waits for them."""

    TYPE = "attack_declared"
    seat: str
    source: str
    target: str
    dice: int
    defender: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BattleResolved(Event):
    TYPE = "battle_resolved"
    seat: str
    source: str
    target: str
    defender: str
    attacker_dice: tuple[int, ...]
    defender_dice: tuple[int, ...]
    attacker_losses: int
    defender_losses: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TerritoryConquered(Event):
    """The last defender fell; the attacker must now move in (min..max)."""

    TYPE = "territory_conquered"
    seat: str
    source: str
    target: str
    defender: str
    min_move: int
    max_move: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TerritoryOccupied(Event):
    TYPE = "territory_occupied"
    VERSION = 2
    seat: str
    source: str
    target: str
    count: int
    # The phase that follows this event (version 2; None: unchanged).
    next_phase: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEliminated(Event):
    """``player`` lost their last territory; ``seat`` takes their cards."""

    TYPE = "player_eliminated"
    VERSION = 2
    SECRET = ("cards",)
    seat: str
    player: str
    cards: tuple[int, ...]
    must_trade: bool
    # With a forced trade: the hand size at which trading must stop (version 2).
    trade_down_to: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseEnded(Event):
    TYPE = "phase_ended"
    VERSION = 2
    seat: str
    phase: str
    # The phase that follows this event (version 2; None: unchanged).
    next_phase: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Fortified(Event):
    TYPE = "fortified"
    seat: str
    source: str
    target: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Event):
    """The end-of-turn card. Which card is secret to everyone but ``seat``."""

    TYPE = "card_drawn"
    SECRET = ("card",)
    seat: str
    card: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(Event):
    TYPE = "turn_ended"
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerResigned(Event):
    """A seat left (or forfeited on time): it takes no more turns.

    Its armies stay on the board, passive, until conquered; its cards go to
    the discard pile.
    """

    TYPE = "player_resigned"
    VERSION = 2
    seat: str
    reason: str
    discarded: tuple[int, ...]
    # The setup turn that begins after it (version 2; None: unchanged).
    setup_turn: dict[str, Any] | str | None = None  # str: "derived" (see protocol.legacy)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameFinished(Event):
    """The end: the winner, why, and the server seed revealed for audit.

    ``winners`` names every winning seat (a team wins together; a game won
    on score ranks them); ``winner`` is the single winning seat, if any.
    """

    TYPE = "game_finished"
    VERSION = 2  # 2: winners
    winner: str | None
    reason: str
    seed: str
    winners: tuple[str, ...] = ()


BASE_EVENT_TYPES: tuple[type[Event], ...] = (
    GameCreated,
    OrderRolled,
    TerritoriesDealt,
    TerritoryClaimed,
    ArmiesPlaced,
    DeckShuffled,
    TurnStarted,
    CardsTraded,
    AttackDeclared,
    BattleResolved,
    TerritoryConquered,
    TerritoryOccupied,
    PlayerEliminated,
    PhaseEnded,
    Fortified,
    CardDrawn,
    TurnEnded,
    PlayerResigned,
    GameFinished,
)

for _cls in BASE_EVENT_TYPES:
    fast_init(_cls)
# Every event type by wire name: the base ones, and those modes register.
EVENT_CLASSES: dict[str, type[Event]] = {cls.TYPE: cls for cls in BASE_EVENT_TYPES}
E = TypeVar("E", bound=type[Event])


def register_event(cls: E) -> E:
    """Class decorator for a mode's own event: the codec can then read and write it."""
    existing = EVENT_CLASSES.get(cls.TYPE)
    if existing is not None and existing is not cls:
        raise ValueError(f"event type {cls.TYPE!r} is already registered")
    EVENT_CLASSES[cls.TYPE] = fast_init(cls)
    return cls
