"""The strong bot's search budget (issue 19; docs/bots.md, "strong"): where a turn's
rollouts go. Placing reinforcements may take its own part of a turn's budget and
its own number of candidates; the phases searched are a setting. Strength is
measured by ``bench/bots.py`` (docs/bots.md), not asserted here."""

from __future__ import annotations

import random
from typing import Any

import pytest

from riskcore.bots import get_bot
from riskcore.bots.evaluate import evaluate, strengths
from riskcore.bots.heuristic import HeuristicPolicy, Params
from riskcore.bots.strong import (
    SearchConfig,
    StrongBot,
    TurnBudget,
    candidates,
    claim,
    eliminations,
    fortify_options,
    hunt_bases,
    hunt_options,
    score,
)
from riskcore.engine.decide import execute, new_game
from riskcore.engine.evolve import fold
from riskcore.engine.legal import legal_actions
from riskcore.model.state import ATTACK, FORTIFY, OCCUPY, REINFORCE, SETUP_CLAIM, State
from riskcore.protocol.commands import command_from_dict
from riskcore.protocol.dice import GameRng
from riskcore.simulate import play_game
from riskcore.views.seatview import SeatView
from tests.riskcore.test_bots import _midgame, _placing


def test_a_decisions_part_of_the_turn_sets_its_rollouts() -> None:
    """Of 160 rollouts a turn and 4 options, a 0.6 part buys 24 an option; 0.35
    buys 14; the per-decision cap (``iterations``, or the placing's own) binds."""
    config = SearchConfig(turn_rollouts=160, iterations=64)
    assert TurnBudget().iterations(config, 4, 0.6) == 24
    assert TurnBudget().iterations(config, 4, 0.35) == 14
    per_turn = SearchConfig(turn_rollouts=160)
    assert TurnBudget().iterations(per_turn, 4, 0.6) == 16
    assert TurnBudget().iterations(per_turn, 4, 0.6, 64) == 24


def _heuristic_choice(state: State) -> tuple[SeatView, HeuristicPolicy, dict[str, Any]]:
    """The seat to move's view, the heuristic, and the heuristic's choice there."""
    seat = state.current
    assert seat is not None
    view = SeatView(state, seat)
    policy = HeuristicPolicy()
    return view, policy, policy.body(view)


def test_placing_takes_its_own_number_of_candidates() -> None:
    view, policy, chosen = _heuristic_choice(_placing(_midgame(b"clock")))
    assert chosen["type"] == "place_armies"
    three = candidates(policy, view, chosen, SearchConfig(place_candidates=None))
    four = candidates(policy, view, chosen, SearchConfig(place_candidates=4))
    assert len(three) == 3 and len(four) == 4
    assert four[:3] == three and all(o["type"] == "place_armies" for o in four)
    only_attacks = SearchConfig(searched=frozenset({ATTACK}))
    assert candidates(policy, view, chosen, only_attacks) == [chosen]


def test_the_number_of_candidates_is_an_option() -> None:
    """``candidates``: the options a searched decision weighs (a level with time to
    spare may weigh more of the heuristic's runners-up); 1 searches nothing."""
    view, policy, chosen = _heuristic_choice(_placing(_midgame(b"clock")))
    five = get_bot("strong", {"candidates": 5})
    assert isinstance(five, StrongBot) and five.config.candidates == 5
    weighed = candidates(policy, view, chosen, five.config)
    three = candidates(policy, view, chosen, SearchConfig())
    assert len(weighed) > len(three) == 3 and weighed[:3] == three  # (this seat has 4 bases)
    one = get_bot("strong", {"candidates": 1})
    assert candidates(policy, view, chosen, one.config) == [chosen]  # type: ignore[attr-defined]
    for wrong in (0, 2.5, "3", True):
        with pytest.raises(ValueError, match="candidates"):
            get_bot("strong", {"candidates": wrong})


