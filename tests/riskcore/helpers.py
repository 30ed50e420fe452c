"""Builders for engine tests: games in chosen positions, scripted dice, random play.

Positions are made of events, never by editing a ``State``:

- ``new`` folds the opening events of ``new_game`` (the real order roll and,
  for dealt setups, the real deal);
- ``set_up`` plays the whole setup through ``decide`` with a fixed, simple
  policy, so the game stands at the first turn exactly as a server would
  have it;
- ``position`` constructs the setup events of a chosen position
  (``OrderRolled``, ``TerritoriesDealt``, setup ``ArmiesPlaced``, the
  ``DeckShuffled`` pile and ``CardDrawn`` hands) and lets the engine itself
  start the first turn, so the reinforcements and the forced trade are the
  engine's own. Seats not on turn keep whatever setup reserve the chosen
  army counts leave them; nothing reads a reserve after setup but views.

``Game.do`` runs a command through ``decide`` and applies its events;
``Game.reject`` checks a command is refused with a given code and that the
refusal changed nothing. ``ScriptedRng`` makes dice come out as a test
says, while shuffles still come from the real generator.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from riskcore.boards.board import Board, board_from_dict, load_board
from riskcore.engine.decide import decide, new_game
from riskcore.engine.decision import Decision
from riskcore.engine.evolve import apply, fold
from riskcore.engine.legal import Action, legal_actions
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FINISHED, OCCUPY, SETUP_CLAIM, SETUP_PLACE, State
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.dice import GameRng, Roll
from riskcore.rules.flow import start_turn
from riskcore.simulate import acting_seat

SEED = b"riskcore tests"
GAME_ID = "test-game"
CLASSIC = load_board("classic")
ALL_CARDS = tuple(card.id for card in CLASSIC.cards)


def mode_for(n: int) -> str:
    """The game mode a test with ``n`` players means: two players play the
    two-player game with neutrals (docs/rules.md, "The two-player game"), more the classic one."""
    return "two_player" if n == 2 else "classic"


def players(n: int) -> list[str]:
    """Player names for ``new_game``; their seats are p1..pn."""
    return [f"player {i}" for i in range(1, n + 1)]


def seats(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


def card_of(territory: str, board: Board = CLASSIC) -> int:
    """The id of the card picturing ``territory``."""
    return next(c.id for c in board.cards if c.territory == territory)


def cards_with(symbol: str, board: Board = CLASSIC) -> list[int]:
    """Card ids showing ``symbol``, in id order."""
    return [c.id for c in board.cards if c.symbol == symbol]


class ScriptExhausted(AssertionError):
    pass


class ScriptedRng(GameRng):
    """A game generator whose dice are read from ``faces``, front first.

    ``dice(n)`` (and each side of ``battle_dice``) takes the next n faces
    and sorts them high to low, as the real generator does; ``die()`` takes
    one. Shuffles and ``below`` come from the real stream. A test asserts
    ``rng.faces == []`` to know every scripted die was rolled; rolling past
    the script fails loudly.
    """

    def __init__(
        self, faces: Iterable[int], seed: bytes = SEED, game_id: str = GAME_ID, version: int = 0
    ) -> None:
        super().__init__(seed, game_id, version)
        self.faces = list(faces)

    def die(self) -> int:
        if not self.faces:
            raise ScriptExhausted("the test's dice script ran out")
        face = self.faces.pop(0)
        assert 1 <= face <= 6, face
        return face

    def dice(self, count: int) -> tuple[int, ...]:
        return tuple(sorted((self.die() for _ in range(count)), reverse=True))

    def battle_dice(self, attacking: int, defending: int) -> tuple[Roll, Roll]:
        return self.dice(attacking), self.dice(defending)


@dataclass
class Game:
    """A state and the events that made it, advanced only through ``decide``."""

    state: State
    events: list[ev.Event]
    seed: bytes = SEED

    def rng(self) -> GameRng:
        return GameRng(self.seed, self.state.game_id, self.state.version)

    def do(self, command: cmd.Command, rng: GameRng | None = None) -> list[ev.Event]:
        new = decide(self.state, command, rng or self.rng())
        for event in new:
            apply(self.state, event)
        self.events.extend(new)
        return new

    def body(self, seat: str, body: Mapping[str, Any]) -> list[ev.Event]:
        """Send a wire body, as a client would."""
        return self.do(cmd.command_from_dict(dict(body), seat))

    def reject(self, command: cmd.Command, code: str, rng: GameRng | None = None) -> RuleViolation:
        """``command`` is refused with ``code``, and the state is as it was."""
        before = copy.deepcopy(self.state)
        with pytest.raises(RuleViolation) as caught:
            decide(self.state, command, rng or self.rng())
        assert caught.value.code == code, caught.value.message
        assert self.state == before
        return caught.value

    def fork(self) -> Game:
        return Game(self.state.copy(), list(self.events), self.seed)

    # Shortcuts for the current player ----------------------------------

    @property
    def current(self) -> str:
        assert self.state.current is not None
        return self.state.current

    def place_all(self, territory: str | None = None) -> None:
        """Place the current player's whole reserve (on their first territory by default)."""
        seat = self.current
        where = territory or self.state.territories_of(seat)[0]
        self.do(cmd.PlaceArmies(seat=seat, territory=where, count=self.state.reserve[seat]))

    def end_attack(self) -> None:
        self.do(cmd.EndPhase(seat=self.current))

    def end_turn(self) -> None:
        """From the attack or fortify phase to the next player's turn."""
        if self.state.phase == "attack":
            self.end_attack()
        self.do(cmd.EndPhase(seat=self.current))


