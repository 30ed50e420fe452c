"""``decide`` and ``evolve``: purity, replay, determinism, and fair dice.

No rule book speaks of these; they are the engine's contract (docs/engine.md, "Commands, events,
decide and evolve"; docs/rules.md, "Fair dice") that every rule test above relies on.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import random
from collections import Counter

import pytest

from riskcore.engine.decide import decide, execute, new_game
from riskcore.engine.evolve import apply, evolve, fold
from riskcore.engine.legal import legal_actions
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.protocol.codec import encode_event
from riskcore.protocol.dice import GameRng, commitment
from riskcore.simulate import acting_seat
from tests.riskcore.helpers import (
    SEED,
    Game,
    Policy,
    new,
    play,
    players,
    random_command,
    set_up,
    step,
)

CONFIGS = [
    (3, RuleSet()),
    (4, RuleSet(defender_chooses_dice=True, fortify="connected")),
    (2, RuleSet(defender_chooses_dice=True)),
    (5, RuleSet(setup="deal", card_values="fixed", elimination_trade_threshold=5)),
]


# Purity -------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_a_refused_command_changes_nothing_and_an_accepted_one_mutates_nothing(
    n: int, rules: RuleSet
) -> None:
    """``decide``: "the state passed in is never modified"; ``execute``: "A rejected
    command raises before any change"."""
    rnd = random.Random(n)
    game = new(n, rules, seed=b"purity %d" % n)
    refused = accepted = 0
    policy = Policy()
    while game.state.phase != "finished" and refused < 400:
        for _ in range(3):
            command = random_command(game.state, rnd)
            before = copy.deepcopy(game.state)
            try:
                events = decide(game.state, command, game.rng())
            except RuleViolation as refusal:
                refused += 1
                assert refusal.code and refusal.message
                assert game.state == before
                with pytest.raises(RuleViolation) as again:
                    execute(game.state, command, game.rng())
                assert again.value.code == refusal.code
                assert game.state == before
            else:
                accepted += 1
                assert game.state == before
                assert fold(events, game.state) == _executed(game, command)
        step(game, rnd, policy)
    assert refused >= 400 and accepted > 0


def _executed(game: Game, command: cmd.Command) -> object:
    state = game.state.copy()
    execute(state, command, game.rng())
    return state


def test_evolve_never_validates_and_never_touches_its_input() -> None:
    """``evolve(state, event)`` applies one event and never validates (docs/engine.md, "Commands,
    events, decide and evolve"): it applies facts even where ``decide`` would have refused them."""
    game = set_up(3)
    state = game.state
    before = copy.deepcopy(state)
    odd = ev.ArmiesPlaced(seat="p2", player="p3", territory="alaska", count=1000)
    after = evolve(state, odd)
    assert state == before
    assert after.version == state.version + 1
    assert after.armies[("alaska", "p3")] == state.armies.get(("alaska", "p3"), 0) + 1000
    assert after.reserve["p3"] == state.reserve["p3"] - 1000  # negative: not its concern
    claimed = evolve(after, ev.TerritoryClaimed(seat="p1", territory="alaska"))
    assert claimed.armies[("alaska", "p1")] == state.armies.get(("alaska", "p1"), 0) + 1


def test_fold_rejects_a_stream_that_does_not_start_with_game_created() -> None:
    """State is the fold of the events from the initial state, which the first event makes."""
    game = set_up(3)
    with pytest.raises(ValueError, match="game_created"):
        fold(game.events[1:])


# Replay -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "rules"), CONFIGS)
def test_folding_the_events_rebuilds_the_live_state(n: int, rules: RuleSet) -> None:
    """The state at version n is the fold of the first n events."""
    game = new(n, rules, seed=b"replay %d" % n)
    play(game, random.Random(n))
    assert game.state.phase == "finished"
    assert fold(game.events) == game.state
    assert game.state.version == len(game.events)
    middle = len(game.events) // 2
    assert fold(game.events[middle:], fold(game.events[:middle])) == game.state
    partial = fold(game.events[:middle])
    assert partial.version == middle
    assert fold(game.events[: middle + 1]) == evolve(partial, game.events[middle])


