"""The Redis key layout: the one place that names keys.

Games are spread over ``partitions`` hash tags ``{p<N>}``, N = CRC-32 of the
game id modulo the partition count. Every key of a game, and the outbox
stream and game index of its partition, carry the same tag, so they live in
one Redis Cluster slot and every script touches exactly one slot::

    <prefix>:{p<N>}:game:<id>:events     stream, entry id <version>-0
    <prefix>:{p<N>}:game:<id>:meta       hash: v (version), h (head hash), e (epoch)
    <prefix>:{p<N>}:game:<id>:seed       string: the secret server seed
    <prefix>:{p<N>}:game:<id>:snapshot   hash: v (version), s (stamp), d (data)
    <prefix>:{p<N>}:game:<id>:idem:<key> string with a TTL: one idempotency record (a hash
                                         when written before 2026-12-01, still read);
                                         <key> is seat:<seat>:<client's key> or
                                         server:<seat>:<the server's own key>; an
                                         append without a key keeps none (on Redis
                                         Cluster: one under the store's auto-<hex> key)
    <prefix>:{p<N>}:outbox               stream: one notification per append, one field
                                         n = "<first> <last> <game id> <kind>" (fields
                                         g, f, l, k before 2026-12-01, still read)
    <prefix>:{p<N>}:games                sorted set: game ids by creation time (ms)

The API's own records (``service.application.lobby``, ``service.http.ratelimit``), in the
same slot as the game::

    <prefix>:{p<N>}:game:<id>:info       hash: the game's setup (board, rules, clock,
                                         seat plan, status, creation time)
    <prefix>:{p<N>}:game:<id>:seats      hash: seat -> JSON (kind, name, bot, token hash)
    <prefix>:{p<N>}:dir:<status>         sorted set, all scores 0, members
                                         "<creation ms, 15 digits>:<id>": the directory
                                         of open / running / finished games
    <prefix>:rl:<scope>:<id>:<window>    string with a TTL: a rate-limit counter
    <prefix>:quota:<scope>:<id>          sorted set: a creator's active games -> creation ms
    <prefix>:stored:<scope>:<id>         sorted set with a TTL: a creator's creations within
                                         the retention horizon (service.application.storage)
    <prefix>:streams:<address>           sorted set with a TTL: open streams and waiting
                                         long-polls of one client address, by lease end

The workers' record kept beside a game (``workers.claims``)::

    <prefix>:{p<N>}:game:<id>:worker     string with a TTL: the id of the bot job holding
                                         the game (queued or running)

Results kept beside a game (``service.application.records``, ``service.application.computed``)::

    <prefix>:{p<N>}:game:<id>:record     string: a finished game's record (zlib)
    <prefix>:{p<N>}:game:<id>:computed:<kind>  string with a TTL: 8-byte version + zlib of
                                         a summary or a reader's record at that version

Tournaments (``service.application.tournaments``), each under a hash tag of its own::

    <prefix>:{t:<id>}:tournament         hash: spec (JSON: entrants, format, schedule),
                                         status, created (ms), entrant token hashes
    <prefix>:{t:<id>}:games              hash: game index -> game id, once created
    <prefix>:{t:<id>}:results            hash: game index -> outcome (JSON), once finished
    <prefix>:{t:<id>}:feed               stream: one entry per change of the standings
    <prefix>:{t:<id>}:lock               string with a TTL: who advances it now
    <prefix>:tournaments                 sorted set: tournament ids by creation time (ms)

Why partitions rather than one tag per game: a relay then reads a fixed set
of outbox streams (one per partition) instead of one per game, and the
append script can still write the notification in the same slot. The cost
is that Redis Cluster places at most ``partitions`` slots' worth of data
per prefix, so raise the count (say to 256) before spreading over many
shards. Changing it moves games between tags: only on an empty store.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from service.store.errors import InvalidName

__all__ = ["GameKeys", "KeySpace", "TournamentKeys"]

_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
# The API takes keys of up to 200 characters; the store names them with the seat
# in front (``service.application.commands.stored_idempotency_key``), hence the room.
MAX_IDEMPOTENCY_KEY = 256
MAX_PARTITIONS = 16384  # Redis Cluster has 16384 slots; more tags cannot help
DIRECTORY_STATUSES = ("open", "running", "finished")
_RATE_PART = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


class GameKeys(NamedTuple):
    """All keys of one game, computed once per game id."""

    events: str
    meta: str
    seed: str
    snapshot: str
    idempotency_prefix: str
    outbox: str
    games: str

    def idempotency(self, key: str) -> str:
        """Key of one idempotency record, scoped to the game so ids cannot collide."""
        if not 0 < len(key) <= MAX_IDEMPOTENCY_KEY or not key.isprintable():
            raise InvalidName(
                f"idempotency key must be 1..{MAX_IDEMPOTENCY_KEY} printable characters: {key!r}"
            )
        return self.idempotency_prefix + key


@dataclass(frozen=True, slots=True)
class KeySpace:
    """Key names for one deployment (``prefix``) split into ``partitions`` tags."""

    prefix: str = "risk"
    partitions: int = 16

    def __post_init__(self) -> None:
        if not _PREFIX.fullmatch(self.prefix):
            raise InvalidName(f"key prefix must match {_PREFIX.pattern}: {self.prefix!r}")
        if not 1 <= self.partitions <= MAX_PARTITIONS:
            raise InvalidName(f"partitions must be 1..{MAX_PARTITIONS}: {self.partitions!r}")

    def partition(self, game_id: str) -> int:
        """Stable partition of a game: the same on every host and Python version."""
        return _game_keys(self, game_id)[0]

    def game(self, game_id: str) -> GameKeys:
        """Every key of ``game_id``; raises InvalidName for an id that cannot be a key."""
        return _game_keys(self, game_id)[1]

    def tag(self, partition: int) -> str:
        """Common start of every key in ``partition``, hash tag included."""
        if not 0 <= partition < self.partitions:
            raise InvalidName(f"partition must be 0..{self.partitions - 1}: {partition!r}")
        return f"{self.prefix}:{{p{partition}}}"

    def outbox(self, partition: int) -> str:
        """The notification stream a relay reads for ``partition``."""
        return f"{self.tag(partition)}:outbox"

    def games(self, partition: int) -> str:
        """The sorted set of game ids created in ``partition``."""
        return f"{self.tag(partition)}:games"

    def outboxes(self) -> list[str]:
        """Every outbox stream, in partition order."""
        return [self.outbox(n) for n in range(self.partitions)]

    def game_indexes(self) -> list[str]:
        """Every game index, in partition order."""
        return [self.games(n) for n in range(self.partitions)]

    # -- the API's records (service.application.lobby, service.http.ratelimit) -----------------

    def game_info(self, game_id: str) -> str:
        """Hash with a game's setup and status; it exists from creation, before any event."""
        return f"{_game_base(self, game_id)}:info"

    def game_seats(self, game_id: str) -> str:
        """Hash of filled seats: seat id -> JSON record holding the token's hash."""
        return f"{_game_base(self, game_id)}:seats"

    def directory(self, partition: int, status: str) -> str:
        """Sorted set (by member, scores all 0) of the games of ``partition`` in ``status``."""
        if status not in DIRECTORY_STATUSES:
            raise InvalidName(f"status must be one of {DIRECTORY_STATUSES}: {status!r}")
        return f"{self.tag(partition)}:dir:{status}"

    def directories(self, status: str) -> list[str]:
        """The directory of ``status`` in every partition, in partition order."""
        return [self.directory(n, status) for n in range(self.partitions)]

    def rate_limit(self, scope: str, ident: str, window: int) -> str:
        """Counter of one client (``ident``) in one fixed window of ``scope``.

        Outside every game slot on purpose: a limiter touches one key per call.
        """
        if not _RATE_PART.fullmatch(scope) or not _RATE_PART.fullmatch(ident):
            raise InvalidName(f"rate-limit scope and id must match {_RATE_PART.pattern}")
        return f"{self.prefix}:rl:{scope}:{ident}:{window}"

    def game_quota(self, scope: str, ident: str) -> str:
        """Sorted set of one creator's active games (``service.application.quotas``)."""
        if not _RATE_PART.fullmatch(scope) or not _RATE_PART.fullmatch(ident):
            raise InvalidName(f"quota scope and id must match {_RATE_PART.pattern}")
        return f"{self.prefix}:quota:{scope}:{ident}"

    def stored(self, scope: str, ident: str) -> str:
        """Sorted set with a TTL: one creator's creations within the retention horizon
        (``service.application.storage``), by creation ms."""
        if not _RATE_PART.fullmatch(scope) or not _RATE_PART.fullmatch(ident):
            raise InvalidName(f"storage scope and id must match {_RATE_PART.pattern}")
        return f"{self.prefix}:stored:{scope}:{ident}"

    def retained(self, game_id: str) -> list[str]:
        """The keys of a game that live as long as it is kept (``Lobby.move`` gives them
        the retention's TTL when it finishes; the others have TTLs of their own)."""
        game = self.game(game_id)
        return [
            game.events,
            game.meta,
            game.seed,
            game.snapshot,
            self.game_info(game_id),
            self.game_seats(game_id),
            self.record_export(game_id),
            self.clock(game_id),
        ]

    def stream_slots(self, address: str) -> str:
        """Sorted set of one client address's open streams (``service.http.stream_slots``)."""
        if not _RATE_PART.fullmatch(address):
            raise InvalidName(f"an address in a key must match {_RATE_PART.pattern}")
        return f"{self.prefix}:streams:{address}"

    # -- tournaments (service.application.tournaments) --------------------------------------

    def tournament(self, tournament_id: str) -> TournamentKeys:
        """Every key of one tournament, under its own hash tag."""
        check_tournament_id(tournament_id)
        base = f"{self.prefix}:{{t:{tournament_id}}}"
        return TournamentKeys(
            info=f"{base}:tournament",
            games=f"{base}:games",
            results=f"{base}:results",
            feed=f"{base}:feed",
            lock=f"{base}:lock",
        )

    def tournaments(self) -> str:
        """Sorted set of every tournament id by creation time (ms)."""
        return f"{self.prefix}:tournaments"

    def running_tournaments(self) -> str:
        """Set of the tournaments still running: the relay's sweep advances each again."""
        return f"{self.prefix}:tournaments:running"

    def tournament_sweep(self) -> str:
        """Held (``SET NX PX``) by the relay that sweeps the tournaments this window."""
        return f"{self.prefix}:tournaments:sweep"

    def games_sweep(self) -> str:
        """Held (``SET NX PX``) by the relay that enqueued this minute's sweep of games."""
        return f"{self.prefix}:games:sweep"

    # -- the workers' records (workers.relay, workers.jobs) -------------------

    def relay_dead_letters(self) -> str:
        """Stream of outbox notifications the relay gave up on after repeated failures."""
        return f"{self.prefix}:relay:dead"

    def relay_heartbeats(self) -> str:
        """Sorted set: relay consumer name -> when (unix ms) it last made a round.

        ``/readyz`` and ``/metrics`` count the relays seen lately from it.
        """
        return f"{self.prefix}:relay:alive"

    def projector_heartbeats(self) -> str:
        """Sorted set: projector consumer name -> when (unix ms) it last made a round
        (``workers.projector``; ``/readyz`` and ``/metrics`` read it)."""
        return f"{self.prefix}:projector:alive"

    def projector_stats(self) -> str:
        """Hash: the projector's recent figures (lag percentiles, games archived)."""
        return f"{self.prefix}:projector:stats"

    def projector_dead_letters(self) -> str:
        """Stream of notifications the projector gave up on (a record that failed its
        verification, again and again)."""
        return f"{self.prefix}:projector:dead"

    def job_dead_letters(self) -> str:
        """Stream of jobs that gave up for good (an idempotency mismatch): game, job, error.

        Each also fails in RQ's failed registry; this keeps the why, for operators.
        """
        return f"{self.prefix}:jobs:dead"

    def worker_leases(self) -> str:
        """Sorted set: game id -> when (unix ms) a worker should have acted on it.

        The relay's watchdog re-enqueues a game whose lease ran out, which
        is how a job lost with a killed worker gets done after all.
        """
        return f"{self.prefix}:relay:leases"

    def worker_claim(self, game_id: str) -> str:
        """String with a TTL: the id of the one bot job that holds the game now (queued or
        running); while it is set, the relay enqueues no other (``workers.claims``)."""
        return f"{_game_base(self, game_id)}:worker"

    def replay_checkpoints(self, game_id: str) -> str:
        """Hash: version -> encoded state, every 1,000 events, for replays (a cache)."""
        return f"{_game_base(self, game_id)}:checkpoints"

    def record_export(self, game_id: str) -> str:
        """String: a finished game's complete record (zlib-compressed JSON Lines)."""
        return f"{_game_base(self, game_id)}:record"

    def computed(self, game_id: str, kind: str) -> str:
        """String with a TTL: a result built at one version (``service.application.computed``);
        ``kind`` is ``summary``, ``record:<seat>`` or ``record:public``."""
        return f"{_game_base(self, game_id)}:computed:{kind}"

    def creation_idempotency(self, caller: str, key: str) -> str:
        """String with a TTL: a game creation's (or fork's) idempotency record, by the
        caller (token or address) and its ``Idempotency-Key`` (``CreationRecords``)."""
        digest = hashlib.sha256(f"{caller}\n{key}".encode()).hexdigest()[:32]
        return f"{self.prefix}:idem:create:{digest}"

    def analyses_pending(self, address: str) -> str:
        """Sorted set: the analyses one address asked for that may still be queued or
        running (``<game>|<depth>|<head>`` -> weight), bounded by their weight (issue 54)."""
        return f"{self.prefix}:analyses:pending:{address}"

    def clock(self, game_id: str) -> str:
        """Hash of a game's turn clock: deadline (unix ms), version and turn it applies to."""
        return f"{_game_base(self, game_id)}:clock"

    # -- players (issue 49) ----------------------------------------------------

    def tokens_version(self) -> str:
        """Counter raised by every token revocation or account deletion (and announced on
        this name + ``:bumped``): each API process empties its cache of token lookups
        when it moved (``service.store.tokens.RevocationCounter``)."""
        return f"{self.prefix}:accounts:tokens-version"

    def rated_finished(self) -> str:
        """List of rated games that finished and wait to be rated
        (``service.application.player_ratings``)."""
        return f"{self.prefix}:accounts:rated-finished"

    def pairing(self) -> str:
        """The start of every key of the quick-pairing queue (issue 49), under one hash
        tag so its script touches one slot::

            <prefix>:{pairing}:due                 sorted set: waiting seek -> when bots fill in
            <prefix>:{pairing}:matching            sorted set: matched game -> when, until made
            <prefix>:{pairing}:queue:<bucket>      sorted set: waiting seek -> when it joined
            <prefix>:{pairing}:seek:<id>           hash with a TTL: one seek and what it became
            <prefix>:{pairing}:match:<game>        hash with a TTL: a match's seeks, in seat order
            <prefix>:{pairing}:lock:<game>         string with a TTL: who makes the match's game
            <prefix>:{pairing}:account:<id>        string with a TTL: the account's seek
        """
        return f"{self.prefix}:{{pairing}}"

    def rq_prefix(self) -> str:
        """Queue names of this deployment's RQ queues start with this."""
        return f"{self.prefix}."


