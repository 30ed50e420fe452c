"""What every view shares: the app's services, parsing, auth and JSON responses.

Views stay a few lines long by leaning on these: ``body`` and ``query``
load through a marshmallow schema (a 400 problem naming each bad field),
``viewer``/``seat`` turn the bearer token into a seat, ``reply`` writes
compact JSON with the headers a client needs (``ETag`` = game version).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, current_app, request
from marshmallow import Schema, ValidationError

from riskcore.audit.record import Envelope
from riskcore.protocol.codec import event_to_dict
from riskcore.views.view import redact
from service.application import auth
from service.application.accounts import Accounts
from service.application.challenges import Challenges
from service.application.computed import Computed
from service.application.errors import InvalidSeatToken
from service.application.games import GameService
from service.application.lobby import GameInfo, SeatInfo
from service.application.offload import Offload
from service.application.oidc import Oidc
from service.application.pairing import Pairing
from service.application.player_ratings import PlayerRatings
from service.application.quotas import GameQuota
from service.application.seating import seat_teams
from service.application.storage import StorageBudget
from service.application.tournaments import Tournaments
from service.application.webhooks import Webhooks
from service.http.metrics import Metrics
from service.http.problems import BEARER_CHALLENGE, ApiProblem
from service.http.ratelimit import Check, RateLimiter
from service.http.request_cost import Progress
from service.http.stream_slots import StreamSlots
from service.settings import Settings
from service.store.archive import Archive
from service.store.errors import GameNotFound, InvalidName
from service.store.idempotency import CreationRecords
from service.store.keys import check_game_id
from service.store.queues import JobQueues
from service.store.values import Client

if TYPE_CHECKING:
    from redis import Redis

__all__ = ["Services", "bearer_token", "body", "query", "reply", "seat", "services", "viewer"]

MAX_IDEMPOTENCY_KEY = 200
MAX_TOKEN = 4096  # a JWT of a deployment's login (issue 49) is a few hundred bytes to ~2 KB
_IDEMPOTENCY_KEY = re.compile(rf"[ -~]{{1,{MAX_IDEMPOTENCY_KEY}}}")


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a view needs, built once per app by ``create_app``."""

    settings: Settings
    games: GameService
    limiter: RateLimiter
    metrics: Metrics
    redis: Client  # the game store
    queue_redis: Redis  # RQ's queues
    streams: StreamSlots  # the per-address cap on open streams and long-polls
    progress: Progress  # what each client was sent: what a request costs (rate limits)
    quotas: GameQuota  # open and running games per creator
    tournaments: Tournaments
    offload: Offload  # the helper process for what costs CPU (service.application.offload)
    computed: Computed  # summaries and records kept at a game's version
    storage: StorageBudget  # games a creator may keep stored; Redis's high-water mark
    jobs: JobQueues  # the jobs the service enqueues itself (service.store.queues)
    archive: Archive  # finished games in SQL, history and export (issue 48)
    creations: CreationRecords  # Idempotency-Key on game creation and forks (issue 54)
    archive: Archive  # finished games in SQL, history and export (issue 48); its engine
    # is the SQL database's (RISK_DATABASE_URL), disposed with the app
    accounts: Accounts  # accounts and their tokens, in the SQL database (issue 49)
    ratings: PlayerRatings  # players' ratings per mode (issue 49)
    oidc: Oidc | None  # bearer JWTs of the deployment's own login (RISK_OIDC_ISSUER)
    webhooks: Webhooks  # accounts' webhook endpoints and deliveries (issue 50)
    challenges: Challenges  # challenges of accounts and open links (issue 49)
    pairing: Pairing  # the quick-pairing queue (issue 49)

    @classmethod
    def of(cls, app: Flask) -> Services:
        found: Services = app.extensions["risk"]
        return found


def services() -> Services:
    return Services.of(current_app)


def games() -> GameService:
    return services().games


# -- input ---------------------------------------------------------------------------


def body(schema: Schema) -> dict[str, Any]:
    """The JSON body loaded through ``schema``; an empty body counts as ``{}``."""
    return load(schema, json_body({}), "invalid_body")