def test_execute_and_decide_make_the_same_events() -> None:
    """``execute`` is ``decide`` applied in place: same rules, same generator."""
    by_decide = new(4, seed=b"same")
    by_execute = new(4, seed=b"same")
    rnd_a, rnd_b = random.Random(5), random.Random(5)
    policy_a, policy_b = Policy(), Policy()
    for _ in range(600):
        if by_decide.state.phase == "finished":
            break
        step(by_decide, rnd_a, policy_a)
        seat = acting_seat(by_execute.state)
        assert seat is not None
        body = policy_b.choose(by_execute.state, seat, legal_actions(by_execute.state, seat), rnd_b)
        command = cmd.command_from_dict(body, seat)
        by_execute.events += execute(by_execute.state, command, by_execute.rng())
    assert by_execute.events == by_decide.events
    assert by_execute.state == by_decide.state


# Determinism ------------------------------------------------------------------------------


def test_the_generator_is_a_function_of_seed_game_version_and_player_seeds() -> None:
    """A deterministic generator keyed by the server seed: HMAC-SHA256 over the game id,
    the version and a counter, mixed with the players' seeds (docs/rules.md, "Fair dice")."""

    def draws(rng: GameRng) -> list[int]:
        return [rng.below(1000) for _ in range(50)]

    base = draws(GameRng(SEED, "g", 7))
    assert draws(GameRng(SEED, "g", 7)) == base
    assert draws(GameRng(SEED, "g", 7, {})) == base
    assert draws(GameRng(b"other", "g", 7)) != base
    assert draws(GameRng(SEED, "h", 7)) != base
    assert draws(GameRng(SEED, "g", 8)) != base
    assert draws(GameRng(SEED, "g", 7, {"p1": "ab"})) != base
    assert draws(GameRng(SEED, "g", 7, {"p1": "ab", "p2": "cd"})) == draws(
        GameRng(SEED, "g", 7, {"p2": "cd", "p1": "ab"})
    )


@pytest.mark.parametrize("key_length", [0, 1, 32, 64, 65, 200])
def test_the_blocks_are_hmac_sha256_of_the_documented_message(key_length: int) -> None:
    """The generator's own HMAC (riskcore.protocol.dice, pads made once per seed) gives
    ``hmac.digest``'s bytes for keys shorter and longer than SHA-256's block."""
    seed = bytes(range(key_length % 256)) * (1 + key_length // 256)
    seed = seed[:key_length]
    rng = GameRng(seed, "g", 7, {"p2": "cd", "p1": "ab"})
    first = bytes(rng._byte() for _ in range(32))
    second = bytes(rng._byte() for _ in range(32))
    for block, got in enumerate((first, second)):
        message = b"risk/v1\x1fg\x1f7\x1f%d\x1fp1=ab,p2=cd" % block
        assert got == hmac.digest(seed, message, "sha256")


def test_the_same_seed_plays_the_same_game() -> None:
    """Folding the same events always rebuilds the same state, and the same
    seed and commands always decide the same events."""

    def played(seed: bytes) -> list[ev.Event]:
        game = new(4, seed=seed)
        play(game, random.Random(1))
        return game.events

    assert played(b"one") == played(b"one")
    assert played(b"one") != played(b"two")


def test_player_seeds_change_the_opening() -> None:
    """Players may add their own seed when they join, and it is mixed in (docs/rules.md, "Fair
    dice")."""
    a = new_game(game_id="g", players=players(4), seed=SEED)
    b = new_game(game_id="g", players=players(4), seed=SEED, player_seeds={"p1": "00ff"})
    assert a[0] != b[0]  # the created event records them
    assert isinstance(b[0], ev.GameCreated) and b[0].player_seeds == {"p1": "00ff"}


# Fair dice ----------------------------------------------------------------------------------


class ByteStream(GameRng):
    """A generator fed the given bytes instead of HMAC blocks."""

    def __init__(self, data: bytes) -> None:
        super().__init__(b"unused", "g", 0)
        self._chunks = [data]

    def _refill(self) -> None:
        if not self._chunks:
            raise EOFError("byte stream used up")
        self._buffer = self._chunks.pop(0)
        self._offset = 0


def test_each_die_face_comes_from_exactly_42_of_the_256_byte_values() -> None:
    """Dice are rejection-sampled to 1..6 (docs/rules.md, "Fair dice"): bytes 252-255 are thrown
    away, so each face has probability exactly 42/252 = 1/6, by ``die`` and by the inlined ``dice``
    alike."""
    faces: Counter[int] = Counter()
    rng = ByteStream(bytes(range(256)))
    for _ in range(252):
        faces[rng.die()] += 1
    assert faces == {face: 42 for face in range(1, 7)}
    with pytest.raises(EOFError):
        rng.die()  # the last four bytes were rejected, none is left
    rolled = ByteStream(bytes(range(256))).dice(252)
    assert Counter(rolled) == {face: 42 for face in range(1, 7)}
    assert list(rolled) == sorted(rolled, reverse=True)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 42, 43, 44, 100, 255, 256])