def test_the_missions_share_of_the_score_is_an_option() -> None:
    """``mission``: the part of a rollout's score that is the seat's progress along its
    own missions (``evaluate``, tested in test_mission_progress.py); off by default."""
    bot = get_bot("strong", {"mission": 0.5})
    assert isinstance(bot, StrongBot) and bot.config.weights.mission == 0.5
    assert get_bot("strong").config.weights.mission == 0.0  # type: ignore[attr-defined]
    for wrong in (-0.1, 1.5, "0.5", True):
        with pytest.raises(ValueError, match="mission"):
            get_bot("strong", {"mission": wrong})


class PhaseRollouts(StrongBot):
    """Counts the rollouts spent on each phase's decisions."""

    def __init__(self, config: SearchConfig) -> None:
        super().__init__(config)
        self.spent: dict[str, int] = {}

    def choose(self, view: SeatView, actions: Any, rng: random.Random) -> dict[str, Any]:
        before = self.budget.rollouts if view.turn == self.budget.turn else 0
        body = super().choose(view, actions, rng)
        if view.current == view.seat:
            self.spent[view.phase] = self.spent.get(view.phase, 0) + self.budget.rollouts - before
        return body


def test_only_the_phases_named_are_searched() -> None:
    bot = PhaseRollouts(SearchConfig(turn_rollouts=24, searched=frozenset({REINFORCE})))
    play_game([bot, get_bot("heuristic"), get_bot("heuristic")], seed=b"phases", game_id="ph")
    assert bot.spent.get(REINFORCE, 0) > 0
    assert bot.spent.get(ATTACK, 0) == 0 and bot.spent.get(OCCUPY, 0) == 0


def _fortifying(seed: bytes) -> State:
    """The first position of a heuristic game where the seat to move fortifies
    and the heuristic would move armies (a decision with alternatives)."""
    from riskcore.engine.evolve import apply

    result = play_game([get_bot("heuristic") for _ in range(3)], seed=seed, game_id="fo")
    state = fold(result.events[:1])
    for event in result.events[1:]:
        apply(state, event)
        seat = state.current
        if state.phase == FORTIFY and seat is not None:
            chosen = HeuristicPolicy().body(SeatView(state, seat))
            if chosen["type"] == "fortify":
                return state
    raise AssertionError("no fortify in the game")


def test_the_fortify_is_searched_only_when_named() -> None:
    """The alternatives to the heuristic's fortify are not moving and its best
    moves to other borders, one a border; the plain ``strong`` bot keeps the
    heuristic's fortify (``SEARCHED_BY_DEFAULT``), ``hard`` names the phase."""
    view, policy, chosen = _heuristic_choice(_fortifying(b"fortify"))
    options = candidates(policy, view, chosen, SearchConfig(searched=frozenset({FORTIFY})))
    assert options[0] == chosen and {"type": "end_phase"} in options
    moves = [o for o in options if o["type"] == "fortify"]
    assert len({m["target"] for m in moves}) == len(moves)
    assert all(m in fortify_options(view) for m in options[1:])
    assert candidates(policy, view, chosen, SearchConfig()) == [chosen]
    assert FORTIFY in get_bot("strong", {"searched": ["fortify"]}).config.searched


def test_a_searched_fortify_spends_rollouts() -> None:
    bot = PhaseRollouts(SearchConfig(turn_rollouts=24, searched=frozenset({FORTIFY})))
    play_game([bot, get_bot("heuristic"), get_bot("heuristic")], seed=b"phases", game_id="ph")
    assert bot.spent.get(FORTIFY, 0) > 0 and bot.spent.get(REINFORCE, 0) == 0


def test_rounds_play_a_rollout_past_the_next_own_turn() -> None:
    """``rounds=1`` rolls out one more round: it ends where the seat's second turn
    after this one begins, ``rounds=0`` where the next one does. Three players
    are in (in the duel of ``b"clock"`` the heuristic may win within the rollout)."""
    state = _placing(_midgame(b"mid"))
    seat = state.current
    assert seat is not None
    first = HeuristicPolicy().body(SeatView(state, seat))
    ends = []
    for rounds in (0, 1):
        world = state.copy()
        StrongBot(SearchConfig(rounds=rounds)).rollout(world, seat, first, b"r" * 8)
        assert world.current == seat and world.phase == REINFORCE
        ends.append(world.turn)
    assert state.turn < ends[0] < ends[1]


