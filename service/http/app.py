"""The Flask app factory: Redis clients, the application service, and the hooks.

``create_app(settings)`` builds everything a process needs once: two
clients of the game store (one with a short timeout for commands, one with
a timeout longer than the longest long-poll for blocking reads, so a
waiting client can never starve a command of a connection; see
``service.store.connections`` for one Redis or a cluster), one of RQ's Redis
(for the queue gauges of ``/metrics``), the ``GameService``, the rate
limiter and a metrics registry of its own. Request hooks, in order:

* before: start the clock; 429 when the caller's token or address has used
  up its rate limit (``/v1`` only, never the health checks);
* after: count what the request cost against those limits (progress in a
  game is free, ``service.http.request_cost``) and send ``RateLimit-*`` headers;
  CORS headers for allowed origins, ``Vary``/``Cache-Control`` so
  no proxy serves one seat's view to another, the request metrics, and one
  JSON log line (``service.logs``) with the request id (``X-Request-ID``,
  the caller's if given), the game id and the version.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable

from flask import Flask, Response, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from service import logs
from service.application.accounts import Accounts
from service.application.archived import ArchivedGames, archive_for
from service.application.auth import hash_token
from service.application.challenges import Challenges
from service.application.games import GameService
from service.application.offload import Offload
from service.application.oidc import Oidc
from service.application.pairing import Pairing
from service.application.player_ratings import PlayerRatings
from service.application.quotas import GameQuota
from service.application.storage import StorageBudget
from service.application.tournaments import Tournaments
from service.application.webhooks import Webhooks, WebhookSettings
from service.http import api
from service.http.api.common import Services, bearer_token, client_address, services
from service.http.api.guard import check_scope
from service.http.api.records import RECORDS_VERIFY
from service.http.bodies import SPOOLED, BodyGuard
from service.http.metrics import Metrics
from service.http.problems import ApiProblem, register_error_handlers
from service.http.ratelimit import Check, RateLimiter
from service.http.request_cost import Progress
from service.http.security_headers import secure
from service.http.stream_slots import StreamSlots
from service.settings import Settings
from service.store.accounts import AccountStore
from service.store.challenges import ChallengeStore
from service.store.connections import queue_client, quick_retry, store_client
from service.store.idempotency import CreationRecords
from service.store.keys import KeySpace
from service.store.pairing import PairingQueue
from service.store.queues import JobQueues
from service.store.ratings import FinishedQueue, RatingStore
from service.store.tokens import RevocationCounter, TokenStore
from service.store.webhook_version import WebhookVersion
from service.store.webhooks import WebhookStore

__all__ = ["create_app"]
access = logging.getLogger("service.access")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")

_EXPOSED = "ETag, Location, Retry-After, Idempotent-Replayed"
_ALLOWED_HEADERS = (
    "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID"
)


def create_app(
    settings: Settings | None = None, *, new_seed: Callable[[], bytes] | None = None
) -> Flask:
    """The app; ``new_seed`` replaces the server's random seeds (reproducible tests only)."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.extensions["risk"] = _services(settings, new_seed)
    app.wsgi_app = BodyGuard(  # type: ignore[method-assign]
        app.wsgi_app, _body_limit(settings), settings.body_timeout_seconds
    )
    if settings.proxy_hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops)  # type: ignore[method-assign]
    register_error_handlers(app)
    app.before_request(_start)
    app.before_request(_rate_limit)
    app.before_request(check_scope)
    app.after_request(_finish)
    app.teardown_request(_forget)
    api.register(app)
    return app


def _body_limit(settings: Settings) -> Callable[[str], int]:
    """The largest body a path takes: records to verify are larger than any request."""

    def limit_for(path: str) -> int:
        return settings.max_record_bytes if path == RECORDS_VERIFY else settings.max_body_bytes

    return limit_for