def test_below_is_exactly_uniform_over_the_accepted_bytes(n: int) -> None:
    """Rejection sampling: every value below n from exactly as many bytes."""
    limit = 256 - 256 % n
    rng = ByteStream(bytes(range(256)))
    counts = Counter(rng.below(n) for _ in range(limit))
    assert counts == {k: limit // n for k in range(n)}


def test_below_rejects_words_at_or_above_the_limit_for_large_ranges() -> None:
    """Rejection sampling: four-byte words at or above the last multiple of n
    are thrown away."""
    n = 1000
    limit = 2**32 - 2**32 % n
    words = [limit, 2**32 - 1, limit - 1]
    rng = ByteStream(b"".join(w.to_bytes(4, "big") for w in words))
    assert rng.below(n) == (limit - 1) % n


def test_below_refuses_an_empty_range() -> None:
    """Errors name the offending value; ``below(0)`` has no answer."""
    with pytest.raises(ValueError):
        GameRng(SEED, "g", 0).below(0)


def test_real_dice_and_shuffles_are_close_to_uniform() -> None:
    """A fixed-seed check (deterministic, so it cannot flake) that nothing skews the real
    stream: 60,000 dice and 6,000 shuffles of three cards."""
    dice: Counter[int] = Counter()
    for version in range(1000):
        dice.update(GameRng(SEED, "fair", version).dice(60))
    assert all(abs(count - 10_000) < 400 for count in dice.values()), dice
    perms: Counter[tuple[int, ...]] = Counter()
    for version in range(6000):
        items = [0, 1, 2]
        GameRng(SEED, "shuffle", version).shuffle(items)
        perms[tuple(items)] += 1
    assert len(perms) == 6
    assert all(abs(count - 1000) < 130 for count in perms.values()), perms


# The seed commitment -----------------------------------------------------------------------


def test_the_first_event_commits_to_the_seed_and_only_the_last_reveals_it() -> None:
    """The first event carries the seed's SHA-256 commitment; when the game ends the seed is
    revealed in the final event, and anyone holding the record can check the commitment
    (docs/rules.md, "Fair dice")."""
    seed = bytes(range(32))
    game = new(3, seed=seed)
    play(game, random.Random(3))
    created, finished = game.events[0], game.events[-1]
    assert isinstance(created, ev.GameCreated) and isinstance(finished, ev.GameFinished)
    assert created.seed_commitment == hashlib.sha256(seed).hexdigest() == commitment(seed)
    assert finished.seed == seed.hex()
    assert hashlib.sha256(bytes.fromhex(finished.seed)).hexdigest() == created.seed_commitment
    for event in game.events[:-1]:
        wire = encode_event(event)
        assert seed.hex().encode() not in wire
        assert seed not in wire
    assert game.state.revealed_seed == seed.hex()
    assert fold(game.events[:-1]).revealed_seed is None


def test_the_seed_is_revealed_however_the_game_ends() -> None:
    """When the game ends, the seed is revealed in the final event (docs/rules.md, "Fair dice")."""
    game = set_up(3)
    game.do(cmd.Resign(seat="p2"))
    (*_, finished) = game.do(cmd.Resign(seat="p3"))
    assert finished == ev.GameFinished(
        winner="p1", reason="resignation", seed=SEED.hex(), winners=("p1",)
    )


def test_version_counts_events() -> None:
    """The state at version n is the fold of the first n events."""
    game = set_up(3)
    assert game.state.version == len(game.events)
    game.place_all()
    assert game.state.phase == ATTACK
    assert game.state.version == len(game.events)
    apply(game.state, ev.TurnEnded(seat="p1"))
    assert game.state.version == len(game.events) + 1
