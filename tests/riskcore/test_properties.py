"""Random legal play keeps the rules' invariants.

Property tests (hypothesis): random legal play keeps the invariants (armies ≥ 1
per territory, armies conserved except by reinforcement and battle losses, cards
conserved, exactly one winner), and replaying the events gives the same state.
From the books: 001_c708159c204162c3.txt: "Minst en armé måste alltid ockupera varje
territorium under spelet"; 003_281a902b564cb498.txt: "42 kaarten zijn gemarkeerd met
een territorium ... twee “wild” kaarten"; 004_780a86783e2219ae.txt: "Fortsett spille
til en spiller eliminerer alle motstandere".
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from riskcore.engine.decide import decide, execute
from riskcore.engine.evolve import apply, fold
from riskcore.engine.legal import legal_actions
from riskcore.engine.snapshot import decode_state, encode_state
from riskcore.errors import MalformedCommand, RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import FINISHED, OCCUPY, SETUP_CLAIM, SETUP_PLACE, State
from riskcore.modes import adventure
from riskcore.protocol import events as ev
from riskcore.protocol.codec import event_from_dict, event_to_dict
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from tests.riskcore.helpers import ALL_CARDS, Policy, new, step
from tests.strategies import command_bodies, game_configs, seeds

EXAMPLES = settings(max_examples=40, deadline=None)


def total_armies(state: State) -> int:
    return sum(state.armies.values())


def expected_change(event: ev.Event) -> int:
    """Armies enter the board only by placement (and the trade bonus) and leave it only by
    battle losses; every other event moves or counts nothing."""
    if isinstance(event, ev.TerritoryClaimed):
        return 1
    if isinstance(event, ev.TerritoriesDealt):
        return len(event.owners)
    if isinstance(event, ev.ArmiesPlaced):
        return event.count
    if isinstance(event, ev.CardsTraded):
        return event.bonus_armies
    if isinstance(event, ev.BattleResolved):
        return -(event.attacker_losses + event.defender_losses)
    if isinstance(event, adventure.AdventurePlayed | adventure.AdventureMissionClaimed):
        # Adventure cards (Lord of the Rings): armies their facts say came or went.
        return sum(delta for _, _, delta in event.facts.get("changes", ()))
    if isinstance(event, adventure.AdventureUprisingRevealed):
        return event.armies  # Local uprising: its armies join the holder
    return 0


def check_invariants(state: State) -> None:
    """Every territory is occupied and controlled by whoever has most armies there
    (nobody on a tie, the team game; docs/rules.md); armies of one team only."""
    occupied = state.occupation.target if state.phase == OCCUPY and state.occupation else None
    for territory, holder in state.owner.items():
        stacks = {p: n for (t, p), n in state.armies.items() if t == territory and n > 0}
        if territory == occupied:
            assert not stacks
            continue
        assert stacks, (territory, holder, state.summary())
        most = max(stacks.values())
        leaders = [p for p, n in stacks.items() if n == most]
        assert holder == (leaders[0] if len(leaders) == 1 else None), (territory, stacks)
        assert (len(stacks) > 1) == (territory in state.shared), (territory, stacks)
        assert len({state.seats[p].team or p for p in stacks}) == 1, (territory, stacks)
    assert all(n >= 0 for n in state.armies.values())
    cards = state.deck + state.discard + [c for hand in state.hands.values() for c in hand]
    assert sorted(cards) == list(ALL_CARDS), state.summary()
    if adventure.plays(state) and state.adventure_hands:  # dealt: each card somewhere
        data = state.mode_data
        held = [n for hand in state.adventure_hands.values() for n in hand]
        played = [n for cards in data.get("adventure_played", {}).values() for n in cards]
        every = state.adventure_deck + held + played + data.get("adventure_discard", [])
        assert sorted(every) == adventure.deck_of(state).numbers(), state.summary()
        assert all(len(hand) <= adventure.HAND_LIMIT + 1 for hand in state.adventure_hands.values())
    if state.phase not in (SETUP_CLAIM, SETUP_PLACE, FINISHED):  # (resigning ends setups)
        assert len(state.owner) == len(state.board.territory_names)
    if state.phase != FINISHED:
        assert state.winner is None


@EXAMPLES
@given(
    config=game_configs(),
    seed=seeds,
    play=st.integers(min_value=0, max_value=2**32 - 1),
    resign=st.sampled_from([0.0, 0.0, 0.002]),
)
def test_random_legal_play_keeps_the_invariants(
    config: tuple[str, int, RuleSet], seed: bytes, play: int, resign: float
) -> None:
    """001_c708159c204162c3.txt: "Minst en armé måste alltid ockupera varje territorium under
    spelet"; 003_281a902b564cb498.txt: "42 kaarten ... twee “wild” kaarten" (44, always
    somewhere); 004_780a86783e2219ae.txt: "til en spiller eliminerer alle motstandere" (one
    winner). Armies change only by placement and battle losses. In every game mode."""
    mode, n, rules = config
    game = new(n, rules, seed=seed, mode=mode)
    rnd, policy = random.Random(play), Policy(resign=resign)
    shadow = game.state.copy()  # follows event by event
    check_invariants(shadow)
    while game.state.phase != FINISHED:
        assert game.state.version < 80_000, game.state.summary()
        for event in step(game, rnd, policy):
            before = total_armies(shadow)
            apply(shadow, event)
            assert total_armies(shadow) - before == expected_change(event), event
        # Between the events of one command a territory may stand empty for a moment
        # (a battle's losses, then the conquest); the rules hold between commands.
        check_invariants(game.state)
    assert shadow == game.state
    finished = [e for e in game.events if isinstance(e, ev.GameFinished)]
    assert finished == [game.events[-1]]
    winner = game.state.winner
    winners = game.state.winners
    if not winners:  # 002: the last player, with the neutral still standing, gave up
        players = [s for s in game.state.order if game.state.seats[s].kind == "player"]
        assert game.state.rules.neutrals_must_fall and all(s in game.state.out for s in players)
        assert finished[0].reason == "resignation"
        return
    assert all(game.state.seats[w].kind == "player" for w in winners)
    if winner is None:  # a team won (the team game): one player of the other is out
        team = {game.state.seats[w].team for w in winners}
        assert len(team) == 1 and None not in team
        losers = [s for s in game.state.order if s not in winners]
        assert any(s in game.state.out for s in losers)
        assert not any(w in game.state.out for w in winners)
    else:
        assert game.state.seats[winner].kind == "player" and winners == (winner,)
    # The end is the mode's outcome of the position it was decided in: the one before
    # the finish, whose seat on turn a mission of conquests this turn counts for
    # (the finish leaves no seat on turn).
    decided = fold(game.events[:-1])
    outcome = decided.mode.outcome(decided)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (winner, game.state.finish_reason)
    if winner is None:
        return
    if game.state.finish_reason not in ("conquest", "resignation"):
        return  # a mode's own way to win
    assert game.state.active_players() == [winner]
    others = [s for s in game.state.order if s != winner]
    assert all(s in game.state.out for s in others)
    if game.state.finish_reason == "conquest":
        assert all(game.state.out[s] == "eliminated" for s in others)
        if game.state.mode.name == "classic":
            assert set(game.state.owner.values()) == {winner}


@EXAMPLES
@given(config=game_configs(), seed=seeds, play=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_replay_and_snapshots_rebuild_the_same_state(
    config: tuple[str, int, RuleSet], seed: bytes, play: int, cut: float
) -> None:
    """Snapshots are a cache only (docs/store.md, "Snapshots"): loading one and folding the rest
    must give exactly the state of a fold from the first event (in every game mode)."""
    mode, n, rules = config
    game = new(n, rules, seed=seed, mode=mode)
    rnd, policy = random.Random(play), Policy()
    while game.state.phase != FINISHED:
        step(game, rnd, policy)
    assert fold(game.events) == game.state
    k = 1 + int(cut * (len(game.events) - 1))
    snapshot = decode_state(encode_state(fold(game.events[:k])))
    assert snapshot.version == k
    assert fold(game.events[k:], snapshot) == game.state


@settings(max_examples=150, deadline=None)
@given(body=command_bodies(), steps=st.integers(0, 300), play=st.integers(0, 2**16))
def test_any_command_body_is_parsed_or_refused_cleanly(
    body: dict[str, Any], steps: int, play: int
) -> None:
    """Whatever a client sends, the engine answers with a MalformedCommand or a
    RuleViolation (each with its code) or with events, and never with a crash."""
    game = new(4, seed=b"bodies")
    rnd = random.Random(play)
    for _ in range(steps):
        step(game, rnd, Policy())
    for seat in ("p1", "p2", "p9"):
        try:
            command = command_from_dict(body, seat)
            events = decide(game.state, command, game.rng())
        except MalformedCommand as error:
            assert error.code == "malformed_command"
        except RuleViolation as error:
            assert error.code and error.code != "risk_error"
        else:
            fold(events, game.state)


# The facts each event's version 1 left to the engine (see riskcore/protocol/legacy.py).
_V1_LEFT_OUT = {
    "order_rolled": ("next_phase", "setup_turn"),
    "territories_dealt": ("next_phase", "setup_turn"),
    "territory_claimed": ("next_phase", "setup_turn"),
    "armies_placed": ("next_phase", "setup_turn"),
    "territory_occupied": ("next_phase",),
    "phase_ended": ("next_phase",),
    "player_resigned": ("setup_turn",),
    "turn_started": ("trade_down_to", "phase"),
    "player_eliminated": ("trade_down_to",),
}


# Modes with a setup flow of their own, which never wrote version 1 events (whose flow
# the old engine derived): the test mode, the Middle-earth modes' deal by side, and the
# active neutrals' phases of bribes and allies.
NO_VERSION_1 = frozenset({"capitals", "middle_earth", "lotr", "two_player_active"})


def as_version_1(event: ev.Event) -> ev.Event:
    """The event as the engine before game modes wrote it, read back (upcast)."""
    data = event_to_dict(event)
    dropped = _V1_LEFT_OUT.get(data["type"])
    if dropped is None or data["type"] in ("game_created", "game_finished"):
        return event
    for key in dropped:
        data.pop(key)
    return event_from_dict({**data, "v": 1})


@EXAMPLES
@given(config=game_configs(), seed=seeds, play=st.integers(0, 2**32 - 1))
def test_deciding_in_place_and_folding_agree_even_when_anyone_resigns(
    config: tuple[str, int, RuleSet], seed: bytes, play: int
) -> None:
    """``execute`` (which completes some events' facts as it goes, ``Decision.amend``)
    leaves the state a fold of its events gives, command by command, whoever resigns
    whenever; and the same events as version 1 wrote them, their facts derived by the
    frozen old flow, give the same state too (classic and two-player records only)."""
    mode, n, rules = config
    game = new(n, rules, seed=seed, mode=mode)
    live = game.state
    folded = live.copy()
    old = fold([as_version_1(e) for e in game.events]) if mode not in NO_VERSION_1 else None
    rnd, policy = random.Random(play), Policy(wander=0.2)
    for _ in range(3000):
        if live.phase == FINISHED:
            break
        seat = live.mode.waiting_for(live)
        assert seat is not None
        if rnd.random() < 0.01:
            seat, body = (
                rnd.choice([s for s in live.order if s not in live.out]),
                {"type": "resign"},
            )
        else:
            body = policy.choose(live, seat, legal_actions(live, seat), rnd)
        rng = GameRng(seed, live.game_id, live.version, live.player_seeds)
        caused = execute(live, command_from_dict(body, seat), rng)
        for event in caused:
            apply(folded, event)
            if old is not None:
                apply(old, as_version_1(event))
        assert folded == live, (body, live.summary())
        if old is not None:
            assert old == live, (body, live.summary())