def _services(settings: Settings, new_seed: Callable[[], bytes] | None) -> Services:
    # Each connection the HTTP server holds may wait on Redis at once (gevent):
    # redis-py's pools default to 100 connections, which a thousand streams outrun.
    pool_size = settings.connections + 100
    client = store_client(
        settings,
        max_connections=pool_size,
        socket_timeout=5,
        socket_connect_timeout=2,
        health_check_interval=30,
        retry=quick_retry(),
    )
    blocking = store_client(
        settings,
        max_connections=pool_size,
        socket_timeout=max(settings.max_wait_seconds, settings.sse_keepalive_seconds) + 10,
        socket_connect_timeout=2,
        health_check_interval=30,
        retry=quick_retry(),
    )
    queues = queue_client(settings, socket_timeout=5, socket_connect_timeout=2)
    keys = KeySpace(settings.key_prefix)
    metrics = Metrics()
    archive = archive_for(settings)  # finished games Redis no longer has (issue 48)
    games = GameService(
        client,
        keys,
        blocking_client=blocking,
        snapshot_every=settings.snapshot_every,
        cache_games=settings.cache_games,
        observer=metrics,
        new_seed=new_seed or _random_seed,
        finished_seconds=settings.finished_seconds,
        max_game_events=settings.max_game_events,
        archived=ArchivedGames(archive),
    )
    longest_wait = max(settings.max_wait_seconds, 2 * settings.sse_keepalive_seconds)
    streams = StreamSlots(client, keys, settings.streams_per_address, longest_wait + 10)
    limiter = RateLimiter(client, keys)
    quotas = GameQuota(
        client,
        keys,
        games.lobby,
        games.log,
        open_seconds=settings.open_game_hours * 3600,
        idle_seconds=settings.idle_game_hours * 3600,
        abandon=games.abandon,
    )
    tournaments = Tournaments(games, client, keys, blocking_client=blocking)
    offload = Offload(settings, max_waiting=settings.offload_waiting)
    computed = games.computed
    storage = StorageBudget(
        client,
        keys,
        horizon_seconds=settings.retention_horizon_seconds,
        memory_percent=settings.create_memory_percent,
    )
    # Accounts, tokens and ratings (issue 49) share the archive's database and engine.
    engine, migrate_first = archive.engine, archive.migrated_now
    accounts = Accounts(
        AccountStore(engine, migrate_first=migrate_first),
        TokenStore(engine, migrate_first=migrate_first),
        RevocationCounter(client, keys),
    )
    ratings = PlayerRatings(
        RatingStore(engine, migrate_first=migrate_first), FinishedQueue(client, keys), games
    )
    oidc = (
        Oidc(accounts, settings.oidc_issuer, settings.oidc_audience, settings.oidc_jwks)
        if settings.oidc_issuer
        else None
    )
    webhooks = Webhooks(
        WebhookStore(engine),
        WebhookSettings.from_env(),
        registered=WebhookVersion(client, keys).bump,
    )
    challenges = Challenges(
        ChallengeStore(engine, migrate_first=migrate_first),
        accounts,
        games,
        webhooks,
        quotas,
        storage,
        expiry_s=settings.challenge_hours * 3600,
        games_per_account=settings.games_per_token,
        stored_per_account=settings.stored_games_per_token,
    )
    pairing = Pairing(
        PairingQueue(client, keys),
        games,
        accounts,
        quotas,
        storage,
        games_per_account=settings.games_per_token,
        games_per_address=settings.games_per_address,
        stored_per_account=settings.stored_games_per_token,
        stored_per_address=settings.stored_games_per_address,
    )
    return Services(
        settings,
        games,
        limiter,
        metrics,
        client,
        queues,
        streams,
        Progress(),
        quotas,
        tournaments,
        offload,
        computed,
        storage,
        JobQueues(queues, keys),
        archive,
        CreationRecords(client, keys),
        accounts,
        ratings,
        oidc,
        webhooks,
        challenges,
        pairing,
    )


def _random_seed() -> bytes:
    return secrets.token_bytes(32)


def _start() -> None:
    """Start the clock, and name the request for every log line it causes."""
    g.started = time.perf_counter()
    given = request.headers.get("X-Request-ID", "")
    g.request_id = given if _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)
    logs.request_id.set(g.request_id)
    logs.game_id.set((request.view_args or {}).get("game"))
    logs.version.set(None)


