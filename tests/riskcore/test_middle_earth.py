"""Regular Risk on the Middle-earth board (docs/rules.md, "Regular Risk on Middle-earth";
002_84c66041fccdfcee.txt, "SPELA RISK PÅ VANLIGT SÄTT")."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from riskcore.audit.verify import verify_text
from riskcore.boards.board import load_board
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleOptionError
from riskcore.model.state import ATTACK, FINISHED, SETUP_CLAIM, SETUP_PLACE, State
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.simulate import play_game, record_of
from tests.riskcore.helpers import Game, ScriptedRng, new, play
from tests.riskcore.test_simulate import replay

SYMBOLS = ("infantry", "cavalry", "artillery")

ME = load_board("middle_earth")
SIDE = {c.territory: c.side for c in ME.cards if c.territory is not None}


def test_starting_armies_follow_the_regular_table() -> None:
    """002: "Antal spelare 3 4 Antal bataljoner 35 40"; two players follow the two-player
    rules ("Om ni är två spelare, läser ni de särskilda reglerna"), 35 each."""
    # rule: 002-regular-armies
    for n, armies in ((2, 35), (3, 35), (4, 40)):
        game = new(n, mode="middle_earth")
        created = game.events[0]
        assert isinstance(created, ev.GameCreated) and created.board == "middle_earth"
        assert {s["id"]: s["armies"] for s in created.seats if s["kind"] == "player"} == {
            f"p{i}": armies for i in range(1, n + 1)
        }


@pytest.mark.parametrize(("n", "counts"), [(3, [14, 14, 14]), (4, [11, 11, 10, 10])])
def test_every_card_is_dealt_round_the_table(n: int, counts: list[int]) -> None:
    """002: "Ta bort jokrarna från territoriekorten och blanda korten. Dela ut alla korten
    till spelarna ... om ni är fyra spelare, får två av spelarna ett extra kort"."""
    # rule: 002-regular-deal
    game = new(n, mode="middle_earth")
    (dealt,) = [e for e in game.events if isinstance(e, ev.TerritoriesDealt)]
    assert set(dealt.owners) == set(ME.territory_names)
    by_seat = Counter(dealt.owners.values())
    assert [by_seat[s] for s in game.state.order] == counts
    assert game.state.phase == SETUP_PLACE


def test_two_players_deal_by_side_with_a_neutral_army() -> None:
    """002, "2 SPELARE": "Dela ut de goda, de onda och de övriga territoriekorten ... 9 goda
    ... 9 onda ... (neutral) 4 neutrala" (14: the scan drops the 1); "Det ska finnas 2
    neutrala bataljoner i varje neutralt territorium"; "de kvarvarande tio territorierna"."""
    # rule: 002-two-player-neutral
    game = new(2, mode="middle_earth")
    state = game.state
    assert {s: state.seats[s].side for s in state.seats} == {
        "p1": "good",
        "p2": "evil",
        "n1": "neutral",
    }
    held = {seat: state.territories_of(seat) for seat in ("p1", "p2", "n1")}
    assert [len(held[s]) for s in ("p1", "p2", "n1")] == [9, 9, 14]
    assert all(SIDE[t] == "good" for t in held["p1"])
    assert all(SIDE[t] == "evil" for t in held["p2"])
    assert all(SIDE[t] == "neutral" and state.troops(t) == 2 for t in held["n1"])
    assert len(ME.territory_names) - len(state.owner) == 10
    assert state.phase == SETUP_CLAIM and state.reserve["n1"] == 0


@pytest.mark.parametrize("mode", ["middle_earth", "lotr"])
def test_the_two_player_neutral_army_is_passive(mode: str) -> None:
    """002, "2 SPELARE": the neutral army only defends ("neutrala bataljoner" are dealt and
    placed, nothing bribes them): a two-player game with active neutrals is refused."""
    # rule: 002-neutral-passive
    with pytest.raises(RuleOptionError, match="neutral army is passive"):
        mode_named(mode).rule_set({"neutrals": "active"})
    assert new(2, mode=mode).state.rules.neutrals == "passive"


