"""A minimal Risk engine that records nothing: the baseline for bench/engine.py.

Prints one JSON object. One process, one core:

    .venv/bin/python bench/minimal.py [--games 200]

The engine issue sets its games/s target against "a minimal Python Risk
engine that records nothing". This is one, written for the comparison: the
same classic board and rules (claim setup, progressive cards, the +2
territory bonus, forced trades, elimination with card capture) played by
the same random policy as ``riskcore.bots.random_bot`` (claim anywhere,
place everything on a random border territory, trade whenever a set is
held, blitz a uniformly chosen attack while any is possible and move every
army in, then fortify or not uniformly), on plain dicts and lists, with
``random.Random`` dice, no events, no validation, no views and no
legal-action lists. Its games are the same kind, not the same games (other
dice), so compare events per game as well as games per second.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from itertools import combinations

from riskcore.boards.board import load_board
from riskcore.model.options import PROGRESSIVE_VALUES
from riskcore.rules.cards import is_set

BOARD = load_board("classic")
NAMES = list(BOARD.territory_names)
NEIGHBOURS = {t: BOARD.neighbours[t] for t in NAMES}
GROUPS = [(frozenset(g.territories), g.bonus) for g in BOARD.groups]
SYMBOLS = {card.id: card.symbol for card in BOARD.cards}
PICTURED = {card.id: card.territory for card in BOARD.cards}
STARTING_ARMIES = 30  # four players


class Game:
    """One game's state; ``actions`` counts what the recording engine would record as
    commands (claims, placements, trades, blitzes, occupations, fortifies, phase ends)."""

    def __init__(self, players: int, rng: random.Random) -> None:
        self.rng = rng
        self.players = list(range(players))
        self.owner: dict[str, int] = {}
        self.armies: dict[str, int] = {}
        self.hands: list[list[int]] = [[] for _ in self.players]
        self.deck = list(SYMBOLS)
        rng.shuffle(self.deck)
        self.discard: list[int] = []
        self.sets_traded = 0
        self.actions = 0
        self.turns = 0

    # -- setup -------------------------------------------------------------

    def set_up(self) -> int:
        reserve = [STARTING_ARMIES] * len(self.players)
        seat = self.rng.randrange(len(self.players))
        free = list(NAMES)
        while free:
            territory = free.pop(self.rng.randrange(len(free)))
            self.owner[territory], self.armies[territory] = seat, 1
            reserve[seat] -= 1
            self.actions += 1
            seat = (seat + 1) % len(self.players)
        while any(reserve):
            if reserve[seat]:
                self.armies[self.rng.choice(self.borders(seat))] += 1
                reserve[seat] -= 1
                self.actions += 1
            seat = (seat + 1) % len(self.players)
        return seat

    # -- queries -----------------------------------------------------------

    def held(self, seat: int) -> list[str]:
        return [t for t in NAMES if self.owner[t] == seat]

    def borders(self, seat: int) -> list[str]:
        mine = self.held(seat)
        front = [t for t in mine if any(self.owner[n] != seat for n in NEIGHBOURS[t])]
        return front or mine

    def attacks(self, seat: int) -> list[tuple[str, str]]:
        return [
            (source, target)
            for source in self.held(seat)
            if self.armies[source] > 1
            for target in NEIGHBOURS[source]
            if self.owner[target] != seat
        ]

    # -- a turn ------------------------------------------------------------

    def play_turn(self, seat: int) -> None:
        self.turns += 1
        held = set(self.held(seat))
        reserve = max(3, len(held) // 3) + sum(b for g, b in GROUPS if g <= held)
        reserve += self.trade_all(seat, bonus_left=True)
        self.armies[self.rng.choice(self.borders(seat))] += reserve
        self.actions += 1
        conquered = False
        while options := self.attacks(seat):
            source, target = self.rng.choice(options)
            self.actions += 1
            conquered |= self.blitz(seat, source, target)
            if len(set(self.owner.values())) == 1:
                return
        self.actions += 1  # end of the attack phase
        self.fortify(seat)
        if conquered:
            self.draw(seat)

    def trade_all(self, seat: int, *, bonus_left: bool) -> int:
        """Trade a random set while one is held: the armies, plus any +2 placed."""
        gained = 0
        hand = self.hands[seat]
        while sets := [c for c in combinations(hand, 3) if is_set([SYMBOLS[x] for x in c])]:
            cards = self.rng.choice(sets)
            for card in cards:
                hand.remove(card)
            self.discard.extend(cards)
            n = self.sets_traded
            value = PROGRESSIVE_VALUES[n] if n < 6 else 15 + 5 * (n - 5)
            self.sets_traded += 1
            gained += value
            pictured = [PICTURED[c] for c in cards if PICTURED[c] is not None]
            mine = [t for t in pictured if t is not None and self.owner[t] == seat]
            if mine and bonus_left:
                self.armies[mine[0]] += 2
                bonus_left = False
            self.actions += 1
        return gained

    def blitz(self, seat: int, source: str, target: str) -> bool:
        armies, rng = self.armies, self.rng
        while armies[source] > 1:
            dice = min(3, armies[source] - 1)
            attack = sorted((rng.randint(1, 6) for _ in range(dice)), reverse=True)
            defend = sorted(
                (rng.randint(1, 6) for _ in range(min(2, armies[target]))), reverse=True
            )
            for a, d in zip(attack, defend, strict=False):
                if a > d:
                    armies[target] -= 1
                else:
                    armies[source] -= 1
            if armies[target] == 0:
                self.conquer(seat, source, target)
                return True
        return False

    def conquer(self, seat: int, source: str, target: str) -> None:
        loser = self.owner[target]
        self.owner[target] = seat
        moved = self.armies[source] - 1  # the random bot moves every army it may
        self.armies[target], self.armies[source] = moved, 1
        self.actions += 1
        if loser not in self.owner.values():
            self.hands[seat] += self.hands[loser]
            self.hands[loser] = []
            if len(self.hands[seat]) >= 6:
                extra = self.trade_all(seat, bonus_left=False)
                self.armies[self.rng.choice(self.borders(seat))] += extra
                self.actions += 1

    def fortify(self, seat: int) -> None:
        moves = [
            (source, target)
            for source in self.held(seat)
            if self.armies[source] > 1
            for target in NEIGHBOURS[source]
            if self.owner[target] == seat
        ]
        pick = self.rng.randrange(len(moves) + 1)  # uniform, ending the turn included
        self.actions += 1
        if pick < len(moves):
            source, target = moves[pick]
            count = self.rng.randint(1, self.armies[source] - 1)
            self.armies[source] -= count
            self.armies[target] += count
            self.actions += 1  # then the end of the turn

    def draw(self, seat: int) -> None:
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
        if self.deck:
            self.hands[seat].append(self.deck.pop())


def play(seed: int) -> Game:
    game = Game(4, random.Random(seed))
    seat = game.set_up()
    while len(set(game.owner.values())) > 1:
        if seat in game.owner.values():
            game.play_turn(seat)
        seat = (seat + 1) % len(game.players)
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    started = time.perf_counter()
    actions = turns = 0
    for seed in range(args.games):
        game = play(seed)
        actions += game.actions
        turns += game.turns
    elapsed = time.perf_counter() - started
    result = {
        "benchmark": "minimal",
        "python": platform.python_version(),
        "games": args.games,
        "games_per_second": round(args.games / elapsed, 1),
        "mean_actions_per_game": round(actions / args.games, 1),
        "mean_turns_per_game": round(turns / args.games, 1),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
