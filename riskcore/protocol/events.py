"""Events: immutable, past-tense facts. Dice, draws and shuffles are inside.

Each event class is registered after its body with ``register_event``, which
gives it its ``TYPE`` (its stable name on the wire), its schema ``VERSION`` and
its ``SECRET`` fields; ``riskcore.protocol.codec`` turns events into canonical
JSON and back, upcasting old versions. Fields that are sequences are tuples so
an event can be shared freely (and the codec makes every list it reads a
tuple). ``seat`` is always the seat that acted (or, for events the engine makes
on its own, the seat they concern).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from riskcore.mypyc_hints import mypyc_attr
from riskcore.protocol.declared import check_declaration, field_annotations, field_names
from riskcore.protocol.frozen import constructed

# How a game's events are hashed (docs/records.md): 1, each stored event as it is;
# 2, each event's public part and a commitment to its secret fields (``SECRET``).
RECORD_FORMAT = 2


@mypyc_attr(allow_interpreted_subclasses=True)  # a test's or a plug-in's mode has events
class Event:
    """The base of every event: its wire identity, and nothing else.

    Not a dataclass, so that the class variables below stay off every event's
    fields in both builds (a mypyc-compiled dataclass takes a ``ClassVar`` in
    its own body for a field). ``register_event`` sets them, once per class.
    """

    __slots__ = ()
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


# Every event type by wire name: the base ones, and those modes register.
EVENT_CLASSES: dict[str, type[Event]] = {}
# Per event type, the fields holding tuples (the codec makes them from lists).
TUPLE_FIELDS: dict[type[Event], tuple[str, ...]] = {}


def register_event(
    cls: type[Event],
    name: str | None = None,
    *,
    version: int = 1,
    secret: tuple[str, ...] = (),
    tuples: tuple[str, ...] = (),
) -> None:
    """Declare ``cls`` the event called ``name`` on the wire; the codec can then
    read and write it. Called once, after the class body::

        register_event(BattleResolved, "battle_resolved", version=2)

    ``version`` is the schema version (an upcaster lifts each older one);
    ``secret`` names the fields hidden while the game runs, ``tuples`` those that
    hold tuples (lists on the wire). Nothing is read from the annotations (the
    compiled build keeps only run-time classes of them); the pure-Python build
    checks that ``tuples`` names every field annotated as a tuple.
    """
    if EVENT_CLASSES.get(name or "") is cls:
        return
    check_declaration(cls, name, "register_event")
    assert name is not None  # check_declaration refuses a missing name
    if name in EVENT_CLASSES:
        raise ValueError(f"event type {name!r} is already registered")
    _check_fields(cls, secret, tuples)
    if version < 1:
        raise ValueError(f"{cls.__qualname__}: schema versions start at 1, not {version}")
    cls.TYPE, cls.VERSION, cls.SECRET = name, version, secret
    TUPLE_FIELDS[cls] = tuples
    EVENT_CLASSES[name] = constructed(cls)


def _check_fields(cls: type[Event], secret: tuple[str, ...], tuples: tuple[str, ...]) -> None:
    names = field_names(cls)
    unknown = [name for name in (*secret, *tuples) if name not in names]
    if unknown:
        raise TypeError(f"{cls.__qualname__}: secret= or tuples= name no field {unknown}")
    written = field_annotations(cls)
    annotated = tuple(name for name, text in written.items() if text.startswith("tuple"))
    if sorted(annotated) != sorted(name for name in tuples if name in written):
        raise TypeError(f"{cls.__qualname__}: tuples={tuples}, its tuple fields {annotated}")
    lists = [name for name, text in written.items() if text.startswith("list")]
    if lists:
        raise TypeError(f"{cls.__qualname__}.{lists[0]}: an event's sequences are tuples")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class GameCreated(Event):
    """The first event: board, rule options, seats and the seed commitment."""

    game_id: Final[str]
    board: Final[str]
    mode: Final[str]
    rules: Final[dict[str, Any]]
    seats: Final[tuple[dict[str, Any], ...]]  # id, kind, name, armies (+ team, side)
    seed_commitment: Final[str]
    player_seeds: Final[dict[str, str]]
    record_format: Final[int]  # how the game's events are hashed (RECORD_FORMAT)

    def __init__(
        self,
        *,
        game_id: str,
        board: str,
        mode: str,
        rules: dict[str, Any],
        seats: tuple[dict[str, Any], ...],
        seed_commitment: str,
        player_seeds: dict[str, str],
        record_format: int,
    ) -> None:
        self.game_id = game_id
        self.board = board
        self.mode = mode
        self.rules = rules
        self.seats = seats
        self.seed_commitment = seed_commitment
        self.player_seeds = player_seeds
        self.record_format = record_format


register_event(
    GameCreated,
    "game_created",
    # 2: the mode by name, and each seat's starting armies; 3: record_format, and
    # rules name ``team_placement`` (every option is in ``rules``, so a replay compares them);
    # 4: rules name ``one_die_vs_one``; 5: rules name ``adventure_deck``;
    # 6: rules name ``blitz_battles``; 7: rules name the options of issue 35
    # (``marker_dice``, ``missions_dealt``, ``neutrals_must_fall``,
    # ``adventure_draw_closes``, ``second_leader``, ``card_sides``); 8: ``marker_dice``
    # ``attack`` rolls a die for each neutral an attack involved (issue 53)
    version=8,
    tuples=("seats",),
)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class GameForked(GameCreated):
    """The first event of a fork ("continue from here", issue 37): a game_created
    that names the finished game it continues (its id, the version it starts
    after and that game's head hash) and carries that position
    (``riskcore.engine.snapshot.state_to_dict``, the draw pile's order left
    out: ``riskcore.engine.fork`` shuffles it again from this game's seed)."""

    parent_game_id: Final[str]
    parent_version: Final[int]
    parent_head: Final[str]
    position: Final[dict[str, Any]]

    def __init__(
        self,
        *,
        game_id: str,
        board: str,
        mode: str,
        rules: dict[str, Any],
        seats: tuple[dict[str, Any], ...],
        seed_commitment: str,
        player_seeds: dict[str, str],
        record_format: int,
        parent_game_id: str,
        parent_version: int,
        parent_head: str,
        position: dict[str, Any],
    ) -> None:
        # The base's fields by name, through the base's own constructor: compiled
        # (mypyc), one handed a keyword dict left them unset; and ``super()`` fails
        # in a slotted dataclass (the class it names is not the one built).
        GameCreated.__init__(
            self,
            game_id=game_id,
            board=board,
            mode=mode,
            rules=rules,
            seats=seats,
            seed_commitment=seed_commitment,
            player_seeds=player_seeds,
            record_format=record_format,
        )
        self.parent_game_id = parent_game_id
        self.parent_version = parent_version
        self.parent_head = parent_head
        self.position = position


# 2: as game_created v8 (issue 53: ``marker_dice`` ``attack``, a die for each neutral)
register_event(GameForked, "game_forked", version=2, tuples=("seats",))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class OrderRolled(Event):
    """Dice rolled to pick who goes first; ``rounds`` holds re-rolls of ties."""

    purpose: Final[str]  # "setup" or "first_turn"
    rounds: Final[tuple[dict[str, int], ...]]
    winner: Final[str]
    order: Final[tuple[str, ...]]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: Final[str | None]
    # Not Final: ``Decision.amend`` completes it before the event leaves the decision.
    setup_turn: dict[str, Any] | str | None  # str: "derived" (see protocol.legacy)

    def __init__(
        self,
        *,
        purpose: str,
        rounds: tuple[dict[str, int], ...],
        winner: str,
        order: tuple[str, ...],
        next_phase: str | None = None,
        setup_turn: dict[str, Any] | str | None = None,
    ) -> None:
        self.purpose = purpose
        self.rounds = rounds
        self.winner = winner
        self.order = order
        self.next_phase = next_phase
        self.setup_turn = setup_turn


register_event(OrderRolled, "order_rolled", version=2, tuples=("rounds", "order"))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TerritoriesDealt(Event):
    """Setup by dealing: each territory gets one army of its new owner."""

    owners: Final[dict[str, str]]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: Final[str | None]
    # Not Final: ``Decision.amend`` completes it before the event leaves the decision.
    setup_turn: dict[str, Any] | str | None  # str: "derived" (see protocol.legacy)

    def __init__(
        self,
        *,
        owners: dict[str, str],
        next_phase: str | None = None,
        setup_turn: dict[str, Any] | str | None = None,
    ) -> None:
        self.owners = owners
        self.next_phase = next_phase
        self.setup_turn = setup_turn


register_event(TerritoriesDealt, "territories_dealt", version=2)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TerritoryClaimed(Event):
    seat: Final[str]
    territory: Final[str]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: Final[str | None]
    # Not Final: ``Decision.amend`` completes it before the event leaves the decision.
    setup_turn: dict[str, Any] | str | None  # str: "derived" (see protocol.legacy)

    def __init__(
        self,
        *,
        seat: str,
        territory: str,
        next_phase: str | None = None,
        setup_turn: dict[str, Any] | str | None = None,
    ) -> None:
        self.seat = seat
        self.territory = territory
        self.next_phase = next_phase
        self.setup_turn = setup_turn


register_event(TerritoryClaimed, "territory_claimed", version=2)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class ArmiesPlaced(Event):
    """``player``'s armies placed by ``seat`` (they differ for neutral armies)."""

    seat: Final[str]
    player: Final[str]
    territory: Final[str]
    count: Final[int]
    # The flow's facts (version 2): the phase that follows this event (None:
    # unchanged), and the setup turn that begins after it, {"seat", "quota"}.
    next_phase: Final[str | None]
    # Not Final: ``Decision.amend`` completes it before the event leaves the decision.
    setup_turn: dict[str, Any] | str | None  # str: "derived" (see protocol.legacy)

    def __init__(
        self,
        *,
        seat: str,
        player: str,
        territory: str,
        count: int,
        next_phase: str | None = None,
        setup_turn: dict[str, Any] | str | None = None,
    ) -> None:
        self.seat = seat
        self.player = player
        self.territory = territory
        self.count = count
        self.next_phase = next_phase
        self.setup_turn = setup_turn


register_event(ArmiesPlaced, "armies_placed", version=2)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class DeckShuffled(Event):
    """The draw pile, top first. Secret until the game ends."""

    order: Final[tuple[int, ...]]
    reshuffle: Final[bool]

    def __init__(self, *, order: tuple[int, ...], reshuffle: bool = False) -> None:
        self.order = order
        self.reshuffle = reshuffle


register_event(DeckShuffled, "deck_shuffled", secret=("order",), tuples=("order",))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TurnStarted(Event):
    seat: Final[str]
    turn: Final[int]
    reinforcements: Final[int]
    must_trade: Final[bool]
    phase: Final[str]
    # With a forced trade: the hand size at which trading may stop (version 3;
    # "derived" before, see protocol.legacy).
    trade_down_to: Final[int | str | None]

    def __init__(
        self,
        *,
        seat: str,
        turn: int,
        reinforcements: int,
        must_trade: bool,
        phase: str = "reinforce",
        trade_down_to: int | str | None = None,
    ) -> None:
        self.seat = seat
        self.turn = turn
        self.reinforcements = reinforcements
        self.must_trade = must_trade
        self.phase = phase
        self.trade_down_to = trade_down_to


register_event(
    TurnStarted,
    "turn_started",
    # 2: the phase the turn opens with; 3: how far a forced trade goes
    version=3,
)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class CardsTraded(Event):
    """A set turned in; bonus armies go straight onto ``bonus_territory``."""

    seat: Final[str]
    cards: Final[tuple[int, ...]]
    armies: Final[int]
    bonus_territory: Final[str | None]
    bonus_armies: Final[int]

    def __init__(
        self,
        *,
        seat: str,
        cards: tuple[int, ...],
        armies: int,
        bonus_territory: str | None,
        bonus_armies: int,
    ) -> None:
        self.seat = seat
        self.cards = cards
        self.armies = armies
        self.bonus_territory = bonus_territory
        self.bonus_armies = bonus_armies


register_event(CardsTraded, "cards_traded", tuples=("cards",))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class AttackDeclared(Event):
    """Only when defenders choose their dice: the battle waits for them."""

    seat: Final[str]
    source: Final[str]
    target: Final[str]
    dice: Final[int]
    defender: Final[str]

    def __init__(self, *, seat: str, source: str, target: str, dice: int, defender: str) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.dice = dice
        self.defender = defender


register_event(AttackDeclared, "attack_declared")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class BattleResolved(Event):
    seat: Final[str]
    source: Final[str]
    target: Final[str]
    defender: Final[str]
    attacker_dice: Final[tuple[int, ...]]
    defender_dice: Final[tuple[int, ...]]
    attacker_losses: Final[int]
    defender_losses: Final[int]

    def __init__(
        self,
        *,
        seat: str,
        source: str,
        target: str,
        defender: str,
        attacker_dice: tuple[int, ...],
        defender_dice: tuple[int, ...],
        attacker_losses: int,
        defender_losses: int,
    ) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.defender = defender
        self.attacker_dice = attacker_dice
        self.defender_dice = defender_dice
        self.attacker_losses = attacker_losses
        self.defender_losses = defender_losses


register_event(BattleResolved, "battle_resolved", tuples=("attacker_dice", "defender_dice"))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TerritoryConquered(Event):
    """The last defender fell; the attacker must now move in (min..max)."""

    seat: Final[str]
    source: Final[str]
    target: Final[str]
    defender: Final[str]
    min_move: Final[int]
    max_move: Final[int]

    def __init__(
        self, *, seat: str, source: str, target: str, defender: str, min_move: int, max_move: int
    ) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.defender = defender
        self.min_move = min_move
        self.max_move = max_move


register_event(TerritoryConquered, "territory_conquered")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TerritoryOccupied(Event):
    seat: Final[str]
    source: Final[str]
    target: Final[str]
    count: Final[int]
    # The phase that follows this event (version 2; None: unchanged).
    next_phase: Final[str | None]

    def __init__(
        self, *, seat: str, source: str, target: str, count: int, next_phase: str | None = None
    ) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.count = count
        self.next_phase = next_phase


register_event(TerritoryOccupied, "territory_occupied", version=2)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class PlayerEliminated(Event):
    """``player`` lost their last territory; ``seat`` takes their cards."""

    seat: Final[str]
    player: Final[str]
    cards: Final[tuple[int, ...]]
    must_trade: Final[bool]
    # With a forced trade: the hand size at which trading must stop (version 2).
    trade_down_to: Final[int | None]

    def __init__(
        self,
        *,
        seat: str,
        player: str,
        cards: tuple[int, ...],
        must_trade: bool,
        trade_down_to: int | None = None,
    ) -> None:
        self.seat = seat
        self.player = player
        self.cards = cards
        self.must_trade = must_trade
        self.trade_down_to = trade_down_to


register_event(
    PlayerEliminated, "player_eliminated", version=2, secret=("cards",), tuples=("cards",)
)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class PhaseEnded(Event):
    seat: Final[str]
    phase: Final[str]
    # The phase that follows this event (version 2; None: unchanged).
    next_phase: Final[str | None]

    def __init__(self, *, seat: str, phase: str, next_phase: str | None = None) -> None:
        self.seat = seat
        self.phase = phase
        self.next_phase = next_phase


register_event(PhaseEnded, "phase_ended", version=2)


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class DefenceSet(Event):
    """``seat`` now always rolls the most dice when defending (or is asked again)."""

    seat: Final[str]
    always_most: Final[bool]

    def __init__(self, *, seat: str, always_most: bool) -> None:
        self.seat = seat
        self.always_most = always_most


register_event(DefenceSet, "defence_set")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class Fortified(Event):
    seat: Final[str]
    source: Final[str]
    target: Final[str]
    count: Final[int]

    def __init__(self, *, seat: str, source: str, target: str, count: int) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.count = count


register_event(Fortified, "fortified")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class CardDrawn(Event):
    """The end-of-turn card. Which card is secret to everyone but ``seat``."""

    seat: Final[str]
    card: Final[int]

    def __init__(self, *, seat: str, card: int) -> None:
        self.seat = seat
        self.card = card


register_event(CardDrawn, "card_drawn", secret=("card",))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class TurnEnded(Event):
    seat: Final[str]

    def __init__(self, *, seat: str) -> None:
        self.seat = seat


register_event(TurnEnded, "turn_ended")


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class PlayerResigned(Event):
    """A seat left (or forfeited on time): it takes no more turns.

    Its armies stay on the board, passive, until conquered; its cards go to
    the discard pile.
    """

    seat: Final[str]
    reason: Final[str]
    discarded: Final[tuple[int, ...]]
    # The setup turn that begins after it (version 2; None: unchanged).
    # Not Final: ``Decision.amend`` completes it before the event leaves the decision.
    setup_turn: dict[str, Any] | str | None  # str: "derived" (see protocol.legacy)

    def __init__(
        self,
        *,
        seat: str,
        reason: str,
        discarded: tuple[int, ...],
        setup_turn: dict[str, Any] | str | None = None,
    ) -> None:
        self.seat = seat
        self.reason = reason
        self.discarded = discarded
        self.setup_turn = setup_turn


register_event(PlayerResigned, "player_resigned", version=2, tuples=("discarded",))


@dataclass(slots=True, kw_only=True, init=False, unsafe_hash=True)
class GameFinished(Event):
    """The end: the winner, why, and the server seed revealed for audit.

    ``winners`` names every winning seat (a team wins together; a game won
    on score ranks them); ``winner`` is the single winning seat, if any.
    """

    winner: Final[str | None]
    reason: Final[str]
    seed: Final[str]
    winners: Final[tuple[str, ...]]

    def __init__(
        self, *, winner: str | None, reason: str, seed: str, winners: tuple[str, ...] = ()
    ) -> None:
        self.winner = winner
        self.reason = reason
        self.seed = seed
        self.winners = winners


register_event(
    GameFinished,
    "game_finished",
    # 2: winners
    version=2,
    tuples=("winners",),
)


# The events of the classic game, which every mode plays by (registered above).
BASE_EVENT_TYPES: tuple[type[Event], ...] = tuple(EVENT_CLASSES.values())