def new(
    n: int = 3,
    rules: RuleSet | None = None,
    *,
    seed: bytes = SEED,
    player_seeds: Mapping[str, str] | None = None,
    board: str | None = None,
    mode: str | None = None,
) -> Game:
    events = new_game(
        game_id=GAME_ID,
        players=players(n),
        seed=seed,
        mode=mode or mode_for(n),
        rules=rules,
        player_seeds=player_seeds,
        board=board,
    )
    return Game(fold(events), events, seed)


def setup_policy(state: State, seat: str) -> cmd.Command:
    """A fixed setup policy: claim the first free territory in board order,
    then place one army at a time on the owner's first territory."""
    if state.phase == SETUP_CLAIM:
        free = next(t for t in state.board.territory_names if t not in state.owner)
        return cmd.ClaimTerritory(seat=seat, territory=free)
    player = next(p for p, left in sorted(state.setup_quota.items()) if left > 0)
    return cmd.PlaceArmies(seat=seat, territory=state.territories_of(player)[0], count=1)


def set_up(
    n: int = 3,
    rules: RuleSet | None = None,
    *,
    seed: bytes = SEED,
    policy: Callable[[State, str], cmd.Command] = setup_policy,
) -> Game:
    """A new game with its setup played through ``decide``: the first turn has started."""
    game = new(n, rules, seed=seed)
    while game.state.phase in (SETUP_CLAIM, SETUP_PLACE):
        game.do(policy(game.state, game.current))
    return game