class TournamentKeys(NamedTuple):
    info: str
    games: str
    results: str
    feed: str
    lock: str


_TOURNAMENT_ID = re.compile(r"t[0-9a-f]{16}")


def check_tournament_id(tournament_id: str) -> str:
    """Tournament ids are made by the server: ``t`` and 16 hex digits."""
    if not isinstance(tournament_id, str) or not _TOURNAMENT_ID.fullmatch(tournament_id):
        raise InvalidName(f"tournament id must match {_TOURNAMENT_ID.pattern}: {tournament_id!r}")
    return tournament_id


def check_game_id(game_id: str) -> str:
    """Refuse ids that could break a key (``:`` or braces) or bloat memory."""
    if not isinstance(game_id, str) or not _GAME_ID.fullmatch(game_id):
        raise InvalidName(f"game id must match {_GAME_ID.pattern}: {game_id!r}")
    return game_id


def _game_base(space: KeySpace, game_id: str) -> str:
    """``<prefix>:{p<N>}:game:<id>``, the start of every key of one game."""
    return space.game(game_id).meta.removesuffix(":meta")


@lru_cache(maxsize=65536)
def _game_keys(space: KeySpace, game_id: str) -> tuple[int, GameKeys]:
    """Cached: an append needs six key names, and building them is pure overhead."""
    partition = zlib.crc32(check_game_id(game_id).encode()) % space.partitions
    tag = space.tag(partition)
    base = f"{tag}:game:{game_id}"
    keys = GameKeys(
        events=f"{base}:events",
        meta=f"{base}:meta",
        seed=f"{base}:seed",
        snapshot=f"{base}:snapshot",
        idempotency_prefix=f"{base}:idem:",
        outbox=f"{tag}:outbox",
        games=f"{tag}:games",
    )
    return partition, keys
