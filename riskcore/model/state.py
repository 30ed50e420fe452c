"""Game state, shaped for every variant of RULES.md.

Armies are kept per (territory, player) so that team-mates can share a
territory (RULES.md §4); ``owner`` is the controlling player of each
territory, kept up to date by ``evolve`` because every rule asks for it.
Hands are keyed by hand id, which is the seat id, or a team id in the team
game. Missions, leaders, strongholds, the Fellowship and scores have their
place here though the classic game leaves them empty.

``State`` is mutable only inside the engine: ``evolve`` returns a new
state, and ``fold`` copies once and then applies events in place, which is
what makes rebuilding a long game fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from riskcore.boards.board import Board
from riskcore.model.options import RuleSet

# Phases, in the order a game goes through them.
SETUP_CLAIM = "setup_claim"
SETUP_PLACE = "setup_place"
REINFORCE = "reinforce"
ATTACK = "attack"
DEFEND = "defend"  # waiting for the defender's dice choice
OCCUPY = "occupy"
FORTIFY = "fortify"
FINISHED = "finished"
PHASES = (SETUP_CLAIM, SETUP_PLACE, REINFORCE, ATTACK, DEFEND, OCCUPY, FORTIFY, FINISHED)


@dataclass(frozen=True, slots=True)
class Seat:
    id: str
    kind: str  # "player" or "neutral"
    name: str
    team: str | None = None


@dataclass(frozen=True, slots=True)
class PendingBattle:
    source: str
    target: str
    dice: int
    defender: str


@dataclass(frozen=True, slots=True)
class Occupation:
    source: str
    target: str
    min_move: int
    max_move: int


@dataclass(slots=True)
class State:
    game_id: str
    board: Board
    rules: RuleSet
    seats: dict[str, Seat]
    seed_commitment: str
    player_seeds: dict[str, str]
    version: int = 0
    phase: str = SETUP_CLAIM
    order: tuple[str, ...] = ()
    current: str | None = None
    turn: int = 0
    owner: dict[str, str] = field(default_factory=dict)
    armies: dict[tuple[str, str], int] = field(default_factory=dict)
    reserve: dict[str, int] = field(default_factory=dict)
    setup_quota: dict[str, int] = field(default_factory=dict)
    hands: dict[str, list[int]] = field(default_factory=dict)
    deck: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    sets_traded: int = 0
    must_trade_until: int | None = None
    bonus_taken: bool = False
    conquered: bool = False
    fortified: bool = False
    last_battle_dice: int = 0
    pending_battle: PendingBattle | None = None
    occupation: Occupation | None = None
    out: dict[str, str] = field(default_factory=dict)
    winner: str | None = None
    finish_reason: str | None = None
    revealed_seed: str | None = None
    # Variant state (RULES.md §3-5); empty in the classic game.
    missions: dict[str, list[str]] = field(default_factory=dict)
    leaders: dict[str, str] = field(default_factory=dict)
    fellowship: int | None = None
    scores: dict[str, int] = field(default_factory=dict)

    def copy(self) -> State:
        """A copy safe to mutate: containers copied one level deep."""
        return State(
            self.game_id,
            self.board,
            self.rules,
            self.seats,
            self.seed_commitment,
            self.player_seeds,
            self.version,
            self.phase,
            self.order,
            self.current,
            self.turn,
            self.owner.copy(),
            self.armies.copy(),
            self.reserve.copy(),
            self.setup_quota.copy(),
            {hand: cards.copy() for hand, cards in self.hands.items()},
            self.deck.copy(),
            self.discard.copy(),
            self.sets_traded,
            self.must_trade_until,
            self.bonus_taken,
            self.conquered,
            self.fortified,
            self.last_battle_dice,
            self.pending_battle,
            self.occupation,
            self.out.copy(),
            self.winner,
            self.finish_reason,
            self.revealed_seed,
            {k: v.copy() for k, v in self.missions.items()},
            self.leaders.copy(),
            self.fellowship,
            self.scores.copy(),
        )

    # Queries every rule area needs -------------------------------------

    def troops(self, territory: str) -> int:
        """Armies of the controlling player in a territory."""
        holder = self.owner.get(territory)
        return self.armies.get((territory, holder), 0) if holder else 0

    def territories_of(self, player: str) -> list[str]:
        return [t for t, p in self.owner.items() if p == player]

    def hand(self, seat: str) -> list[int]:
        return self.hands.get(self.hand_id(seat), [])

    def hand_id(self, seat: str) -> str:
        team = self.seats[seat].team
        return team if team is not None and self.rules.variant == "team" else seat

    def is_active(self, seat: str) -> bool:
        return seat not in self.out and self.seats[seat].kind == "player"

    def active_players(self) -> list[str]:
        # ``is_active`` inlined: asked after every conquest and occupation.
        out, seats = self.out, self.seats
        return [s for s in self.order if s not in out and seats[s].kind == "player"]

    def neutrals(self) -> list[str]:
        return [s for s, info in self.seats.items() if info.kind == "neutral" and s not in self.out]

    def next_player(self, after: str) -> str:
        """The next active player clockwise from ``after``."""
        i = self.order.index(after)
        for step in range(1, len(self.order) + 1):
            candidate = self.order[(i + step) % len(self.order)]
            if self.is_active(candidate):
                return candidate
        return after

    def summary(self) -> dict[str, Any]:
        return {"version": self.version, "phase": self.phase, "current": self.current}