def position(
    owners: Mapping[str, str],
    armies: Mapping[str, int] | None = None,
    *,
    n: int | None = None,
    rules: RuleSet | None = None,
    hands: Mapping[str, Sequence[int]] | None = None,
    deck: Sequence[int] | None = None,
    first: str = "p1",
    seed: bytes = SEED,
    mode: str | None = None,
    stacks: Mapping[str, Mapping[str, int]] | None = None,
    before_turn: Sequence[ev.Event] = (),
) -> Game:
    """A game whose setup left exactly this position, at the start of ``first``'s turn.

    ``owners`` maps every territory to a seat; ``armies`` gives counts (1 if
    absent). ``stacks`` adds armies of other seats to a territory (team-mates
    sharing it, the team game). ``hands`` are drawn from the top of the pile
    (a hand is named by a seat, or a team's hand by one of its seats);
    ``deck`` is the draw pile left afterwards (default: every other card, in
    id order). ``before_turn`` are a mode's own events put in before the first turn
    starts (Lord of the Rings: the leaders placed, the Fellowship's steps so far).
    """
    count = n or len({s for s in owners.values() if s.startswith("p")})
    mode = mode or mode_for(count)
    rules = rules or mode_named(mode).rule_set()
    armies = dict(armies or {})
    stacks = {t: dict(more) for t, more in (stacks or {}).items()}
    hands = {seat: list(cards) for seat, cards in (hands or {}).items()}
    totals: dict[str, int] = {}
    for territory, seat in owners.items():
        totals[seat] = totals.get(seat, 0) + armies.get(territory, 1)
    for more in stacks.values():
        for seat, extra in more.items():
            totals[seat] = totals.get(seat, 0) + extra
    table = 24 if count == 2 else mode_named("classic").starting_armies(rules, count)
    if max(totals.values()) > table:
        rules = RuleSet(**{**rules.to_dict(), "starting_armies": max(totals.values())})
    created = new_game(game_id=GAME_ID, players=players(count), seed=seed, mode=mode, rules=rules)[
        0
    ]
    state = fold([created])
    assert set(owners) == set(state.board.territory_names), "owners must cover the board"
    order = tuple(seats(count))
    start = order.index(first)
    order = order[start:] + order[:start]
    events: list[ev.Event] = [
        created,
        ev.OrderRolled(
            purpose="setup",
            rounds=({seat: 6 if seat == first else 1 for seat in order},),
            winner=first,
            order=order,
        ),
        ev.TerritoriesDealt(owners=dict(owners)),
    ]
    for territory, seat in owners.items():
        extra = armies.get(territory, 1) - 1
        if extra > 0:
            events.append(
                ev.ArmiesPlaced(seat=first, player=seat, territory=territory, count=extra)
            )
    for territory, more in stacks.items():
        for seat, extra in more.items():
            events.append(
                ev.ArmiesPlaced(seat=first, player=seat, territory=territory, count=extra)
            )
    in_hands = [card for cards in hands.values() for card in cards]
    pile = list(deck) if deck is not None else [c for c in ALL_CARDS if c not in in_hands]
    assert sorted(in_hands + pile) == sorted(ALL_CARDS), "hands and deck must hold every card"
    events.append(ev.DeckShuffled(order=tuple(in_hands + pile)))
    events.extend(
        ev.CardDrawn(seat=seat, card=card) for seat, cards in hands.items() for card in cards
    )
    events.extend(before_turn)
    state = fold(events)
    decision = Decision(state, GameRng(seed, GAME_ID, state.version))
    start_turn(decision, first)
    events.extend(decision.events)
    return Game(fold(events), events, seed)


def split(groups: Mapping[str, Iterable[str]], rest: str, board: Board = CLASSIC) -> dict[str, str]:
    """Ownership: the named territories to each seat, every other territory to ``rest``."""
    owners = {t: rest for t in board.territory_names}
    for seat, territories in groups.items():
        for t in territories:
            assert t in owners, t
            owners[t] = seat
    return owners


def continent(name: str, board: Board = CLASSIC) -> list[str]:
    group = next(g for g in board.groups if g.id == name)
    return sorted(group.territories)


# Random play ---------------------------------------------------------------


PROGRESS = (
    "claim_territory",
    "trade_cards",
    "defend",
    "occupy",
    "place_armies",
    "blitz",
    "attack",
)


@dataclass
class Policy:
    """A random player biased toward progress, so random games end.

    With probability ``wander`` it picks uniformly among all actions but
    resigning, amounts uniform within their bounds; otherwise the first kind
    of ``PROGRESS`` on offer, with the amounts ``legal_actions`` lists. It
    resigns with probability ``resign``, never while occupying (the engine
    bug shown in test_turns.py).
    """

    wander: float = 0.1
    resign: float = 0.0

    def choose(self, state: State, seat: str, actions: list[Action], rnd: random.Random) -> Any:
        by_kind: dict[str, list[Action]] = {}
        for action in actions:
            by_kind.setdefault(action["command"]["type"], []).append(action)
        if self.resign and state.phase != OCCUPY and rnd.random() < self.resign:
            return {"type": "resign"}
        by_kind.pop("resign", None)
        # Wandering off mid-attack too often lets armies pile up faster than battles
        # remove them (progressive card values), and games never end.
        wander = self.wander / 5 if state.phase == ATTACK else self.wander
        if rnd.random() >= wander:
            for kind in PROGRESS:
                if kind in by_kind:
                    # The listed amounts: everything placed, moved or risked.
                    return dict(rnd.choice(_fronts(state, by_kind[kind]))["command"])
        action = rnd.choice([a for group in by_kind.values() for a in group])
        body = dict(action["command"])
        for name, (low, high) in action["bounds"].items():
            body[name] = rnd.randint(low, high)
        return body


