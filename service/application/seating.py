"""Creating games and filling their seats: the lobby side of the application service.

A game is created with its seats planned (people, bots, or open for anyone
who joins) and its setup checked for what would otherwise fail only when it
starts. Each human seat gets a token that is shown once; only its hash is
kept (``service.application.auth``). A seat is claimed without a lock (``Lobby.claim``).
Once every seat is filled the game starts: ``opening_events`` are what it
starts with, and ``service.application.commands`` appends them.

Seats never change once a game has started, so they are kept in memory for
the token check that every request of a seat makes.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from riskcore.boards.board import board_names
from riskcore.bots import bot_names
from riskcore.bots.levels import LEVELS
from riskcore.engine.decide import new_game
from riskcore.engine.registry import mode_named
from riskcore.errors import RuleOptionError
from riskcore.model.options import RuleSet
from riskcore.protocol.dice import commitment
from riskcore.protocol.events import Event
from service.application import auth
from service.application.errors import (
    GameFull,
    InvalidSeatToken,
    InvalidTeams,
    LevelNotForBot,
    SeatTaken,
    TeamFull,
    TeamNotInGame,
    UnknownBoard,
    UnknownBot,
    UnknownLevel,
    UnknownSeat,
)
from service.application.game_types import Lru, SeatPlan
from service.application.lobby import FINISHED as DONE
from service.application.lobby import OPEN, RUNNING, GameInfo, Lobby, SeatInfo

__all__ = ["Seating", "check_setup", "opening_events"]


class Seating:
    """Lobby records of games: their setup, seats and tokens, and which seat a token is."""

    def __init__(
        self,
        lobby: Lobby,
        *,
        cache_games: int,
        now_ms: Callable[[], int],
        new_seed: Callable[[], bytes],
    ) -> None:
        self._lobby = lobby
        self._seats: Lru[GameInfo] = Lru(cache_games)
        self._now_ms = now_ms
        self._new_seed = new_seed

    def open(
        self,
        seats: Sequence[SeatPlan],
        board: str | None,
        mode: str | None,
        rules: Mapping[str, Any] | None,
        clock: Mapping[str, Any] | None,
        tournament: str | None = None,
        seed: bytes | None = None,
        game_id: str | None = None,
        rated: bool = False,
        creator: str | None = None,
    ) -> tuple[GameInfo, dict[str, str]]:
        """A new lobby and the tokens of its human seats (seat id → token).

        The server seed is drawn now, so its commitment is public before any
        player chooses a seed of their own.
        """
        seats = [with_level(f"p{i}", plan) for i, plan in enumerate(seats, 1)]
        mode, options = resolve_mode(mode, rules)
        board = board or mode_named(mode).board
        ruleset = mode_named(mode).rule_set(options)
        _check_setup(board, mode, ruleset, seats)
        seats = arranged(seats, seat_teams(mode, len(seats)))
        game_id = game_id or "g" + secrets.token_hex(8)
        seed = seed or self._new_seed()  # a tournament's games: derived from its own
        tokens = {
            f"p{i}": auth.new_token()
            for i, s in enumerate(seats, 1)
            if s.kind == "human" and s.token_hash is None
        }
        info = GameInfo(
            game_id=game_id,
            status=OPEN,
            board=board,
            mode=mode,
            rules=ruleset.to_dict(),
            clock=dict(clock) if clock else None,
            created_ms=self._now_ms(),
            seats=tuple(_seat(f"p{i}", plan, tokens) for i, plan in enumerate(seats, 1)),
            seed_commitment=commitment(seed),
            tournament=tournament,
            rated=rated,
            creator=creator,
        )
        self._lobby.create(info, seed)
        return info, tokens

    def join(
        self,
        game_id: str,
        *,
        seat: str | None,
        name: str | None,
        seed: str | None,
        team: str | None = None,
        account: str | None = None,
    ) -> tuple[str, str]:
        """Claim ``seat`` (or the first open one, of ``team`` if named) for a new
        human: (the seat, its token)."""
        info = self._lobby.get(game_id)
        if seat is not None and info.seat(seat) is None:
            raise UnknownSeat(game_id, seat)
        if info.status != OPEN:  # started, or abandoned (``service.application.quotas``)
            raise GameFull(game_id)
        candidates = [seat] if seat is not None else info.open_seats
        if team is not None:
            teams = seat_teams(info.mode, len(info.seats))
            if team not in teams.values():
                raise TeamNotInGame(game_id, team)
            if seat is not None and teams[seat] != team:
                raise TeamFull(game_id, team, seat)
            candidates = [s for s in candidates if teams[s] == team]
            if not candidates:
                raise TeamFull(game_id, team)
        token = auth.new_token()
        for candidate in candidates:
            claimed = SeatInfo(
                candidate, "human", name, None, seed, auth.hash_token(token), account=account
            )
            if info.version == 0 and self._lobby.claim(game_id, claimed):
                return candidate, token
        if seat is not None:
            raise SeatTaken(game_id, seat)
        raise GameFull(game_id)

    def seated(self, game_id: str) -> GameInfo:
        """The game's seats, from memory once it has started (they are fixed then)."""
        info = self._seats.get(game_id)
        if info is None:
            info = self._lobby.get(game_id)
            if info.version > 0:
                self._seats.put(game_id, info)
        return info

    def seat_info(self, game_id: str) -> dict[str, SeatInfo]:
        return {s.seat: s for s in self.seated(game_id).seats}

    def seat_for_token(self, game_id: str, token: str) -> str:
        """The seat ``token`` acts for in ``game_id``; InvalidSeatToken if none."""
        seats = self.seated(game_id).seats
        found = auth.match_seat(token, [(s.seat, s.token_hash) for s in seats])
        if found is None:
            raise InvalidSeatToken(game_id)
        return found

    def seat_for_account(self, game_id: str, account_id: str) -> str | None:
        """The seat of ``game_id`` bound to the account (its first), if any."""
        seats = self.seated(game_id).seats
        return next((s.seat for s in seats if s.account == account_id), None)

    def server_seed(self, game_id: str) -> bytes:
        """The seed committed to at creation; a new one if another request started the
        game meanwhile (that request's append wins, so this one is never used)."""
        return self._lobby.seed(game_id) or self._new_seed()

    def started(self, info: GameInfo) -> None:
        """The game's opening events are stored: list it as running, and drop the seed
        (from now on it lives in the event store's own key only)."""
        self._lobby.move(info, RUNNING)
        self._lobby.forget_seed(info.game_id)

    def move(self, info: GameInfo, status: str, version: int) -> GameInfo:
        """Record the status the events say the game has, and remember its seats so."""
        self._lobby.move(info, status)
        moved = info.with_status(status, version)
        self._seats.put(info.game_id, moved)
        return moved

    def finished(self, game_id: str, version: int) -> None:
        self.move(self._lobby.get(game_id), DONE, version)

    def forget(self, game_id: str) -> None:
        self._seats.drop(game_id)


