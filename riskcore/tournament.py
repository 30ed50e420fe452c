"""Tournaments, the pure part: entrants, the schedule of games, places and standings.

The server's tournaments and ``risk tournament`` share it; ratings are
computed beside it, in the server's ``ratings`` module (openskill), since
the rating library is not part of the engine.

A tournament plays every *pairing* (each combination of ``players``
entrants) a number of games: in ``round_robin``, as many as there are seats,
the seating rotated one place each game, so every entrant of a pairing
plays from every seat once; with ``games_per_pairing``, a fixed number,
rotated the same way, every other ``players`` games in the reverse order (a
multiple of twice ``players`` keeps it even). Rotation alone seats each
entrant after the same one in every game, and in three-player games the
seat after a weak player wins most: in ``risk tournament easy medium hard
--players 3 --games 30``, ``medium``, always after ``easy``, won 23 games
and ``hard`` 3; with the entrants given as ``easy hard medium``, ``hard``,
then after ``easy``, won 22 and ``medium`` 3 (issue 52). Games are
ordered round by round (every pairing's first game, then every second
game, ...) so standings are fair at every moment of a running tournament.
Each game's seed is derived from the tournament's seed and the game's
index, so a local tournament of bots that think by iterations (not by a
time budget, as the ``medium`` and ``hard`` levels do) replays exactly
from its seed.

A finished game ranks its seats for the mean place: the winners first,
then seats still in the game, then the others in the reverse of the order
they went out (the last one out placed best). The ratings (the server's
``ratings``) take the winners first and every other seat tied.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from riskcore.model.state import State

__all__ = [
    "FORMATS",
    "Entrant",
    "Fixture",
    "Outcome",
    "TournamentError",
    "places",
    "schedule",
    "standings",
]

FORMATS = ("round_robin", "games_per_pairing")
MAX_GAMES = 1000  # a tournament's schedule is kept whole; this bounds it


class TournamentError(ValueError):
    """A tournament that cannot be played as asked; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player of a tournament: a built-in bot (``bot``, maybe at ``level``) or
    a third party's bot playing over HTTP (``kind`` "http")."""

    id: str
    name: str
    kind: str = "bot"
    bot: str | None = None
    level: str | None = None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "level": self.level,
        }


@dataclass(frozen=True, slots=True)
class Fixture:
    """One scheduled game: ``seats`` are entrant ids in seat order (p1, p2, ...)."""

    index: int
    pairing: int
    seats: tuple[str, ...]
    seed: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game as the standings need it: each entrant's place (1 is best;
    equal places tie) and who won."""

    index: int
    places: Mapping[str, int]
    winners: tuple[str, ...]
    reason: str | None = None
    game_id: str | None = None
    turns: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "places": dict(self.places),
            "winners": list(self.winners),
            "reason": self.reason,
            "game_id": self.game_id,
            "turns": self.turns,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            index=int(data["index"]),
            places={k: int(v) for k, v in data["places"].items()},
            winners=tuple(data["winners"]),
            reason=data.get("reason"),
            game_id=data.get("game_id"),
            turns=int(data.get("turns", 0)),
        )


def check_format(entrants: int, players: int, format: str, games: int | None) -> int:
    """Games per pairing, or TournamentError (``too_few_entrants``, ``invalid_format``)."""
    if format not in FORMATS:
        raise TournamentError("invalid_format", f"format must be one of {FORMATS}: {format!r}")
    if entrants < 2 or entrants < players:
        raise TournamentError(
            "too_few_entrants", f"{entrants} entrants cannot fill games of {players} players"
        )
    if format == "round_robin":
        if games is not None:
            raise TournamentError("invalid_format", "round_robin plays one game per seat order")
        return players
    if games is None or games < 1:
        raise TournamentError("invalid_format", "games_per_pairing needs games >= 1")
    return games


def schedule(
    entrant_ids: Sequence[str],
    *,
    players: int,
    format: str = "round_robin",
    games: int | None = None,
    seed: bytes,
) -> list[Fixture]:
    """Every game of the tournament, in the order they are played (module docstring)."""
    per_pairing = check_format(len(entrant_ids), players, format, games)
    pairings = list(itertools.combinations(entrant_ids, players))
    total = per_pairing * len(pairings)
    if total > MAX_GAMES:
        raise TournamentError(
            "tournament_too_large", f"{total} games; a tournament has at most {MAX_GAMES}"
        )
    fixtures: list[Fixture] = []
    for round_ in range(per_pairing):
        turn = round_ % players
        # Every other block of ``players`` rounds seats the pairing in reverse order
        # (module docstring): rotation alone keeps each entrant after the same one.
        backwards = (round_ // players) % 2 == 1
        for number, pairing in enumerate(pairings):
            order = pairing[::-1] if backwards else pairing
            seats = order[turn:] + order[:turn]
            index = len(fixtures)
            fixtures.append(Fixture(index, number, seats, game_seed(seed, index)))
    return fixtures


def game_seed(seed: bytes, index: int) -> bytes:
    return hashlib.sha256(b"tournament|" + seed + f"|{index}".encode()).digest()


def places(state: State) -> dict[str, int]:
    """Each player seat's place in a finished game (module docstring); neutrals have none."""
    seats = [s for s, info in state.seats.items() if info.plays]
    ordered: list[list[str]] = []
    winners = [s for s in seats if s in state.winners or s == state.winner]
    if winners:
        ordered.append(winners)
    alive = [s for s in seats if s not in winners and s not in state.out]
    if alive:
        ordered.append(alive)
    gone = [s for s in state.out if s in seats and s not in winners]
    ordered += [[s] for s in reversed(gone)]
    found: dict[str, int] = {}
    for place, group in enumerate(ordered, 1):
        found.update(dict.fromkeys(group, place))
    return found