def json_body(empty: Any) -> Any:
    """The parsed body (``empty`` if there is none); 415 if not JSON, 400 if unparsable.

    Parsed here rather than by Flask to refuse ``NaN``/``Infinity`` (not JSON)
    and absurd nesting with a 400 instead of a crash.
    """
    raw = request.get_data(cache=True)
    if not raw:
        return empty
    if not request.is_json:
        raise ApiProblem(415, "unsupported_media_type", "send the body as application/json")
    try:
        parsed = _DECODER.decode(raw.decode(json.detect_encoding(raw)))
        if _SURROGATE_ESCAPE.search(raw):
            _COMPACT_UTF8.encode(parsed).encode()  # a lone \uD800-\uDFFF is no character
    except (ValueError, RecursionError):
        raise ApiProblem(400, "invalid_json", "the body is not valid JSON") from None
    return parsed


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Built once: json.loads and json.dumps build a new decoder or encoder on every
# call that passes an option, a measurable share of a small request.
_DECODER = json.JSONDecoder(parse_constant=_not_json)
_COMPACT = json.JSONEncoder(separators=(",", ":"))
_COMPACT_UTF8 = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# JSON may escape a UTF-16 surrogate on its own ("\ud800"); Python decodes it
# into a string that no UTF-8 encoder (the event codec's) accepts.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def query(schema: Schema) -> dict[str, Any]:
    return load(schema, request.args.to_dict(), "invalid_query")


def load(schema: Schema, data: Any, code: str) -> dict[str, Any]:
    try:
        loaded: dict[str, Any] = schema.load(data)
    except ValidationError as error:
        raise invalid(error, code) from None
    return loaded


def invalid(error: ValidationError, code: str) -> ApiProblem:
    messages = error.normalized_messages()  # {field: [...]}, the field named or "_schema"
    return ApiProblem(400, code, _in_words(messages), errors=messages)


def _in_words(messages: dict[Any, Any]) -> str:
    """What is wrong, field by field (``seats.1.bot: ...``), not only the fields' names;
    ``_schema`` is the body as a whole."""
    return "invalid " + "; ".join(_faults(messages, ""))


def _faults(messages: dict[Any, Any], where: str) -> list[str]:
    faults = []
    for field, said in sorted(messages.items(), key=lambda item: str(item[0])):
        path = where if field == "_schema" else f"{where}{field}"
        if isinstance(said, dict):
            faults += _faults(said, f"{path}.")
        else:
            text = ", ".join(map(str, said)) if isinstance(said, list) else str(said)
            faults.append(f"{path.rstrip('.')}: {text}" if path else text)
    return faults


def game_id(value: str) -> str:
    """A path's game id; one that could never exist is simply not found."""
    try:
        return check_game_id(value)
    except InvalidName:
        raise GameNotFound(value[:80]) from None


def if_match() -> int | None:
    """The version in ``If-Match`` ("12", 12 or W/"12"); None for absent or ``*``."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    text = header.strip().removeprefix("W/").strip('"')
    if not is_version(text):
        raise ApiProblem(400, "invalid_if_match", 'If-Match must be a version such as "12"')
    return int(text)


def is_version(text: str) -> bool:
    """ASCII digits only, at most 18 of them: ``str.isdigit`` alone also takes
    "²" and "४", which ``int`` then refuses (a 500 where a 400 belongs)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not _IDEMPOTENCY_KEY.fullmatch(key):
        detail = f"Idempotency-Key must be 1..{MAX_IDEMPOTENCY_KEY} printable ASCII characters"
        raise ApiProblem(400, "invalid_idempotency_key", detail)
    return key