def opening_events(info: GameInfo, seed: bytes) -> list[Event]:
    """The events a full lobby's game starts with: its players in seat order."""
    return new_game(
        game_id=info.game_id,
        players=[s.shown_name or s.seat for s in info.seats],
        seed=seed,
        board=info.board,
        mode=info.mode,
        rules=RuleSet.from_dict(info.rules),  # as set at creation, the mode's defaults included
        player_seeds={s.seat: s.seed for s in info.seats if s.seed},
    )


def resolve_mode(mode: str | None, rules: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The game mode and the rule options of a request.

    Before game modes, the mode was the rule option ``variant``; a request
    may still name it so (the API is stable), but not contradict ``mode``.
    """
    options = dict(rules or {})
    variant = options.pop("variant", None)
    if mode is not None and variant is not None and variant != mode:
        raise RuleOptionError(f"rules.variant {variant!r} contradicts mode {mode!r}")
    return mode or variant or "classic", options


@cache
def seat_teams(mode: str, players: int) -> dict[str, str | None]:
    """Seat id -> the team the mode seats it in (None outside team games)."""
    game_mode = mode_named(mode)
    names = [f"p{i}" for i in range(1, players + 1)]
    seats = game_mode.seat_list(names, game_mode.rule_set())
    return {s["id"]: s.get("team") for s in seats if s["kind"] == "player"}


def arranged(plans: Sequence[SeatPlan], teams: Mapping[str, str | None]) -> list[SeatPlan]:
    """The seats in the order that puts each where its team sits (the team game
    alternates teams); seats that name no team fill the places left, in order."""
    if all(plan.team is None for plan in plans):
        return list(plans)
    named = {team for team in teams.values() if team is not None}
    if not named:
        raise InvalidTeams("teams are chosen only in a game played in teams (mode team)")
    placed: dict[str, SeatPlan] = {}
    for team in sorted({plan.team for plan in plans if plan.team is not None}):
        if team not in named:
            raise InvalidTeams(f"no team {team!r}; the teams are {sorted(named)}")
        places = [seat for seat, t in teams.items() if t == team]
        chosen = [plan for plan in plans if plan.team == team]
        if len(chosen) > len(places):
            raise InvalidTeams(f"team {team!r} has {len(places)} seats, not {len(chosen)}")
        placed.update(zip(places, chosen, strict=False))
    rest = iter(plan for plan in plans if plan.team is None)
    return [placed.get(seat) or next(rest) for seat in teams]


def check_setup(
    board: str, mode: str | None, rules: Mapping[str, Any] | None, players: int
) -> None:
    """What ``Seating.open`` checks of a game's setup, for ``players`` seats."""
    mode, options = resolve_mode(mode, rules)
    _check_setup(board, mode, mode_named(mode).rule_set(options), [SeatPlan("human")] * players)


def _check_setup(board: str, mode: str, rules: RuleSet, seats: Sequence[SeatPlan]) -> None:
    """Refuse at creation what would fail when the game starts."""
    if board not in board_names():  # checked first: the name becomes a file name
        raise UnknownBoard(board, board_names())
    known = bot_names()
    for index, plan in enumerate(seats, 1):
        if plan.kind == "bot" and plan.bot not in known:
            raise UnknownBot(f"p{index}", plan.bot, known)
    names = [f"p{i}" for i in range(1, len(seats) + 1)]
    new_game(game_id="check", players=names, seed=b"check", board=board, mode=mode, rules=rules)


def with_level(seat: str, plan: SeatPlan) -> SeatPlan:
    """A bot seat as it plays: a level alone names its bot (``riskcore.bots.levels``);
    a bot and a level must agree."""
    if plan.kind != "bot" or plan.level is None:
        return plan
    found = LEVELS.get(plan.level)
    if found is None:
        raise UnknownLevel(seat, plan.level, list(LEVELS))
    if plan.bot is not None and plan.bot != found.bot:
        raise LevelNotForBot(seat, plan.level, plan.bot, found.bot)
    return replace(plan, bot=found.bot)


def _seat(seat: str, plan: SeatPlan, tokens: Mapping[str, str]) -> SeatInfo:
    if plan.kind == "open":
        return SeatInfo(seat, "open")
    token = tokens.get(seat)
    token_hash = auth.hash_token(token) if token else plan.token_hash
    return SeatInfo(
        seat,
        plan.kind,
        plan.name,
        plan.bot,
        plan.seed,
        token_hash,
        plan.level,
        plan.entrant,
        plan.account,
    )