def _fronts(state: State, actions: list[Action]) -> list[Action]:
    """Placements on territories facing an enemy; attacks where the odds are best."""
    kind = actions[0]["command"]["type"]
    if kind == "place_armies":
        front = [
            a
            for a in actions
            if any(
                state.owner.get(n) != state.owner.get(a["command"]["territory"])
                for n in state.board.neighbours[a["command"]["territory"]]
            )
        ]
        return front or actions
    if kind in ("attack", "blitz"):
        margin = {
            id(a): state.troops(a["command"]["source"]) - state.troops(a["command"]["target"])
            for a in actions
        }
        best = max(margin.values())
        return [a for a in actions if margin[id(a)] == best]
    return actions


def step(game: Game, rnd: random.Random, policy: Policy) -> list[ev.Event]:
    """One random legal command by whoever must act."""
    seat = acting_seat(game.state)
    assert seat is not None, game.state.summary()
    body = policy.choose(game.state, seat, legal_actions(game.state, seat), rnd)
    return game.body(seat, body)


def play(
    game: Game,
    rnd: random.Random,
    policy: Policy | None = None,
    *,
    until: Callable[[State], bool] = lambda s: s.phase == FINISHED,
    max_commands: int = 20_000,
) -> Game:
    """Random legal play until ``until`` holds (or the game ends)."""
    policy = policy or Policy()
    for _ in range(max_commands):
        if until(game.state) or game.state.phase == FINISHED:
            return game
        step(game, rnd, policy)
    raise AssertionError(f"no end after {max_commands} commands: {game.state.summary()}")


def find(
    predicate: Callable[[State], bool],
    *,
    n: int = 4,
    rules: RuleSet | None = None,
    seeds: Iterable[int] = range(200),
    policy: Policy | None = None,
) -> Game:
    """The first position random play reaches where ``predicate`` holds."""
    for i in seeds:
        game = new(n, rules, seed=b"find %d" % i)
        play(game, random.Random(i), policy, until=predicate)
        if predicate(game.state):
            return game
    raise AssertionError("no random game reached the position")


def random_command(state: State, rnd: random.Random) -> cmd.Command:
    """Any command at all, mostly nonsense: for checking that refusals change nothing."""
    seat = rnd.choice([*state.seats, "p9", state.current or "p1"])
    places = [*state.board.territory_names, "atlantis"]
    place, other = rnd.choice(places), rnd.choice(places)
    count = rnd.randint(-1, 12)
    kind = rnd.randrange(10)
    if kind == 0:
        return cmd.ClaimTerritory(seat=seat, territory=place)
    if kind == 1:
        return cmd.PlaceArmies(seat=seat, territory=place, count=count)
    if kind == 2:
        hand = state.hand(seat) if seat in state.seats else []
        pool = hand if hand and rnd.random() < 0.7 else list(range(-1, 45))
        cards = tuple(rnd.choice(pool) for _ in range(rnd.choice((2, 3, 3, 3, 4))))
        return cmd.TradeCards(seat=seat, cards=cards, bonus_territory=rnd.choice([None, place]))
    if kind == 3:
        return cmd.Attack(seat=seat, source=place, target=other, dice=rnd.choice([None, count]))
    if kind == 4:
        return cmd.Blitz(seat=seat, source=place, target=other, stop_at=count)
    if kind == 5:
        return cmd.Defend(seat=seat, dice=count)
    if kind == 6:
        return cmd.Occupy(seat=seat, count=count)
    if kind == 7:
        return cmd.Fortify(seat=seat, source=place, target=other, count=count)
    if kind == 8:
        return cmd.EndPhase(seat=seat)
    return cmd.Resign(seat=seat)


def with_barriers(game: Game, barriers: Mapping[tuple[str, str], str]) -> Game:
    """The game on a copy of its board where these pairs are barriers (``river`` or
    ``mountain``) instead of borders: the shipped boards know none, so a test that
    checks how a move across one is refused draws them in."""
    data = game.state.board.to_dict()
    wanted = {frozenset(pair): kind for pair, kind in barriers.items()}
    data["borders"] = [
        [a, b, wanted.pop(frozenset((a, b)), kind)] for a, b, kind in data["borders"]
    ] + [[*sorted(pair), kind] for pair, kind in wanted.items()]
    game.state.board = board_from_dict(data)
    return game