def test_power_sharpens_the_share() -> None:
    """Power 1 is ``evaluate``; power 2 is the share of the squared strengths;
    ``versus="leader"`` weighs the seat's strength against the strongest rival's."""
    state = _midgame(b"mid")  # three players in: the leader is not all the rivals
    seat = state.current
    assert seat is not None and len(state.active_players()) == 3
    plain = score(state, seat, SearchConfig())
    assert plain == evaluate(state, seat)
    values = strengths(state)
    squared = values[seat] ** 2 / sum(v**2 for v in values.values())
    assert score(state, seat, SearchConfig(power=2.0)) == pytest.approx(squared)
    leader = max(v for p, v in values.items() if p != seat)
    versus = score(state, seat, SearchConfig(versus="leader"))
    assert versus == pytest.approx(values[seat] / (values[seat] + leader))
    assert versus > plain


def test_hunting_searches_an_attack_on_a_small_rival() -> None:
    """``hunt``: the all-out attack likeliest to win on a rival with that many
    territories or fewer, from the biggest own stack next to it; none when no
    rival is that small, and none in a duel (the heuristic plays for the end there)."""
    state = _midgame(b"mid").copy()
    seat = state.current
    assert seat is not None and len(state.active_players()) == 3
    board, owner = state.board, state.owner
    base, target = next(
        (t, n)
        for t in board.territory_names
        if owner[t] == seat
        for n in board.territory_names
        if owner[n] not in (seat, None) and board.adjacent(t, n)
    )
    state.gain(base, seat, 60)  # a stack that wins there
    view = SeatView(state, seat)
    assert hunt_options(view, 0) == []
    small = sum(1 for t in board.territory_names if owner[t] == owner[target])
    found = hunt_options(view, small)
    assert len(found) == 1
    attack = found[0]
    assert attack["type"] == "blitz" and attack["stop_at"] == 1
    assert attack["source"] == base or state.troops(attack["source"]) >= state.troops(base)
    assert owner[attack["target"]] not in (seat, None)
    duel = _midgame(b"duel-11")  # a duel (two players left)
    assert duel.current is not None and len(duel.active_players()) == 2
    assert hunt_options(SeatView(duel, duel.current), len(board.territory_names)) == []


def test_the_three_player_levers_are_bot_options() -> None:
    bot = get_bot("strong", {"rounds": 1, "power": 2, "versus": "leader", "hunt": 4})
    assert isinstance(bot, StrongBot)
    config = bot.config
    assert (config.rounds, config.power, config.versus, config.hunt) == (1, 2.0, "leader", 4)
    for bad in ({"rounds": -1}, {"power": 0}, {"versus": "all-out"}, {"hunt": "4"}):
        with pytest.raises(ValueError):
            get_bot("strong", bad)


def test_rollouts_claim_the_seats_own_done_missions() -> None:
    """The mission game: a rollout claims a done mission as the bots do (the policy
    alone never claimed, so no rollout won by missions). p1 holds Australia (C2) with
    its other three claimed: the rollout's first free command claims it and wins."""
    from tests.riskcore.helpers import continent, split
    from tests.riskcore.test_mission_game import OTHERS, game_with

    owners = split({"p1": continent("australia"), "p3": continent("africa")}, "p2")
    last = game_with(
        owners, {"p1": ["C2", "J2", "O2", "G2"], **OTHERS}, claimed={"p1": ["J2", "O2", "G2"]}
    )
    view = SeatView(last.state, "p1")
    world = view.determinize(random.Random(1))
    assert claim(world, "p1") == {"type": "claim_mission", "card": "C2"}
    assert claim(world, "p2") is None  # a rival's missions are not in the world
    bot = StrongBot(SearchConfig())
    first = bot.policy.body(view)
    assert first["type"] == "place_armies"
    assert bot.rollout(world.copy(), "p1", first, b"seed") == 1.0