def _rate_limit() -> None:
    """429 for a client that has used up a limit; what this request costs is counted
    once it is answered (``_charge``)."""
    if request.method == "OPTIONS" or not request.path.startswith("/v1/"):
        return
    risk = services()
    g.rate_checks = checks = _checks(risk.settings)
    over = risk.limiter.over(checks)
    if over is not None:
        scope, retry_after = over
        g.rate_checks = None  # a refusal costs nothing more
        risk.metrics.rate_limited.labels(scope).inc()
        raise ApiProblem(
            429,
            "rate_limited",
            f"too many requests for this {scope}; retry after {retry_after} s",
            headers={"Retry-After": str(retry_after)} | _quota_headers(risk, checks),
        )


def _checks(settings: Settings) -> list[Check]:
    checks = [Check("ip", client_address(), settings.rate_ip)]
    token = bearer_token(request.headers.get("Authorization"))
    if token is not None:
        checks.append(Check("token", hash_token(token)[:32], settings.rate_token))
    return checks


def _charge(response: Response) -> None:
    """Count the request's cost (``service.http.request_cost``) and announce what is left."""
    checks = g.get("rate_checks")
    if not checks:
        return
    risk = services()
    etag = response.headers.get("ETag", "").strip('"')
    cost = risk.progress.cost(
        checks[-1].ident,  # the token when there is one, else the address
        (request.view_args or {}).get("game"),
        request.endpoint,
        response.status_code,
        int(etag) if etag.isdigit() else None,
        replayed=response.headers.get("Idempotent-Replayed") == "true",
        waited=g.get("waited", False),
    )
    if cost:
        risk.limiter.hit(checks, cost)
    response.headers.update(_quota_headers(risk, checks))


def _quota_headers(risk: Services, checks: list[Check]) -> dict[str, str]:
    """``RateLimit-Limit``, ``-Remaining``, ``-Reset`` and ``-Policy`` of the tightest limit."""
    quota = risk.limiter.quota(checks)
    if quota is None:
        return {}
    return {
        "RateLimit-Limit": str(quota.limit),
        "RateLimit-Remaining": str(max(0, quota.remaining)),
        "RateLimit-Reset": str(quota.reset),
        "RateLimit-Policy": f"{quota.limit};w={quota.window}",
    }


def _finish(response: Response) -> Response:
    risk = services()
    _charge(response)
    _cors(response, risk.settings.cors_origins)
    if request.path.startswith("/v1/games"):
        response.headers.setdefault("Cache-Control", "private, no-cache")
        response.vary.add("Authorization")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    secure(response, request.path)
    route = request.url_rule.rule if request.url_rule else "unmatched"
    seconds = time.perf_counter() - g.get("started", time.perf_counter())
    risk.metrics.request(request.method, route, response.status_code, seconds)
    response.headers["X-Request-ID"] = g.get("request_id", "")
    _access_log(response, seconds)
    return response


def _forget(_: BaseException | None) -> None:
    """The thread serves other requests next: its log context must not leak into them;
    the request's spooled body (service.http.bodies) is read by now, its file closed."""
    for variable in (logs.request_id, logs.game_id, logs.version):
        variable.set(None)
    body = request.environ.get(SPOOLED)
    if body is not None:
        body.close()


def _access_log(response: Response, seconds: float) -> None:
    """One JSON line per request; the game's version is the response's ETag."""
    etag = response.headers.get("ETag", "").strip('"')
    if etag.isdigit():
        logs.version.set(int(etag))
    access.info(
        "%s %s %s",
        request.method,
        request.path,
        response.status_code,
        extra={"status": response.status_code, "ms": round(seconds * 1000, 2)},
    )


def _cors(response: Response, allowed: tuple[str, ...]) -> None:
    origin = request.headers.get("Origin")
    if not origin or not allowed or ("*" not in allowed and origin not in allowed):
        return
    response.headers["Access-Control-Allow-Origin"] = "*" if "*" in allowed else origin
    response.headers["Access-Control-Expose-Headers"] = _EXPOSED
    if "*" not in allowed:
        response.vary.add("Origin")
    if request.method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = _ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = "600"
