"""Service settings: one frozen value, read from the environment once.

Every knob an operator may turn is here with its default and its variable,
so ``create_app`` and ``risk serve`` agree and tests can build a ``Settings``
directly instead of patching the environment::

    REDIS_URL              redis://127.0.0.1:6379/0   the game store
    RISK_REDIS_CLUSTER     0               1: REDIS_URL is a node of a Redis Cluster
    RISK_QUEUE_URL         REDIS_URL       RQ's queues (a plain Redis; needed with a cluster)
    RISK_KEY_PREFIX        risk            (keys: see service/store/keys.py)
    RISK_DATABASE_URL      sqlite:///.data/risk.db   the archive of finished games and the
                                           game history (a SQLAlchemy URL: PostgreSQL in
                                           deployments, postgresql+psycopg://...)
    RISK_ARCHIVE_DAYS      0               archived games older than this are dropped by
                                           `risk archive prune` and the projector (0: for ever)
    RISK_ADMIN_TOKEN       unset: no operator endpoints
    RISK_RATE_GUESS        30/60           unknown account tokens per window per address (issue 49)
    RISK_CHALLENGE_HOURS   24              a challenge of accounts or open seats expires then
                                           unanswered (a challenge may ask for less or more,
                                           60 s to 7 days)
    RISK_OIDC_ISSUER       unset: no JWTs  bearer JWTs from this issuer act for an account
    RISK_OIDC_AUDIENCE     unset           the audience those JWTs must name
    RISK_OIDC_JWKS         ISSUER/.well-known/jwks.json   the issuer's key set: a URL, or
                                           the JSON key set itself
    RISK_CORS_ORIGINS      unset: no CORS headers; "*" or a comma-separated list
    RISK_RATE_TOKEN        600/60          requests per window per seat token ("off" to disable)
    RISK_RATE_IP           1200/60         requests per window per client address
    RISK_COSTLY_IP         60/60           large summaries, records and verifications built
                                           per window per address (a kept one is free)
    RISK_ANALYSES_PENDING  64              summed depth of the analyses one address may have
                                           queued or running at once (0: no bound)
    RISK_TOKEN_GUESSES_GAME 60/60          wrong seat tokens per window per game; past it the
                                           game's tokens answer 429 until the window ends
    RISK_OFFLOAD_WAITING   8               requests that may wait for a process's helper
                                           (service.application.offload); more get 503 + Retry-After
    RISK_OFFLOAD_NICE      10              niceness of that helper (0: the server's own): the
                                           request workers go first for a busy machine's CPU
    RISK_SEND_TIMEOUT      30              seconds a client may stop reading a record
    RISK_CREATE_TOKEN      unset: anyone may create games; set: POST /v1/games needs it
                           (or the admin token) as its bearer token
    RISK_GAMES_PER_ADDRESS 20              open + running games one address may have (0: any)
    RISK_GAMES_PER_TOKEN   200             the same per bearer token a game is created with
    RISK_OPEN_GAME_HOURS   24              an open game nobody finished joining then ends
    RISK_IDLE_GAME_HOURS   72              a running game with no event no longer counts
    RISK_FINISHED_GAME_DAYS 7              a finished game's keys expire then (0: kept for ever)
    RISK_STORED_GAMES_PER_ADDRESS 200      games one address may create within the retention
                                           horizon (finished days + idle hours); 0: any
    RISK_STORED_GAMES_PER_TOKEN   1000     the same per bearer token (both off where
                                           RISK_GAMES_PER_ADDRESS / _TOKEN is 0)
    RISK_CREATE_MEMORY_PERCENT    80       no new game while Redis uses this share of its
                                           maxmemory (0: never refuse)
    RISK_PROXY_HOPS        0               trusted X-Forwarded-For hops (behind a proxy)
    RISK_MAX_BODY_BYTES    65536
    RISK_MAX_RECORD_BYTES  16777216        largest record POST /v1/records/verify takes
    RISK_BODY_TIMEOUT      10              seconds a client has to send its whole body (408)
    RISK_SNAPSHOT_EVERY    100             events between state snapshots
    RISK_MAX_GAME_EVENTS   25000           a game ends (abandoned, no winner) at this many
                                           events (0: no ceiling)
    RISK_CACHE_GAMES       1024            games kept folded in each process
    RISK_MAX_WAIT          30              longest long-poll, seconds
    RISK_SSE_KEEPALIVE     15              seconds between SSE keep-alive comments
    RISK_SSE_MAX_SECONDS   300             a stream then ends; clients resume by Last-Event-ID
    RISK_STREAMS_PER_ADDRESS 32            open streams + waiting long-polls per address (0: no cap)
    RISK_BIND / RISK_WORKERS / RISK_THREADS / RISK_WORKER_CLASS   for ``risk serve``
    RISK_CONNECTIONS       4000            connections a worker serves at once (gevent); also
                                           the size of each Redis connection pool

Rate limits default to what a person playing, or a bot polling every
100 ms, never reaches; a client above them is misbehaving.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_DATABASE_URL", "RateLimit", "Settings"]

# The embedded archive: a SQLite file beside Redis' own data (``make run`` needs nothing more).
DEFAULT_DATABASE_URL = "sqlite:///.data/risk.db"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``limit`` requests per ``window`` seconds; ``limit`` 0 disables it."""

    limit: int
    window: int

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """``"600/60"`` (600 per minute) or ``"off"``."""
        if text.strip().lower() in ("off", "0", ""):
            return cls(0, 1)
        count, _, seconds = text.partition("/")
        try:
            limit, window = int(count), int(seconds or "1")
        except ValueError:
            raise ValueError(f"a rate limit is 'COUNT/SECONDS' or 'off', not {text!r}") from None
        if limit < 0 or window < 1:
            raise ValueError(f"a rate limit needs COUNT >= 0 and SECONDS >= 1: {text!r}")
        return cls(limit, window)

    @property
    def enabled(self) -> bool:
        return self.limit > 0


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_cluster: bool = False
    queue_url: str | None = None
    key_prefix: str = "risk"
    database_url: str = DEFAULT_DATABASE_URL
    archive_days: float = 0.0
    admin_token: str | None = None
    create_token: str | None = None
    games_per_address: int = 20
    games_per_token: int = 200
    open_game_hours: float = 24.0
    challenge_hours: float = 24.0
    idle_game_hours: float = 72.0
    finished_game_days: float = 7.0
    stored_games_per_address: int = 200
    stored_games_per_token: int = 1000
    create_memory_percent: float = 80.0
    cors_origins: tuple[str, ...] = ()
    rate_token: RateLimit = field(default_factory=lambda: RateLimit(600, 60))
    rate_ip: RateLimit = field(default_factory=lambda: RateLimit(1200, 60))
    costly_ip: RateLimit = field(default_factory=lambda: RateLimit(60, 60))
    token_guesses_game: RateLimit = field(default_factory=lambda: RateLimit(60, 60))
    analyses_pending: int = 64
    rate_guess: RateLimit = field(default_factory=lambda: RateLimit(30, 60))
    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_jwks: str | None = None
    offload_waiting: int = 8
    offload_nice: int = 10
    send_timeout_seconds: float = 30.0
    proxy_hops: int = 0
    max_body_bytes: int = 64 * 1024
    max_record_bytes: int = 16 * 1024 * 1024
    body_timeout_seconds: float = 10.0
    snapshot_every: int = 100
    max_game_events: int = 25_000
    cache_games: int = 1024
    max_wait_seconds: float = 30.0
    sse_keepalive_seconds: float = 15.0
    sse_max_seconds: float = 300.0
    streams_per_address: int = 32
    bind: str = "127.0.0.1:8000"
    workers: int = 2
    threads: int = 8
    connections: int = 4000

    def __post_init__(self) -> None:
        if self.redis_cluster and not self.queue_url:
            raise ValueError(
                "RQ's queues cannot live on a Redis Cluster: with RISK_REDIS_CLUSTER=1, "
                "set RISK_QUEUE_URL to a plain Redis"
            )

    @property
    def finished_seconds(self) -> int:
        """How long a finished game is kept (0: for ever)."""
        return round(self.finished_game_days * 86400)

    @property
    def retention_horizon_seconds(self) -> float:
        """How long after its creation a game may still be stored: it finishes (or is
        ended idle) by then, and is kept ``finished_game_days`` more."""
        return self.finished_seconds + (self.idle_game_hours + self.open_game_hours) * 3600

    @property
    def queue_redis_url(self) -> str:
        """Where RQ's queues are: ``queue_url``, or the store's Redis."""
        return self.queue_url or self.redis_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``env`` (default ``os.environ``), then ``overrides``."""
        env = os.environ if env is None else env
        base = cls()
        values: dict[str, Any] = {
            "redis_url": env.get("REDIS_URL", base.redis_url),
            "redis_cluster": _flag("RISK_REDIS_CLUSTER", env.get("RISK_REDIS_CLUSTER", "")),
            "queue_url": env.get("RISK_QUEUE_URL") or None,
            "key_prefix": env.get("RISK_KEY_PREFIX", base.key_prefix),
            "database_url": env.get("RISK_DATABASE_URL") or base.database_url,
            "admin_token": env.get("RISK_ADMIN_TOKEN") or None,
            "create_token": env.get("RISK_CREATE_TOKEN") or None,
            "cors_origins": _origins(env.get("RISK_CORS_ORIGINS", "")),
            "bind": env.get("RISK_BIND", base.bind),
            "oidc_issuer": env.get("RISK_OIDC_ISSUER") or None,
            "oidc_audience": env.get("RISK_OIDC_AUDIENCE") or None,
            "oidc_jwks": env.get("RISK_OIDC_JWKS") or None,
        }
        if "RISK_RATE_TOKEN" in env:
            values["rate_token"] = RateLimit.parse(env["RISK_RATE_TOKEN"])
        if "RISK_RATE_IP" in env:
            values["rate_ip"] = RateLimit.parse(env["RISK_RATE_IP"])
        if "RISK_RATE_GUESS" in env:
            values["rate_guess"] = RateLimit.parse(env["RISK_RATE_GUESS"])
        if "RISK_COSTLY_IP" in env:
            values["costly_ip"] = RateLimit.parse(env["RISK_COSTLY_IP"])
        if "RISK_TOKEN_GUESSES_GAME" in env:
            values["token_guesses_game"] = RateLimit.parse(env["RISK_TOKEN_GUESSES_GAME"])
        for name, variable, kind in _NUMBERS:
            if variable in env:
                values[name] = _number(kind, variable, env[variable])
        return cls(**{**values, **overrides})


_NUMBERS: tuple[tuple[str, str, type], ...] = (
    ("proxy_hops", "RISK_PROXY_HOPS", int),
    ("games_per_address", "RISK_GAMES_PER_ADDRESS", int),
    ("games_per_token", "RISK_GAMES_PER_TOKEN", int),
    ("open_game_hours", "RISK_OPEN_GAME_HOURS", float),
    ("challenge_hours", "RISK_CHALLENGE_HOURS", float),
    ("idle_game_hours", "RISK_IDLE_GAME_HOURS", float),
    ("finished_game_days", "RISK_FINISHED_GAME_DAYS", float),
    ("archive_days", "RISK_ARCHIVE_DAYS", float),
    ("stored_games_per_address", "RISK_STORED_GAMES_PER_ADDRESS", int),
    ("stored_games_per_token", "RISK_STORED_GAMES_PER_TOKEN", int),
    ("create_memory_percent", "RISK_CREATE_MEMORY_PERCENT", float),
    ("max_body_bytes", "RISK_MAX_BODY_BYTES", int),
    ("max_record_bytes", "RISK_MAX_RECORD_BYTES", int),
    ("body_timeout_seconds", "RISK_BODY_TIMEOUT", float),
    ("analyses_pending", "RISK_ANALYSES_PENDING", int),
    ("offload_waiting", "RISK_OFFLOAD_WAITING", int),
    ("offload_nice", "RISK_OFFLOAD_NICE", int),
    ("send_timeout_seconds", "RISK_SEND_TIMEOUT", float),
    ("snapshot_every", "RISK_SNAPSHOT_EVERY", int),
    ("max_game_events", "RISK_MAX_GAME_EVENTS", int),
    ("cache_games", "RISK_CACHE_GAMES", int),
    ("max_wait_seconds", "RISK_MAX_WAIT", float),
    ("sse_keepalive_seconds", "RISK_SSE_KEEPALIVE", float),
    ("sse_max_seconds", "RISK_SSE_MAX_SECONDS", float),
    ("streams_per_address", "RISK_STREAMS_PER_ADDRESS", int),
    ("workers", "RISK_WORKERS", int),
    ("threads", "RISK_THREADS", int),
    ("connections", "RISK_CONNECTIONS", int),
)


def _number(kind: type, variable: str, text: str) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{variable} must be a number, not {text!r}") from None
    if value < 0:
        raise ValueError(f"{variable} must not be negative: {text!r}")
    return value


def _flag(variable: str, text: str) -> bool:
    value = text.strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{variable} must be 1 or 0, not {text!r}")


def _origins(text: str) -> tuple[str, ...]:
    return tuple(origin.strip() for origin in text.split(",") if origin.strip())