def test_the_race_counts_eliminations_in_a_rollout() -> None:
    """``race``: +1 for each rival the seat put out, -1 for each rival a rival put out."""
    state = _midgame(b"mid").copy()
    seat = state.current
    assert seat is not None
    rival, third = [p for p in state.active_players() if p != seat][:2]
    state.out[rival] = "eliminated"
    assert eliminations(state, seat, seat, 0) == 1
    assert eliminations(state, seat, third, 0) == -1
    assert eliminations(state, seat, seat, 1) == 0
    bot = get_bot("strong", {"race": 0.2})
    assert isinstance(bot, StrongBot) and bot.config.race == 0.2
    for bad in ({"race": -0.1}, {"race": 2}, {"race": "high"}, {"race": True}):
        with pytest.raises(ValueError):
            get_bot("strong", bad)


def test_hunting_places_next_to_the_smallest_rival() -> None:
    """``hunt`` also offers, at placing, every reinforcement on the biggest own stack
    next to a rival of that many territories or fewer (three players or more)."""
    duel = _placing(_midgame(b"duel-11"))  # a duel
    assert duel.current is not None and len(duel.active_players()) == 2
    assert hunt_bases(SeatView(duel, duel.current), 42) == []
    state = _placing(_midgame(b"mid"))
    seat = state.current
    assert seat is not None and len(state.active_players()) == 3
    view = SeatView(state, seat)
    assert hunt_bases(view, 0) == []
    found = hunt_bases(view, 42)
    assert len(found) == 1 and found[0]["count"] == view.reserve()
    base = found[0]["territory"]
    assert state.owner[base] == seat
    policy = HeuristicPolicy()
    chosen = policy.body(view)
    if chosen != found[0]:
        assert candidates(policy, view, chosen, SearchConfig(hunt=42))[1] == found[0]


# Claims (the setup) ----------------------------------------------------------------


def _claiming(seed: bytes, players: int = 3) -> State:
    """A classic game at its first claim."""
    state = fold(new_game(game_id="claims", players=["b"] * players, seed=seed, board=None))
    assert state.phase == SETUP_CLAIM
    return state


def test_claim_options_are_the_heuristics_claim_and_one_a_continent() -> None:
    """docs/rules.md, "Setup": players claim a free territory in turn;
    the options are free territories, the heuristic's first, at most one of each
    continent, so each is a different plan and not a neighbour of the same one."""
    state = _claiming(b"claim-options")
    view, policy, chosen = _heuristic_choice(state)
    options = candidates(policy, view, chosen, SearchConfig())
    assert options[0] == chosen and len(options) == 6  # six continents, all free
    group_of = {t: g.name for g in state.board.groups for t in g.territories}
    groups = [group_of[o["territory"]] for o in options]
    assert len(set(groups)) == len(groups)
    assert candidates(policy, view, chosen, SearchConfig(claim_candidates=3)) == options[:3]
    no_claims = SearchConfig(searched=frozenset({REINFORCE, ATTACK, OCCUPY}))
    assert candidates(policy, view, chosen, no_claims) == [chosen]


def test_a_rollout_from_the_setup_plays_rounds_past_the_first_turn() -> None:
    """A claim shows in the game only once the setup is over: its rollouts play
    the rest of the setup and ``setup_rounds`` own turns past the seat's first.
    The first to claim plays first (docs/rules.md, "Setup"), turn 1; with three players
    its next turns are 4 and 7."""
    state = _claiming(b"claim-rollout")
    seat = state.current
    assert seat is not None and seat == state.order[0]
    first = {"type": "claim_territory", "territory": "indonesia"}
    for rounds in (0, 1, 2):
        world = state.copy()
        # (a horizon counts rivals' turns after an own one: none in the setup)
        config = SearchConfig(setup_rounds=rounds, horizon=1)
        StrongBot(config).rollout(world, seat, first, b"dice")
        if rounds == 0:  # no battle yet: the claim stands
            assert world.owner["indonesia"] == seat
        assert not world.out  # nobody out this early: the turns count as planned
        assert (world.current, world.phase, world.turn) == (seat, REINFORCE, 1 + 3 * rounds)