def test_the_mode_needs_a_board_with_sided_cards() -> None:
    with pytest.raises(RuleOptionError, match="middle_earth board"):
        new(3, mode="middle_earth", board="classic")


def test_fortify_goes_to_an_adjacent_territory_only() -> None:
    """002: "I 'Manöver'-fasen kan du bara göra truppmanövrer från ett av dina territorier
    till territorier som ligger i direkt anslutning till det"."""
    # rule: 002-regular-adjacent
    game = new(3, mode="middle_earth")
    assert game.state.rules.fortify == "adjacent"
    assert game.state.rules.card_values == "fixed" and game.state.rules.one_die_vs_one


def test_one_attacking_die_lets_the_defender_roll_one() -> None:
    """002: "Om anfallaren bara slår en tärning, kan du som försvarare också bara slå en
    tärning" (the regular game plays "enligt reglerna i avsnittet 'Spelet'")."""
    game = new(3, mode="middle_earth", seed=b"one die")
    play(game, random.Random(1), until=lambda s: _attack_with_two_defenders(s) is not None)
    seat = game.state.current
    found = _attack_with_two_defenders(game.state)
    assert seat is not None and found is not None
    source, target = found
    (resolved, *_) = game.do(
        cmd.Attack(seat=seat, source=source, target=target, dice=1), ScriptedRng([6, 1])
    )
    assert isinstance(resolved, ev.BattleResolved)
    assert (len(resolved.attacker_dice), len(resolved.defender_dice)) == (1, 1)


def _attack_with_two_defenders(state: State) -> tuple[str, str] | None:
    """In the attack phase, an attack on a territory of 2+ armies (None: none)."""
    if state.phase != ATTACK or state.current is None:
        return None
    for source in state.territories_of(state.current):
        if state.troops(source) < 2:
            continue
        for target in state.board.neighbours[source]:
            if state.owner.get(target) not in (state.current, None) and state.troops(target) >= 2:
                return source, target
    return None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bots_play_it_to_a_conquest_and_the_record_verifies(n: int) -> None:
    """002: "VINNA SPELET Spelet är slut när en armé har erövrat alla territorier i
    Midgård": the last player standing wins; the record replays and verifies."""
    seed = b"middle-earth %d" % n
    bots = [get_bot(name) for name in ("heuristic", "random", "heuristic", "random")[:n]]
    result = play_game(bots, seed=seed, mode="middle_earth")
    state = fold(result.events)
    assert state.phase == FINISHED and state.board.name == "middle_earth"
    assert result.reason == "conquest" and result.winner is not None
    assert set(state.territories_of(result.winner)) | set(state.territories_of("n1")) == set(
        ME.territory_names
    )
    assert replay(result, seed) == result.events
    verdict = verify_text(record_of(result, seed))
    assert verdict.ok, verdict.divergence


def test_the_game_keeps_the_middle_earth_borders() -> None:
    """Attacks follow the board's borders: a bridge is a border, a harbour link too."""
    # rule: 002-attack-links
    game: Game = new(3, mode="middle_earth")
    assert game.state.board.adjacent("the_shire", "buckland")  # the Brandywine bridge
    assert game.state.board.adjacent("mithlond", "forodwaith")  # by sea, harbour to harbour
    assert not game.state.board.adjacent("the_shire", "old_forest")


@pytest.mark.parametrize("mode", ["middle_earth", "lotr"])
def test_the_middle_earth_games_trade_sets_at_fixed_values_by_default(mode: str) -> None:
    """002 (the book's card table): a set is worth what its symbols say, not a growing
    number; both Middle-earth games play so unless a game sets ``card_values``."""
    # rule: 002-fixed-values
    game = new(3, mode=mode)
    assert game.state.rules.card_values == "fixed"
    worth = [game.state.mode.trade_value(game.state, (s,) * 3) for s in SYMBOLS]
    game.state.sets_traded = 7  # as many sets traded before changes nothing
    assert [game.state.mode.trade_value(game.state, (s,) * 3) for s in SYMBOLS] == worth
    assert worth == [4, 6, 8]
