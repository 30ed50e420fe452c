"""What can go wrong in the application service, as plain facts about games.

The application layer (``service.application.games`` and the modules it is built from)
knows nothing of HTTP: it raises these, and passes on the store's and the
engine's errors as they are. ``service.http.problems`` maps every one of them to
a problem response, in one table, so a status code is chosen in one place.
Each error has a stable ``code`` (the API shows it as the problem's code)
and a message naming the offending value::

    ServiceError
    ├── UnknownBoard        a new game names no board that is shipped
    ├── UnknownBot          a bot seat names no bot that is shipped
    ├── UnknownLevel        a bot seat names no level that is declared
    ├── LevelNotForBot      a bot seat names a bot and a level of another bot
    ├── UnknownSeat         a join names a seat the game does not have
    ├── SeatTaken           a join names a seat someone else filled first
    ├── GameFull            a join names no seat, and none is open
    ├── GameNotStarted      a lobby has no state yet: its seats are still open
    ├── VersionNotFound     a past version outside 1..the game's version
    └── InvalidSeatToken    the token acts for no seat of this game

Passed on unchanged, and re-exported here so callers import one module:
``GameNotFound``, ``VersionConflict`` and ``IdempotencyMismatch`` from the
store (``service.store.errors``). The engine's ``RuleViolation`` and
``MalformedCommand`` (``riskcore.errors``) pass through as well.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.store.errors import GameNotFound, IdempotencyMismatch, VersionConflict

__all__ = [
    "GameFull",
    "GameNotFound",
    "GameNotStarted",
    "IdempotencyMismatch",
    "InvalidSeatToken",
    "LevelNotForBot",
    "SeatTaken",
    "ServiceError",
    "UnknownBoard",
    "UnknownBot",
    "UnknownLevel",
    "UnknownSeat",
    "VersionConflict",
    "VersionNotFound",
]


class ServiceError(Exception):
    """Base of the errors the application service raises on purpose."""

    code: str

    @property
    def message(self) -> str:
        return str(self.args[0])


class UnknownBoard(ServiceError):
    code = "unknown_board"

    def __init__(self, board: str, known: Sequence[str]) -> None:
        super().__init__(f"no board {board!r}; one of {known}")
        self.board = board


class UnknownBot(ServiceError):
    code = "unknown_bot"

    def __init__(self, seat: str, bot: str | None, known: Sequence[str]) -> None:
        super().__init__(f"seat {seat}: no bot {bot!r}; {known}")
        self.seat = seat
        self.bot = bot


class UnknownLevel(ServiceError):
    code = "unknown_level"

    def __init__(self, seat: str, level: str, known: Sequence[str]) -> None:
        super().__init__(f"seat {seat}: no level {level!r}; {list(known)}")
        self.seat = seat
        self.level = level


class LevelNotForBot(ServiceError):
    code = "level_not_for_bot"

    def __init__(self, seat: str, level: str, bot: str, plays: str) -> None:
        super().__init__(f"seat {seat}: level {level!r} plays the {plays} bot, not {bot!r}")
        self.seat = seat
        self.level = level


class UnknownSeat(ServiceError):
    code = "unknown_seat"

    def __init__(self, game_id: str, seat: str) -> None:
        super().__init__(f"game {game_id!r} has no seat {seat!r}")
        self.game_id = game_id
        self.seat = seat


class SeatTaken(ServiceError):
    code = "seat_taken"

    def __init__(self, game_id: str, seat: str) -> None:
        super().__init__(f"seat {seat!r} is already taken")
        self.game_id = game_id
        self.seat = seat


class GameFull(ServiceError):
    code = "game_full"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} has no open seat")
        self.game_id = game_id


class InvalidTeams(ServiceError):
    """Teams asked for that the game cannot seat (service.application.seating)."""

    code = "invalid_team"


class TeamNotInGame(ServiceError):
    """A join names a team the game does not have (it is not a team game)."""

    code = "team_not_in_game"

    def __init__(self, game_id: str, team: str) -> None:
        super().__init__(f"game {game_id!r} has no team {team!r}")
        self.game_id = game_id


class TeamFull(ServiceError):
    """A join names a team whose seats are taken (or names a seat of the other team)."""

    code = "team_full"

    def __init__(self, game_id: str, team: str, seat: str | None = None) -> None:
        where = (
            f"seat {seat!r} is not in team {team!r}" if seat else f"team {team!r} has no open seat"
        )
        super().__init__(f"game {game_id!r}: {where}")
        self.game_id = game_id


class GameNotStarted(ServiceError):
    """The game is a lobby: it has no events, so no state, until its seats are filled."""

    code = "game_not_started"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} waits for its open seats")
        self.game_id = game_id


class VersionNotFound(ServiceError):
    code = "version_not_found"

    def __init__(self, game_id: str, version: int, latest: int) -> None:
        super().__init__(f"game {game_id!r} has versions 1..{latest}, not {version}")
        self.game_id = game_id
        self.version = version
        self.latest = latest


class InvalidSeatToken(ServiceError):
    """A token was presented, but it is no seat's token in this game."""

    code = "invalid_token"

    def __init__(self, game_id: str) -> None:
        super().__init__("the token is not valid for this game")
        self.game_id = game_id
