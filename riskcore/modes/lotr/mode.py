"""``LordOfTheRings``: the hooks of the mode and its deal by side."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from riskcore.engine.decision import Decision, violation
from riskcore.engine.evolve import Applier
from riskcore.engine.legal import Builder
from riskcore.engine.registry import register_mode
from riskcore.errors import RuleViolation
from riskcore.model.options import RuleSet
from riskcore.model.state import ATTACK, FORTIFY, REINFORCE, State
from riskcore.modes import adventure
from riskcore.modes.base import GameMode, Handler, Outcome
from riskcore.modes.lotr.actions import (
    _fortified,
    _fortifies,
    _leader_moves,
    _placements,
    _turn_started,
    _unless_discarding,
    _unless_leaderless,
    _unless_owing_a_leader,
)
from riskcore.modes.lotr.appliers import (
    _fellowship_moved,
    _leader_lost,
    _leader_moved,
    _leader_placed,
    _leaders_called,
    _tie_rolled,
)
from riskcore.modes.lotr.handlers import (
    _start_play,
    _then_close_window,
    _with_defence_window,
    end_phase,
    fortify_command,
    move_leader,
    occupy_command,
    place_leader,
    play_adventure,
    resign_in_window,
)
from riskcore.modes.lotr.leaders import leaders_of
from riskcore.modes.lotr.protocol import (
    ARMIES,
    DEALS,
    LEADER_BONUS,
    LEAVE_ROLL,
    SETUP_LEADER,
    SIDES,
    STRONGHOLD_BONUS,
    FellowshipMoved,
    LeaderLost,
    LeaderMoved,
    LeaderPlaced,
    LeadersCalled,
    MoveLeader,
    PlaceLeader,
    ScoreTieRolled,
)
from riskcore.modes.lotr.scoring import (
    _break_a_tie,
    fellowship_left,
    fellowship_step,
    ranking,
    score_table,
)
from riskcore.modes.middle_earth import (
    NEUTRAL,
    check_board,
    deal_two_sides,
    neutral_dice_chooser,
    passive_neutral,
    side_piles,
    two_sided_seats,
)
from riskcore.protocol import commands as cmd
from riskcore.protocol import events as ev
from riskcore.rules import battle, setup


class LordOfTheRings(GameMode):
    name = "lotr"
    title = "Lord of the Rings Risk (2002)"
    win_condition = (
        "When the Fellowship leaves the Dead Marshes the game ends and the best score"
        " wins (territories, whole regions, strongholds and adventure points; a tie goes"
        " to the most territories, strongholds, adventure points, then dice). Conquering"
        " every territory of Middle-earth before that wins at once (with two players the"
        " neutral army must fall too); a player whose opponents have all resigned wins."
    )
    players = (2, 4)
    board = "middle_earth"
    rule_defaults: ClassVar[Mapping[str, Any]] = {
        "card_values": "fixed",
        "fortify": "connected",
        "one_die_vs_one": True,
        "neutrals_must_fall": True,
        "adventure_deck": "adventure-northern-40-v1",
    }
    own_options: ClassVar[frozenset[str]] = frozenset(
        {
            "adventure_deck",
            "adventure_draw_closes",
            "second_leader",
            "card_sides",
            "neutrals_must_fall",
        }
    )
    hidden_piles: ClassVar[tuple[str, ...]] = ("deck", "adventure_deck")

    def command_handlers(self) -> dict[type[cmd.Command], Handler]:
        return {
            **super().command_handlers(),
            cmd.EndPhase: end_phase,
            cmd.Fortify: fortify_command,
            PlaceLeader: place_leader,
            MoveLeader: move_leader,
            **adventure.HANDLERS,
            adventure.PlayAdventure: _then_close_window(play_adventure),
            adventure.PassAdventure: _then_close_window(adventure.pass_window),
            cmd.Resign: resign_in_window,
            cmd.Attack: _with_defence_window(battle.attack),
            cmd.Blitz: _with_defence_window(battle.blitz),
            cmd.Occupy: occupy_command,
        }

    def event_appliers(self) -> dict[type[ev.Event], Applier]:
        base = super().event_appliers()
        return {
            **base,
            ev.TurnStarted: _turn_started(base[ev.TurnStarted]),
            ev.Fortified: _fortified(base[ev.Fortified]),
            **adventure.APPLIERS,
            LeadersCalled: _leaders_called,
            LeaderPlaced: _leader_placed,
            LeaderMoved: _leader_moved,
            LeaderLost: _leader_lost,
            FellowshipMoved: _fellowship_moved,
            ScoreTieRolled: _tie_rolled,
        }

    def phase_actions(self) -> dict[str, Sequence[tuple[str, Builder]]]:
        table = super().phase_actions()
        resign = table[FORTIFY][-1]
        table[SETUP_LEADER] = (("place_leader", _placements), resign)
        table[FORTIFY] = (
            ("discard_adventure", adventure.discards),
            *(
                (
                    name,
                    _unless_discarding(
                        builder if name == "place_leader" else _unless_owing_a_leader(builder)
                    ),
                )
                for name, builder in (
                    ("place_leader", _placements),
                    ("move_leader", _leader_moves),
                    ("claim_adventure", adventure.mission_claims),
                    ("play_adventure", adventure.power_plays),
                    *(
                        (
                            name,
                            _unless_leaderless(builder)
                            if name == "end_phase"
                            else _fortifies(builder)
                            if name == "fortify"
                            else builder,
                        )
                        for name, builder in table[FORTIFY]
                        if name != "resign"
                    ),
                )
            ),
            resign,
        )
        for window in adventure.WINDOWS:
            table[window] = (
                ("pass_adventure", adventure.passes),
                ("play_adventure", adventure.power_plays),
                resign,
            )
        table[REINFORCE] = (
            ("place_leader", _placements),
            ("play_adventure", adventure.power_plays),
            *table[REINFORCE],
        )
        table[ATTACK] = (
            ("place_leader", _placements),
            ("claim_adventure", adventure.mission_claims),
            ("play_adventure", adventure.power_plays),
            *table[ATTACK],
        )
        return table

    # Setup -------------------------------------------------------------------

    def rule_set(self, given: Mapping[str, Any] | None = None) -> RuleSet:
        return passive_neutral(self, super().rule_set(given))

    def seat_list(self, players: Sequence[str], rules: RuleSet) -> list[dict[str, Any]]:
        self.check_player_count(len(players))
        return two_sided_seats(self, players, rules, SIDES[len(players)])

    def starting_armies(self, rules: RuleSet, players: int) -> int:
        return rules.starting_armies or ARMIES[players]

    def open_game(self, d: Decision) -> None:
        """Roll for who starts, then deal by side; the rest is claimed in turn."""
        check_board(d.state, self.name)
        if adventure.plays(d.state):
            adventure.deck_of(d.state)  # a bad deck is refused when the game is made
        setup.roll_for_order(d, "setup", d.state.order)
        if len(d.state.order) == 2:
            deal_two_sides(d)
        else:
            _deal_by_side(d)

    def after_setup(self, d: Decision) -> None:
        """Every army is placed: each player puts a leader on, in turn order."""
        first = next((p for p in d.state.order if d.state.is_active(p)), None)
        if first is None:
            _start_play(d)
            return
        d.emit(LeadersCalled(seat=first))

    def next_turn(self, d: Decision, after: str) -> None:
        """A player who resigns while placing leaders passes the placing on."""
        s = d.state
        if s.phase != SETUP_LEADER:
            super().next_turn(d, after)
            return
        following = next((p for p in s.order if s.is_active(p) and not s.leaders.get(p)), None)
        if following is None:
            _start_play(d)
        else:
            d.emit(LeadersCalled(seat=following))

    # Battles -------------------------------------------------------------------

    def battle_bonus(self, state: State, source: str, target: str) -> tuple[int, int]:
        """A leader +1 to its side's highest die; the stronghold +1 to the defender's."""
        attacker = state.owner.get(source)
        defender = state.owner.get(target)
        attack = LEADER_BONUS if source in leaders_of(state, attacker) else 0
        defence = LEADER_BONUS if target in leaders_of(state, defender) else 0
        if target in state.board.strongholds and not adventure.stronghold_off(state, target):
            defence += STRONGHOLD_BONUS
        return attack, defence

    def attack_refusal(
        self, state: State, seat: str, source: str, target: str
    ) -> RuleViolation | None:
        """Winter storms: nobody attacks into or out of the territories it named. You
        shall not pass: no armies cross the blocked bridge without a leader."""
        if adventure.storm_refuses(state, source, target):
            return violation(
                "storm", f"a winter storm holds {source!r} or {target!r}: no attack there"
            )
        if adventure.border_blocked(state, seat, source, target):
            return violation(
                "border_blocked",
                f"the bridge {source!r} - {target!r} is blocked: only with a leader of yours",
            )
        return None

    def defence_chooser(self, state: State, defender: str, attacker: str | None) -> str | None:
        if defender == NEUTRAL:
            return neutral_dice_chooser(state, attacker)
        return super().defence_chooser(state, defender, attacker)

    def after_conquest(self, d: Decision, seat: str, target: str, defender: str) -> None:
        """The defender's leader there is lost; the attacker's leader moves in."""
        s = d.state
        if target in s.leaders.get(defender, ()):
            d.emit(LeaderLost(seat=defender, territory=target, by=seat))
        occupation = s.occupation
        if (
            occupation is not None
            and occupation.source in s.leaders.get(seat, ())
            and adventure.mission_leader(s, seat) != occupation.source
        ):
            d.emit(
                LeaderMoved(seat=seat, source=occupation.source, target=target, reason="conquest")
            )

    # The end of a turn -----------------------------------------------------------

    def waiting_for(self, state: State) -> str | None:
        """In the Fellowship's window, the player it asks now."""
        if state.phase in adventure.WINDOWS:
            return adventure.window_seat(state)
        return super().waiting_for(state)

    def end_of_turn(self, d: Decision, seat: str) -> None:
        """The turn's card, then the Fellowship's move (a roll on a marked square);
        both done already if the Fellowship's window was open."""
        s = d.state
        if s.mode_data.get("window_done_turn") == s.turn:
            return
        super().end_of_turn(d, seat)
        path = s.board.path
        step = fellowship_step(s)
        if step >= len(path):
            return
        roll = d.rng.die() if path[step].needs_roll else None
        moved = roll is None or roll >= LEAVE_ROLL
        d.emit(FellowshipMoved(seat=seat, roll=roll, moved=moved, step=step + 1 if moved else step))
        if fellowship_left(s):
            _break_a_tie(d)

    def outcome(self, state: State) -> Outcome | None:
        """The Fellowship left the Dead Marshes: the best score wins. Before that, the
        last player left wins (every territory conquered, or the others gone)."""
        if fellowship_left(state) and state.active_players():
            winner = ranking(state)[0]
            return Outcome(winner, (winner,), "fellowship_left")
        return super().outcome(state)

    # Forks -------------------------------------------------------------------------

    def shuffle_for_fork(self, d: Decision) -> None:
        """The draw pile, then the adventure pile, drawn again from the fork's seed."""
        super().shuffle_for_fork(d)
        adventure.shuffle_for_fork(d)

    # Views -------------------------------------------------------------------------

    def deal_unseen(self, real: State, state: State, seat: str, rng: random.Random) -> None:
        adventure.deal_unseen(real, state, seat, rng)

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        path = state.board.path
        step = fellowship_step(state)
        here = path[step] if step < len(path) else None
        return {
            "sides": {s: seat.side for s, seat in state.seats.items()},
            "leaders": {s: list(ts) for s, ts in state.leaders.items() if ts},
            "fellowship": {
                "step": step,
                "territory": here.territory if here else None,
                "needs_roll": here.needs_roll if here else False,
                "left": here is None,
            },
            "scores": score_table(state),
            "ranking": ranking(state),
            "leader_moved": state.mode_data.get("leader_moved_turn", {}).get(state.current)
            == state.turn,
            "adventure": adventure.view(state, viewer),
        }


register_mode(LordOfTheRings)


def _deal_by_side(d: Decision) -> None:
    """Three or four players: each side's rows of the deal table to its players in turn
    order, one army on each territory."""
    s = d.state
    piles = side_piles(d)
    rows = DEALS[len(s.order)]
    taken = {side: 0 for side in piles}
    owners: dict[str, str] = {}
    row_of = {side: 0 for side in rows}
    for seat in s.order:
        side = s.seats[seat].side
        assert side is not None
        own, neutral = rows[side][row_of[side]]
        row_of[side] += 1
        for pile, count in ((side, own), ("neutral", neutral)):
            for territory in piles[pile][taken[pile] : taken[pile] + count]:
                owners[territory] = seat
            taken[pile] += count
    d.emit(ev.TerritoriesDealt(owners=owners))