# -- who is asking --------------------------------------------------------------------


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; None when there is no header.

    A header that is present but not a bearer token is an error, not a
    spectator: a client that sent credentials expects them to count.
    """
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN:
        raise ApiProblem(
            401,
            "invalid_token",
            "expected 'Authorization: Bearer <token>'",
            headers=BEARER_CHALLENGE,
        )
    return token


def client_address() -> str:
    """The client address as a key part (IPv6 colons are fine; anything odd is hashed)."""
    address = request.remote_addr or "unknown"
    return (
        address
        if address.replace(":", "").replace(".", "").isalnum()
        else auth.hash_token(address)[:32]
    )


def token() -> str | None:
    return bearer_token(request.headers.get("Authorization"))


def viewer(game: str) -> str | None:
    """The caller's seat in ``game``, or None for a spectator (no token, or an account
    with no seat in it)."""
    from service.http.api.guard import principal

    account = principal()
    if account is not None:
        return games().seat_for_account(game, account.account_id)
    presented = token()
    return None if presented is None else _seat_for_token(game, presented)


def _seat_for_token(game: str, presented: str) -> str:
    """The token's seat, with guessing limited per game as well as per address
    (issue 54, item 7: three addresses got 300 more tries each). Past
    ``RISK_TOKEN_GUESSES_GAME`` wrong tokens in a window, the game's tokens
    answer 429 ``token_guesses_exceeded`` until the window ends, right ones too:
    otherwise the answer to a right guess would still tell it apart."""
    risk = services()
    guesses = [Check("guess", game, risk.settings.token_guesses_game)]
    over = risk.limiter.over(guesses)
    if over is not None:
        retry_after = str(over[1])
        detail = f"too many wrong seat tokens for this game; retry after {retry_after} s"
        raise ApiProblem(
            429, "token_guesses_exceeded", detail, headers={"Retry-After": retry_after}
        )
    try:
        return games().seat_for_token(game, presented)
    except InvalidSeatToken:
        risk.limiter.hit(guesses)
        raise


def seat(game: str) -> str:
    """The caller's seat; 401 without a token, 403 for an account not seated here."""
    found = viewer(game)
    if found is None:
        if token() is not None:
            raise ApiProblem(403, "not_seated", "this account has no seat in this game")
        raise token_required()
    return found


def require_admin() -> None:
    presented = token()
    if presented is None:
        raise token_required()
    if not auth.is_admin(presented, services().settings.admin_token):
        raise ApiProblem(403, "admin_only", "this needs the operator's admin token")


def token_required() -> ApiProblem:
    """The error for an endpoint that needs a seat and got no token."""
    return ApiProblem(
        401,
        "token_required",
        "this needs a seat token (Authorization: Bearer)",
        headers=BEARER_CHALLENGE,
    )


# -- output ---------------------------------------------------------------------------


def reply(
    data: Any,
    status: int = 200,
    *,
    version: int | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    response = Response(_COMPACT.encode(data), status, mimetype="application/json")
    if version is not None:
        response.headers["ETag"] = f'"{version}"'
    if headers:
        response.headers.update(headers)
    return response


def iso_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def event_json(envelope: Envelope, viewer: str | None, reveal: bool) -> dict[str, Any]:
    """One event as ``viewer`` may see it: redacted until the game is over."""
    return {
        "version": envelope.version,
        "time": iso_time(envelope.time_ms),
        "actor": envelope.actor,
        "bot": envelope.bot,
        "event": event_to_dict(redact(envelope.event, viewer, reveal=reveal)),
    }


def with_variant(rules: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """Rule options as served: with ``variant``, the mode's name from before
    game modes existed, so clients that read it keep working (deprecated)."""
    return {**rules, "variant": mode}


def game_document(document: dict[str, Any], seats: Mapping[str, SeatInfo]) -> None:
    """What the API adds to the engine's view: who controls each seat, the old
    ``rules.variant``."""
    add_controllers(document, seats)
    document["rules"] = with_variant(document["rules"], document["mode"])


def add_controllers(document: dict[str, Any], seats: Mapping[str, SeatInfo]) -> None:
    """Say in a view which seats people play and which bots do; neutrals are nobody's."""
    for entry in document["seats"]:
        info = seats.get(entry["id"])
        entry["controller"] = info.kind if info else "neutral"
        entry["bot"] = info.bot if info else None
        entry["level"] = info.level if info else None


def summary(info: GameInfo) -> dict[str, Any]:
    """Public facts about a game, as listed (never a token hash or a seed)."""
    teams = seat_teams(info.mode, len(info.seats))
    return {
        "game_id": info.game_id,
        "status": info.status,
        "version": info.version,
        "board": info.board,
        "mode": info.mode,
        "rules": with_variant(info.rules, info.mode),
        "clock": info.clock,
        "created": iso_time(info.created_ms),
        "seats": [s.public() | {"team": teams.get(s.seat)} for s in info.seats],
        "open_seats": info.open_seats,
        "seed_commitment": info.seed_commitment,
        "tournament": info.tournament,
    }