def test_each_claim_has_a_budget_of_its_own() -> None:
    """The setup is turn 0 for every claim; each claim is budgeted as a turn of its
    own (its three rounds of options are all it spends, not added to what the
    last claim spent) and plays each option out ``claim_iterations`` times."""
    state = _claiming(b"claim-budget")
    seat = state.current
    assert seat is not None
    bot = StrongBot(SearchConfig(turn_rollouts=1000, claim_iterations=3))
    for claim_round in range(3):
        view = SeatView(state, seat)
        options = candidates(bot.policy, view, bot.policy.body(view), bot.config)
        body = bot.choose(view, legal_actions(state, seat), random.Random(1))
        assert bot.budget.rollouts == 3 * len(options), f"claim {claim_round + 1}"
        execute(state, command_from_dict(body, seat), GameRng(b"s", "claims", state.version))
        for _ in range(2):  # the two rivals claim
            rival = state.current
            assert rival is not None and rival != seat
            rival_body = HeuristicPolicy().body(SeatView(state, rival))
            execute(state, command_from_dict(rival_body, rival), GameRng(b"s", "c", state.version))


def test_searched_claims_beat_the_heuristics_setup() -> None:
    """Three heuristic bots claim the same way every game, and the second to claim
    won 9 of 100 (seeds claims-0 to claims-99). The strong bot searching its
    claims alone (every other decision the heuristic's) from that seat won 28 of
    seeds claims-0 to claims-39, where the heuristic won 4; this is such a game."""
    heuristic_only = [get_bot("heuristic") for _ in range(3)]
    searching = StrongBot(SearchConfig(searched=frozenset({SETUP_CLAIM}), iterations=4))
    for seed in (b"claims-7",):
        plain = play_game(heuristic_only, seed=seed, game_id="claims")
        second_claimer = _claiming(seed).order[1]
        assert plain.winner != second_claimer
        bots = [get_bot("heuristic") for _ in range(3)]
        bots[int(second_claimer[1:]) - 1] = searching
        assert play_game(bots, seed=seed, game_id="claims").winner == second_claimer


def test_unsearched_claims_are_the_heuristics() -> None:
    """``claims: false``: the strong bot claims as the heuristic does, no rollout spent
    (docs/bots.md, "Sixth round": measured against searching them at ``medium``)."""
    state = _claiming(b"claim-budget")
    seat = state.current
    assert seat is not None
    bot = get_bot("strong", {"claims": False, "iterations": 4})
    assert isinstance(bot, StrongBot)
    view = SeatView(state, seat)
    body = bot.choose(view, legal_actions(state, seat), random.Random(1))
    assert body == HeuristicPolicy().body(view)
    assert bot.budget.rollouts == 0
    with pytest.raises(ValueError):
        get_bot("strong", {"claims": "no"})


def test_the_searched_phases_are_named() -> None:
    """``searched``: a phase left out keeps the heuristic's choice, no rollout spent
    (docs/bots.md, "Seventh round": occupying unsearched at ``medium``)."""
    state = _claiming(b"claim-budget")
    seat = state.current
    assert seat is not None
    bot = get_bot("strong", {"searched": ["reinforce", "attack", "occupy"], "iterations": 4})
    assert isinstance(bot, StrongBot)
    assert bot.config.searched == {"reinforce", "attack", "occupy"}
    view = SeatView(state, seat)
    assert bot.choose(view, legal_actions(state, seat), random.Random(1)) == HeuristicPolicy().body(
        view
    )
    assert bot.budget.rollouts == 0
    for wrong in (["defend"], "attack"):
        with pytest.raises(ValueError, match="searched"):
            get_bot("strong", {"searched": wrong})


def _holding_a_set(seed: bytes) -> State:
    """A turn start where the player on turn holds a set it need not trade."""
    from riskcore.engine.evolve import apply
    from riskcore.rules.cards import sets_in_hand

    result = play_game([get_bot("heuristic") for _ in range(4)], seed=seed, game_id="sets")
    state = fold(result.events[:1])
    for event in result.events[1:]:
        apply(state, event)
        seat = state.current
        if (
            state.phase == REINFORCE
            and seat is not None
            and state.must_trade_until is None
            and not state.conquered
            and sets_in_hand(state.board, state.hand(seat))
        ):
            return state
    raise AssertionError("no turn start with a set in hand")