def outcome_of(fixture: Fixture, state: State, *, game_id: str | None = None) -> Outcome:
    """The ``Outcome`` of ``fixture``'s finished game: seat places as entrants' places."""
    entrant_of = {f"p{i}": entrant for i, entrant in enumerate(fixture.seats, 1)}
    ranked = {entrant_of[seat]: place for seat, place in places(state).items()}
    winners = tuple(
        entrant_of[s] for s in state.winners or ((state.winner,) if state.winner else ())
    )
    return Outcome(fixture.index, ranked, winners, state.finish_reason, game_id, state.turn)


@dataclass
class Row:
    """One entrant's line of the table: games, wins (a shared win counts its share),
    and the mean place."""

    entrant: str
    games: int = 0
    wins: float = 0.0
    place_sum: int = 0

    @property
    def mean_place(self) -> float | None:
        return round(self.place_sum / self.games, 3) if self.games else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "games": self.games,
            "wins": round(self.wins, 3),
            "mean_place": self.mean_place,
        }


def standings(entrant_ids: Sequence[str], outcomes: Sequence[Outcome]) -> dict[str, Row]:
    """Games, wins and places of every entrant, from the finished games."""
    rows = {e: Row(e) for e in entrant_ids}
    for outcome in outcomes:
        for entrant, place in outcome.places.items():
            rows[entrant].games += 1
            rows[entrant].place_sum += place
        for entrant in outcome.winners:
            rows[entrant].wins += 1 / len(outcome.winners)
    return rows


def entrants_from(requests: Sequence[Mapping[str, Any]]) -> list[Entrant]:
    """Entrants ``e1``, ``e2``, ... from their requests (``kind``, ``bot``, ``level``,
    ``name``): each bot and level checked, each bot named in words after its
    level, else its bot (``Hard bot``, ``Random bot``), each name made unique
    (a second ``Hard bot`` is ``Hard bot 2``). TournamentError for an unknown bot or
    level, or a level of another bot."""
    from riskcore.bots import bot_names
    from riskcore.bots.levels import LEVELS

    made: list[Entrant] = []
    taken: set[str] = set()
    for number, request in enumerate(requests, 1):
        kind = request.get("kind", "bot")
        bot, level = request.get("bot"), request.get("level")
        if kind == "bot":
            bot, level = _bot_and_level(number, bot, level, LEVELS, bot_names())
        name = request.get("name") or (
            f"{(level or bot or '').capitalize()} bot" if kind == "bot" else f"http {number}"
        )
        unique, n = name, 1
        while unique in taken:
            n += 1
            unique = f"{name} {n}"
        taken.add(unique)
        made.append(Entrant(f"e{number}", unique, kind, bot, level))
    return made


def _bot_and_level(
    number: int, bot: str | None, level: str | None, levels: Mapping[str, Any], bots: list[str]
) -> tuple[str, str | None]:
    where = f"entrant {number}"
    if level is not None:
        found = levels.get(level)
        if found is None:
            raise TournamentError("unknown_level", f"{where}: no level {level!r}; {list(levels)}")
        if bot is not None and bot != found.bot:
            raise TournamentError(
                "level_not_for_bot", f"{where}: level {level!r} plays {found.bot}, not {bot!r}"
            )
        bot = found.bot
    if bot is None or bot not in bots:
        raise TournamentError("unknown_bot", f"{where}: no bot {bot!r}; {bots}")
    return bot, level
