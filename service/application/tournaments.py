"""Tournaments on the server: entrants, a schedule of ordinary games, live standings.

``POST /v1/tournaments`` checks the entrants and the format
(``riskcore.tournament``), stores the tournament and its whole schedule,
and starts its first games. Every tournament game is an ordinary game,
created through ``GameService.create`` with its seats named after the
entrants: listed in the lobby, played by the workers, replayable and
verifiable. Each seat of a built-in bot is a bot seat at the entrant's
level; each seat of an HTTP entrant is a human seat whose token is the
entrant's own (only its hash is stored, on the seat as on any human seat),
so one token plays every game of that entrant, and those games get a turn
clock (``turn_seconds``; the heuristic bot plays a turn the bot misses), so
a bot that goes away cannot stall the tournament.

At most ``parallel`` games run at once. When one finishes, the worker that
saw it finish runs ``advance`` (``workers.jobs.advance_tournament``): it
records the outcome of every finished game, starts the next ones, and
marks the tournament finished after its last game. ``advance`` holds the
tournament's lock, so two workers never start the same game twice, and it
is safe to run any number of times.

Seeds: the tournament draws a secret seed of its own; each game's server
seed is derived from it and the game's index (``riskcore.tournament``), so
each game's record commits to its seed as any game does and reveals it
when it ends, and the tournament's seed (committed to from the start by
its SHA-256, in the document) is revealed when the tournament ends: anyone
can then check that every game's seed came from it.

Standings and ratings are computed from the recorded outcomes on every
read (``service.application.ratings``), in schedule order, so they never disagree with
the results. Every change appends to the tournament's feed stream, which
``GET /v1/tournaments/{id}/stream`` follows.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from riskcore.engine.registry import mode_named
from riskcore.model.state import FINISHED
from riskcore.tournament import (
    Entrant,
    Fixture,
    Outcome,
    TournamentError,
    entrants_from,
    game_seed,
    outcome_of,
    schedule,
)
from service.application import auth
from service.application.games import GameService, SeatPlan
from service.application.ratings import table
from service.store.errors import GameNotFound
from service.store.keys import KeySpace
from service.store.tournaments import StoredTournament, TournamentRecords
from service.store.values import Client

__all__ = ["Created", "TournamentError", "TournamentNotFound", "Tournaments"]

RUNNING, DONE = "running", "finished"
LOCK_SECONDS = 60


class TournamentNotFound(Exception):
    code = "tournament_not_found"

    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"no tournament {tournament_id!r}")


@dataclass(frozen=True, slots=True)
class Spec:
    """A tournament as created; never changes."""

    entrants: tuple[Entrant, ...]
    fixtures: tuple[Fixture, ...]
    format: str
    players: int
    games_per_pairing: int
    mode: str
    board: str
    rules: Mapping[str, Any]
    parallel: int
    turn_seconds: int
    created_ms: int
    seed_commitment: str
    # The account whose token created it: its games are that account's games
    # (their webhooks reach it, as a game's creator's do: issue 50).
    creator: str | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "entrants": [e.public() for e in self.entrants],
                "fixtures": [list(f.seats) for f in self.fixtures],
                "pairings": [f.pairing for f in self.fixtures],
                "format": self.format,
                "players": self.players,
                "games_per_pairing": self.games_per_pairing,
                "mode": self.mode,
                "board": self.board,
                "rules": dict(self.rules),
                "parallel": self.parallel,
                "turn_seconds": self.turn_seconds,
                "created_ms": self.created_ms,
                "seed_commitment": self.seed_commitment,
                "creator": self.creator,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, raw: bytes, seed: bytes) -> Spec:
        data = json.loads(raw)
        entrants = tuple(
            Entrant(e["id"], e["name"], e["kind"], e["bot"], e["level"]) for e in data["entrants"]
        )
        fixtures = tuple(
            Fixture(i, pairing, tuple(seats), game_seed(seed, i))
            for i, (seats, pairing) in enumerate(
                zip(data["fixtures"], data["pairings"], strict=True)
            )
        )
        return cls(
            entrants,
            fixtures,
            data["format"],
            data["players"],
            data["games_per_pairing"],
            data["mode"],
            data["board"],
            data["rules"],
            data["parallel"],
            data["turn_seconds"],
            data["created_ms"],
            data["seed_commitment"],
            data.get("creator"),  # absent from tournaments made before it was kept
        )


@dataclass(frozen=True, slots=True)
class Created:
    document: dict[str, Any]
    tokens: dict[str, str]  # HTTP entrant id -> its token, shown once


class Tournaments:
    """Create, advance and read tournaments (module docstring)."""

    def __init__(
        self,
        games: GameService,
        client: Client,
        keys: KeySpace,
        *,
        blocking_client: Client | None = None,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
    ) -> None:
        self.games = games
        self.records = TournamentRecords(client, keys, blocking_client)
        self.keys = keys
        self._clock = clock
        self._new_seed = new_seed

    # -- creating ----------------------------------------------------------------

    def games_in(self, request: Mapping[str, Any]) -> int:
        """How many games a ``CreateTournament`` body schedules (TournamentError if bad),
        for its creator's storage budget before anything is stored."""
        entrants = entrants_from(request["entrants"])
        fixtures = schedule(
            [e.id for e in entrants],
            players=request["players"],
            format=request["format"],
            games=request.get("games"),
            seed=b"check",
        )
        return len(fixtures)

    def create(self, request: Mapping[str, Any], creator: str | None = None) -> Created:
        """A new tournament from a ``CreateTournament`` body; its first games start now.
        ``creator``: the account whose token created it (None: no account's).

        Everything is checked before anything is stored: TournamentError for
        bad entrants or format; the games' own setup (mode, board, rules, the
        number of players) by a dry run of ``GameService``'s checks.
        """
        entrants = entrants_from(request["entrants"])
        mode = request["mode"] or ("two_player" if request["players"] == 2 else "classic")
        board = request["board"] or mode_named(mode).board  # a mode brings its board
        fixtures = schedule(
            [e.id for e in entrants],
            players=request["players"],
            format=request["format"],
            games=request.get("games"),
            seed=b"check",
        )
        self.games.check_setup(board, mode, request["rules"], request["players"])
        seed = self._new_seed()
        tournament_id = "t" + secrets.token_hex(8)
        spec = Spec(
            entrants=tuple(entrants),
            fixtures=tuple(
                Fixture(f.index, f.pairing, f.seats, game_seed(seed, f.index)) for f in fixtures
            ),
            format=request["format"],
            players=request["players"],
            games_per_pairing=len(fixtures) // max(1, _pairings(fixtures)),
            mode=mode,
            board=board,
            rules=request["rules"],
            parallel=request["parallel"],
            turn_seconds=request["turn_seconds"],
            created_ms=int(self._clock() * 1000),
            seed_commitment=hashlib.sha256(seed).hexdigest(),
            creator=creator,
        )
        tokens = {e.id: auth.new_token() for e in entrants if e.kind == "http"}
        hashes = {entrant: auth.hash_token(token) for entrant, token in tokens.items()}
        tokens_json = json.dumps(hashes, sort_keys=True)
        self.records.create(tournament_id, spec.to_json(), seed, tokens_json, spec.created_ms)
        self.advance(tournament_id)
        return Created(self.document(tournament_id), tokens)

    # -- advancing ---------------------------------------------------------------

    def advance(self, tournament_id: str) -> str:
        """Record finished games, start the next ones, finish the tournament after its
        last game; safe to run any number of times, at once or not."""
        with self.records.lock(tournament_id, LOCK_SECONDS):
            return self._advance(tournament_id)

    def _advance(self, tournament_id: str) -> str:
        stored = self.records.read(tournament_id)
        if stored is None:
            raise TournamentNotFound(tournament_id)
        spec, hashes = _spec(stored)
        if stored.status == DONE:
            self.records.mark_running(tournament_id, False)
            return "finished"
        self.records.mark_running(tournament_id)  # (older ones too)
        started, results = stored.games, stored.results
        changed = False
        for index, game_id in sorted(started.items(), key=lambda item: int(item[0])):
            if index not in results:
                outcome = self._outcome(spec.fixtures[int(index)], game_id)
                if outcome is not None:
                    self.records.record_result(tournament_id, index, json.dumps(outcome.to_dict()))
                    results[index] = ""
                    changed = True
        running = len(started) - len(results)
        for index in range(len(started), len(spec.fixtures)):
            if running >= spec.parallel:
                break
            game_id = self._start(tournament_id, spec, hashes, spec.fixtures[index])
            self.records.record_game(tournament_id, str(index), game_id)
            started[str(index)] = game_id
            running += 1
            changed = True
        finished = len(results) == len(spec.fixtures)
        if changed or finished:
            # The feed's entry first, then the status: a stream that reads "finished"
            # has the entry of the final standings to send before its end.
            entry = {"games_started": len(started), "games_finished": len(results)}
            self.records.note(tournament_id, entry)
        if finished:
            # Kept as long as its games (retention, ``service.application.storage``);
            # the listing then forgets it.
            self.records.finish(tournament_id, self.games.lobby.finished_seconds)
            return "finished"
        return RUNNING

    def forget(self, tournament_id: str) -> None:
        """Out of the listing: its keys expired."""
        self.records.forget(tournament_id)

    def _outcome(self, fixture: Fixture, game_id: str) -> Outcome | None:
        """The finished game's outcome; None while it runs. A game an operator deleted
        is void: done, with no places and no winner, so it counts in no standing and
        no rating."""
        try:
            state = self.games.load(game_id).state
        except GameNotFound:
            return Outcome(fixture.index, {}, (), "deleted", game_id)
        if state.phase != FINISHED:
            return None
        return outcome_of(fixture, state, game_id=game_id)

    def _start(
        self, tournament_id: str, spec: Spec, hashes: Mapping[str, str], fixture: Fixture
    ) -> str:
        game_id = fixture_game_id(tournament_id, fixture.index)
        try:  # started before a crash (or by a retried job) that stored nothing after it
            return self.games.info(game_id).game_id  # (and its start, if that was lost too)
        except GameNotFound:
            pass
        by_id = {e.id: e for e in spec.entrants}
        seats = [_seat(by_id[e], hashes) for e in fixture.seats]
        http = any(by_id[e].kind == "http" for e in fixture.seats)
        created = self.games.create(
            seats=seats,
            board=spec.board,
            mode=spec.mode,
            rules=spec.rules,
            clock={"turn_seconds": spec.turn_seconds, "on_timeout": "bot"} if http else None,
            tournament=tournament_id,
            seed=fixture.seed,
            game_id=game_id,
            creator=spec.creator,
        )
        return created.info.game_id

    # -- reading -----------------------------------------------------------------

    def document(self, tournament_id: str) -> dict[str, Any]:
        """The tournament as served: entrants, every game with its state, the table."""
        stored = self.records.read(tournament_id)
        if stored is None:
            raise TournamentNotFound(tournament_id)
        seed, status, games = stored.seed, stored.status, stored.games
        spec = Spec.from_json(stored.spec, seed)
        outcomes = {int(k): Outcome.from_dict(json.loads(v)) for k, v in stored.results.items()}
        listed = []
        for fixture in spec.fixtures:
            outcome = outcomes.get(fixture.index)
            game_id = games.get(str(fixture.index))
            state = "finished" if outcome else "running" if game_id else "scheduled"
            listed.append(
                {
                    "index": fixture.index,
                    "pairing": fixture.pairing,
                    "seats": list(fixture.seats),
                    "game_id": game_id,
                    "status": state,
                    "winners": list(outcome.winners) if outcome else [],
                    "places": dict(outcome.places) if outcome else None,
                    "seed_commitment": hashlib.sha256(fixture.seed).hexdigest(),
                }
            )
        return {
            "tournament_id": tournament_id,
            "status": status,
            "created": _iso(spec.created_ms),
            "format": spec.format,
            "players": spec.players,
            "games_per_pairing": spec.games_per_pairing,
            "mode": spec.mode,
            "board": spec.board,
            "rules": dict(spec.rules),
            "parallel": spec.parallel,
            "turn_seconds": spec.turn_seconds,
            "entrants": [e.public() for e in spec.entrants],
            "games_total": len(spec.fixtures),
            "games_finished": len(outcomes),
            "games": listed,
            "standings": table(spec.entrants, list(outcomes.values())),
            "seed_commitment": spec.seed_commitment,
            "seed": seed.hex() if status == DONE else None,
        }

    def status(self, tournament_id: str) -> str | None:
        """``running`` or ``finished`` (None: no such tournament), in one read."""
        return self.records.status(tournament_id)

    def list_ids(self, limit: int) -> list[str]:
        return self.records.newest_ids(limit)

    def entrant_for_token(self, tournament_id: str, token: str) -> str | None:
        """The HTTP entrant ``token`` belongs to, if any."""
        stored = self.records.read(tournament_id, games=False)
        if stored is None:
            raise TournamentNotFound(tournament_id)
        hashes = _spec(stored)[1]
        return auth.match_seat(token, list(hashes.items()))

    def feed_after(self, tournament_id: str, last: str, wait_ms: int) -> str | None:
        """The newest feed entry id after ``last`` ("0" for any), waiting up to
        ``wait_ms``; None if nothing changed."""
        return self.records.feed_after(tournament_id, last, wait_ms)

    def feed_head(self, tournament_id: str) -> str:
        """The id of the feed's newest entry, "0" if it has none."""
        return self.records.feed_head(tournament_id)


def _spec(stored: StoredTournament) -> tuple[Spec, dict[str, str]]:
    """The stored tournament's spec and its HTTP entrants' token hashes."""
    return Spec.from_json(stored.spec, stored.seed), json.loads(stored.token_hashes)


def fixture_game_id(tournament_id: str, index: int) -> str:
    """The game of a tournament's fixture: derived, not drawn, so that starting it
    twice (a crash between creating the game and storing its index, a job run
    again) finds the game already there instead of starting a second one."""
    digest = hashlib.sha256(f"{tournament_id}:{index}".encode()).hexdigest()
    return "g" + digest[:16]


def _seat(entrant: Entrant, hashes: Mapping[str, str]) -> SeatPlan:
    if entrant.kind == "http":
        token_hash = hashes[entrant.id]
        return SeatPlan("human", name=entrant.name, entrant=entrant.id, token_hash=token_hash)
    return SeatPlan(
        "bot", name=entrant.name, bot=entrant.bot, level=entrant.level, entrant=entrant.id
    )


def _pairings(fixtures: Sequence[Fixture]) -> int:
    return len({f.pairing for f in fixtures})


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