def test_trading_now_or_holding_is_searched_when_asked() -> None:
    """docs/bots.md, "strong": with ``trades`` the other answer to the heuristic's
    trade-or-hold is a candidate (its placing instead of its trade, or its best
    set instead of holding); without it the heuristic's answer stands alone."""
    state = _holding_a_set(b"hold-or-trade")
    seat = state.current
    assert seat is not None
    view = SeatView(state, seat)
    policy = HeuristicPolicy()
    trade = {"type": "trade_cards", "cards": list(view.my_hand()[:3])}
    found = candidates(policy, view, trade, SearchConfig(trades=True))
    assert found[0] == trade and [o["type"] for o in found[1:]] == ["place_armies"]
    assert found[1]["count"] == view.reserve()
    assert candidates(policy, view, trade, SearchConfig()) == [trade]
    place = {"type": "place_armies", "territory": found[1]["territory"], "count": 1}
    held = candidates(policy, view, place, SearchConfig(trades=True))
    assert held[1]["type"] == "trade_cards"
    assert all(o["type"] == "place_armies" for o in candidates(policy, view, place, SearchConfig()))


def _rival_gains(bot: StrongBot, state: State, seat: str) -> set[str]:
    """Territories the other seats took during one rollout of the heuristic's placing."""
    first = HeuristicPolicy().body(SeatView(state, seat))
    world = state.copy()
    bot.rollout(world, seat, first, b"r" * 8)
    return {t for t, p in world.owner.items() if p not in (seat, state.owner[t])}


def test_rollout_rivals_play_their_own_policy() -> None:
    """``rival_params``: the other seats of a rollout move by a policy of their own
    (a model of opponents that play otherwise), the seat itself by its own:
    rivals that never attack take nothing, where the heuristic's rivals do."""
    state = _placing(_midgame(b"mid"))
    seat = state.current
    assert seat is not None
    assert _rival_gains(StrongBot(SearchConfig()), state, seat)
    passive = StrongBot(SearchConfig(), rival_params=Params(min_win=1.1, hunt=False))
    assert passive.rivals.params.min_win == 1.1 and passive.policy.params == Params()
    assert not _rival_gains(passive, state, seat)


def test_the_rivals_are_a_bot_option_of_numeric_heuristic_parameters() -> None:
    bot = get_bot("strong", {"rivals": {"leader": 2, "leader_ratio": 0, "trade_at": 5}})
    assert isinstance(bot, StrongBot)
    assert bot.rivals.params == Params(leader=2.0, leader_ratio=0.0, trade_at=5)
    plain = get_bot("strong")
    assert isinstance(plain, StrongBot) and plain.rivals is plain.policy
    for wrong in ({"nonsense": 1}, {"hunt": 1}, {"leader": "2"}):
        with pytest.raises(ValueError, match="rivals"):
            get_bot("strong", {"rivals": wrong})


def test_the_bots_own_heuristic_parameters_are_an_option() -> None:
    """``params``: the bot's own policy (its seat in the rollouts too); its rivals
    then play the plain heuristic in them, unless ``rivals`` names theirs."""
    bot = get_bot("strong", {"params": {"min_win": 0.5, "trade_at": 3}})
    assert isinstance(bot, StrongBot)
    assert bot.policy.params == Params(min_win=0.5, trade_at=3)
    assert bot.rivals.params == Params()
    both = get_bot("strong", {"params": {"min_win": 0.5}, "rivals": {"leader": 2}})
    assert isinstance(both, StrongBot) and both.rivals.params == Params(leader=2.0)
    with pytest.raises(ValueError, match="params"):
        get_bot("strong", {"params": {"nonsense": 1}})


def test_the_placing_share_of_a_turn_is_an_option() -> None:
    """``place_share``: the part of a turn's rest the placing may use (docs/bots.md,
    "Eighth round": ``medium`` takes 0.7)."""
    bot = get_bot("strong", {"place_share": 0.7, "turn_ms": 250})
    assert isinstance(bot, StrongBot) and bot.config.place_share == 0.7
    assert get_bot("strong").config.place_share is None  # type: ignore[attr-defined]
    for wrong in (0, 1.5, "0.7", True):
        with pytest.raises(ValueError, match="place_share"):
            get_bot("strong", {"place_share": wrong})
