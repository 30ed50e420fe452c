"""``SeatView``: a read-only window on a game, limited to what one seat may see.

Bots are handed this rather than the state. It answers the public questions
(owners, armies, card counts, phase) and the seat's private ones (its own
hand) without copying the whole board into a dictionary each move, which
matters when a bot is asked thousands of times per second. It exposes
nothing a seat could not read from ``riskcore.views.view.view``: every accessor
below has its counterpart there (named in its docstring when not obvious).

``determinize`` builds a full ``State`` a bot may search on. It is made only
from this seat's information: the hidden cards (other hands and the draw
pile) are dealt at random from the cards this seat cannot see, and the
secrets of the real game (deck order, other hands, the seed, the player
seeds) are never read, so a search on it cannot cheat.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field
from types import MappingProxyType
from typing import Any

from riskcore.boards.board import Board
from riskcore.model.options import RuleSet
from riskcore.model.state import FIELDS, PER_SEAT, SECRET, Occupation, PendingBattle, State


class SeatView:
    __slots__ = ("_dict", "_state", "seat")

    def __init__(self, state: State, seat: str) -> None:
        self._state = state
        self.seat = seat
        self._dict: dict[str, Any] | None = None

    @property
    def board(self) -> Board:
        return self._state.board

    @property
    def rules(self) -> RuleSet:
        return self._state.rules

    @property
    def phase(self) -> str:
        return self._state.phase

    @property
    def version(self) -> int:
        return self._state.version

    @property
    def turn(self) -> int:
        return self._state.turn

    @property
    def current(self) -> str | None:
        return self._state.current

    @property
    def occupation(self) -> Occupation | None:
        """The conquest waiting for armies (``view()["occupation"]``)."""
        return self._state.occupation

    @property
    def pending_battle(self) -> PendingBattle | None:
        return self._state.pending_battle

    @property
    def conquered_this_turn(self) -> bool:
        return self._state.conquered

    @property
    def fortified_this_turn(self) -> bool:
        return self._state.fortified

    @property
    def must_trade(self) -> bool:
        return self._state.must_trade_until is not None

    def owner(self, territory: str) -> str | None:
        return self._state.controller(territory)

    def owners(self) -> Mapping[str, str | None]:
        """Territory -> controlling seat, read-only. Where armies of several
        seats stand and nobody controls it (a tie), the seat that would defend
        it (``GameMode.defender_of``): bots read every territory as someone's."""
        s = self._state
        if not s.shared:
            return MappingProxyType(s.owner)
        owners = dict(s.owner)
        for territory in s.shared:
            if owners.get(territory) is None:
                owners[territory] = s.mode.defender_of(s, territory)
        return owners

    def troops(self, territory: str) -> int:
        return self._state.troops(territory)

    def troop_map(self) -> dict[str, int]:
        """Territory -> armies of its controller, a fresh dict. A shared territory
        counts every army in it (all must fall to take it), except one this seat
        controls, which counts its own (those are what it can move)."""
        s = self._state
        armies = s.armies
        troops = {t: armies.get((t, p), 0) for t, p in s.owner.items() if p is not None}
        for territory in s.shared:
            if s.owner.get(territory) != self.seat:
                troops[territory] = sum(armies.get((territory, p), 0) for p in s.seats)
        return troops

    def armies_of(self, territory: str, seat: str) -> int:
        """``seat``'s own armies in ``territory`` (``view()["territories"][t]["stacks"]``)."""
        return self._state.armies.get((territory, seat), 0)

    def shared(self) -> frozenset[str]:
        """Territories where armies of several seats stand (the team game)."""
        return frozenset(self._state.shared)

    def team_of(self, seat: str) -> str | None:
        """``view()["seats"][i]["team"]``."""
        return self._state.seats[seat].team

    def elimination_wins(self, player: str) -> bool:
        """Whether putting ``player`` out of the game now would win it for this seat
        (asked of the mode's outcome: in the team game, any rival's elimination wins)."""
        s = self._state
        trial = s.copy()
        trial.out[player] = "eliminated"
        outcome = s.mode.outcome(trial)
        return outcome is not None and self.seat in outcome.winners

    def sides(self) -> dict[str, str] | None:
        """Seat -> its side where seats play in teams (its team), or where neutrals are
        allied (an ally is on its player's side); None otherwise."""
        seats = self._state.seats
        allied = self._state.alliances
        if all(info.team is None for info in seats.values()) and not any(allied.values()):
            return None
        return {seat: info.team or allied.get(seat) or seat for seat, info in seats.items()}

    def alliances(self) -> dict[str, str | None]:
        """Active neutral -> the player it is allied with, None: uninvolved
        (``view()["mode_state"]["neutrals"][n]["ally"]``)."""
        return dict(self._state.alliances)

    def ally_of(self, seat: str) -> str | None:
        """The player an active neutral is allied with (``alliances()[seat]``)."""
        return self._state.alliances.get(seat)

    def mode_fact(self, name: str, default: Any = None) -> Any:
        """A public fact of the mode's own (``view()["mode_state"]``: the allies
        reinforced or fortified this turn, the rolled armies still to place): a copy,
        since a bot's view may be of a state a worker keeps between moves."""
        return copy.deepcopy(self._state.mode_data.get(name, default))

    def is_out(self, seat: str) -> bool:
        """Whether a seat has left the game (``view()["seats"][i]["status"]``)."""
        return seat in self._state.out

    def territories_of(self, player: str) -> list[str]:
        return self._state.territories_of(player)

    def battle_bonus(self, source: str, target: str) -> tuple[int, int]:
        """What an attack from ``source`` on ``target`` adds to each side's highest die
        now (leaders and strongholds; public, as the view's ``mode_state`` shows them)."""
        s = self._state
        bonus: tuple[int, int] = s.mode.battle_bonus(s, source, target)
        return bonus

    def mode_state(self) -> dict[str, Any]:
        """The mode's own part of this seat's view (``view()["mode_state"]``)."""
        s = self._state
        shown: dict[str, Any] = s.mode.view(s, self.seat)
        return shown

    def players(self) -> list[str]:
        """Players still in the game, in turn order."""
        return self._state.active_players()

    def seats(self) -> list[str]:
        """Every seat id (players and neutrals), as ``view()["seats"]``."""
        return list(self._state.seats)

    def is_neutral(self, seat: str) -> bool:
        """Whether a seat holds armies but takes no turns (``view()["seats"][i]["kind"]``)."""
        return not self._state.takes_turns(seat)

    def card_count(self, seat: str) -> int:
        return len(self._state.hand(seat))

    def my_hand(self) -> list[int]:
        return list(self._state.hand(self.seat))

    def my_adventure_hand(self) -> list[int]:
        """This seat's adventure cards (Lord of the Rings; others see only counts)."""
        return list(self._state.adventure_hands.get(self.seat, ()))

    def leaders_of(self, seat: str) -> tuple[str, ...]:
        """Where ``seat``'s leaders stand (Lord of the Rings; public)."""
        return self._state.leaders.get(seat, ())

    def fellowship_territory(self) -> str | None:
        """Where the Fellowship is (Lord of the Rings; None once it has left, or unplayed)."""
        path = self._state.board.path
        step = self._state.fellowship or 0
        return path[step].territory if step < len(path) else None

    def reserve(self) -> int:
        return self._state.reserve.get(self.seat, 0)

    def reserve_of(self, seat: str) -> int:
        """Armies a seat still has to place (``view()["seats"][i]["reserve"]``)."""
        return self._state.reserve.get(seat, 0)

    def setup_quota(self) -> dict[str, int]:
        return dict(self._state.setup_quota)

    def sets_traded(self) -> int:
        return self._state.sets_traded

    def bonus_taken(self) -> bool:
        """Whether this turn's +2 territory bonus is used (public: it is in an event)."""
        return self._state.bonus_taken

    def discard(self) -> list[int]:
        return list(self._state.discard)

    def deck_size(self) -> int:
        return len(self._state.deck)

    def as_dict(self) -> dict[str, Any]:
        """The full JSON view, as the API would serve it to this seat."""
        if self._dict is None:
            from riskcore.views.view import view

            self._dict = view(self._state, self.seat)
        return self._dict

    def unseen_cards(self) -> list[int]:
        """Cards this seat cannot see: all cards minus its hand and the discards.

        They are in the other hands and the draw pile, in an unknown order.
        """
        seen = set(self.my_hand()) | set(self.discard())
        return [c.id for c in self.board.cards if c.id not in seen]

    def determinize(self, rng: random.Random) -> State:
        """A full state consistent with this seat's view, hidden cards dealt at random.

        Made field by field from the state's declaration
        (``riskcore.model.state``): public fields are copied; secret ones
        (the game id, the seeds, the draw pile) are blanked; of the per-seat
        ones (hands, missions) only this seat's entries are kept exactly.
        Every other hand gets the right number of cards (a public count)
        drawn from ``unseen_cards``; the rest, shuffled, is the draw pile.
        A test checks that changing the hidden cards of the real state
        changes nothing here.
        """
        s = self._state
        own = {self.seat, s.hand_id(self.seat)}
        values: dict[str, Any] = {}
        for f in FIELDS:
            secrecy = f.metadata["secrecy"]
            value = getattr(s, f.name)
            if secrecy == SECRET:
                value = _blank(f)
            elif secrecy == PER_SEAT:
                value = {k: v for k, v in value.items() if k in own}
            values[f.name] = value
        state = State(**values).copy()
        unseen = self.unseen_cards()
        rng.shuffle(unseen)
        for hand_id, cards in s.hands.items():
            if hand_id not in own:
                count = len(cards)
                state.hands[hand_id], unseen = unseen[:count], unseen[count:]
        state.hands = {hand_id: state.hands.get(hand_id, []) for hand_id in s.hands}
        state.deck = unseen
        s.mode.deal_unseen(s, state, self.seat, rng)
        return state


# What a determinised state holds in place of the secrets it may not know,
# where the field's own default will not do.
_BLANK: dict[str, Callable[[], Any]] = {
    "game_id": lambda: "determinized",
    "seed_commitment": str,
    "player_seeds": dict,
}


def _blank(f: Field[Any]) -> Any:
    """A fresh blank for a secret field: its entry above, else its own default."""
    make = _BLANK.get(f.name)
    if make is not None:
        return make()
    if f.default_factory is not MISSING:
        return f.default_factory()
    if f.default is not MISSING:
        return f.default
    raise TypeError(f"secret state field {f.name!r} needs a blank in seatview._BLANK")
