"""Games as a whole: create, list, join, view, delete."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from flask import Blueprint, Response, request

from riskcore.model.state import FINISHED
from riskcore.views.view import view
from service.application.auth import hash_token, is_admin
from service.application.clocks import deadline
from service.application.games import SeatPlan
from service.application.quotas import Creator, GameQuotaExceeded
from service.application.storage import (
    Reservation,
    StorageFull,
    StorageQuotaExceeded,
    stored_budget,
)
from service.application.webhook_events import created_events
from service.http.api import history
from service.http.api.common import (
    body,
    client_address,
    game_document,
    game_id,
    games,
    query,
    reply,
    require_admin,
    services,
    summary,
    token,
    token_required,
    viewer,
)
from service.http.api.guard import principal
from service.http.api.idempotent import once
from service.http.problems import ApiProblem
from service.http.schemas import CreateGame, JoinGame, ListGamesQuery

bp = Blueprint("lobby", __name__, url_prefix="/v1/games")
_CREATE, _JOIN, _LIST = CreateGame(), JoinGame(), ListGamesQuery()


@bp.post("")
def create_game() -> Response:
    """A new game, within its creator's quota of active games (``service.application.quotas``);
    once per ``Idempotency-Key`` (``service.http.api.idempotent``)."""
    creators = game_creators()  # 401/403 first when creation needs a token
    return once(lambda: _create(creators))


def _create(creators: list[Creator]) -> Response:
    data = body(_CREATE)
    quotas = services().quotas
    try:
        ticket = quotas.reserve(creators)
    except GameQuotaExceeded as error:
        raise ApiProblem(429, "game_quota_exceeded", str(error)) from None
    try:
        stored = reserve_storage(creators, 1)
    except ApiProblem:
        quotas.cancel(ticket)
        raise
    caller = principal()
    try:
        created = games().create(
            seats=bound_seats([SeatPlan(**seat) for seat in data["seats"]]),
            board=data["board"],
            mode=data["mode"],
            rules=data["rules"],
            clock=data["clock"],
            creator=None if caller is None else caller.account_id,
        )
    except BaseException:
        quotas.cancel(ticket)
        services().storage.cancel(stored)
        raise
    info = created.info
    quotas.confirm(ticket, info.game_id, info.created_ms)
    accounts = info.creator or any(s.account for s in info.seats)
    if info.version == 0 and accounts:  # it waits for players
        webhooks = services().webhooks  # issue 50: game.created now, not when it begins
        webhooks.emit(created_events(info, webhooks.settings.public_url))
    document = {"game": summary(info), "tokens": created.tokens}
    location = {"Location": f"/v1/games/{info.game_id}"}
    return reply(document, 201, version=info.version, headers=location)


def bound_seats(seats: list[SeatPlan]) -> list[SeatPlan]:
    """With an account token, the first human seat is the account's (issue 49)."""
    caller = principal()
    if caller is None:
        return seats
    for index, plan in enumerate(seats):
        if plan.kind == "human":
            name = plan.name or caller.account.name
            seats[index] = replace(plan, account=caller.account_id, name=name)
            break
    return seats


def creation_allowed(*, accounts: bool = True) -> None:
    """With ``RISK_CREATE_TOKEN`` set, only that token (or the admin token) may create
    games, tournaments and accounts; an account's token with ``game:create`` may
    create games too (``accounts``)."""
    settings = services().settings
    presented = token()
    if accounts and principal() is not None:
        return  # its scope was checked (service.http.api.guard)
    if settings.create_token is not None:
        if presented is None:
            raise token_required()
        allowed = (settings.create_token, settings.admin_token)
        if not any(is_admin(presented, expected) for expected in allowed):
            raise ApiProblem(403, "create_not_allowed", "creating games needs the creation token")


def game_creators() -> list[Creator]:
    """Whose quota a new game (or a tournament's games) counts against
    (``creation_allowed`` first)."""
    creation_allowed()
    settings = services().settings
    presented = token()
    creators = [Creator("ip", client_address(), settings.games_per_address)]
    if presented is not None:
        creators.append(Creator("token", hash_token(presented)[:32], settings.games_per_token))
    return creators


def reserve_storage(creators: list[Creator], games: int) -> Reservation:
    """Count ``games`` against each creator's storage budget (``service.application.storage``): 429
    past a budget, 503 while Redis is past its high-water mark."""
    settings = services().settings
    limits = {"ip": settings.stored_games_per_address, "token": settings.stored_games_per_token}
    stored = [stored_budget(c, limits) for c in creators]
    with storage_refusals():
        return services().storage.reserve(stored, games)


@contextmanager
def storage_refusals() -> Iterator[None]:
    """A storage budget's refusals as problems: 429 ``storage_quota_exceeded`` past a
    budget, 503 ``store_full`` while Redis is past its high-water mark (a game's creation,
    a challenge's, a seek's alike)."""
    try:
        yield
    except StorageQuotaExceeded as error:
        raise ApiProblem(429, "storage_quota_exceeded", str(error)) from None
    except StorageFull as error:
        raise ApiProblem(503, "store_full", str(error), headers={"Retry-After": "60"}) from None


@bp.get("")
def list_games() -> Response:
    args = query(_LIST)  # the cursor's pattern is checked here
    if history.wants_archive(args):  # issue 48: the archive, with the history's filters
        return history.archive_page(args)
    found, cursor = games().list_games(args.get("status"), args["limit"], args.get("cursor"))
    return reply({"games": [summary(info) for info in found], "next_cursor": cursor})


@bp.post("/<game>/join")
def join_game(game: str) -> Response:
    data = body(_JOIN)
    caller = principal()
    if caller is not None:  # the seat is the account's (issue 49)
        data.setdefault("name", caller.account.name)
        data["account"] = caller.account_id
    joined = games().join(game_id(game), **data)
    document = {"game": summary(joined.info), "seat": joined.seat, "token": joined.token}
    return reply(document, version=joined.info.version)


@bp.get("/<game>")
def get_game(game: str) -> Response:
    """The caller's view: a seat's with its token, a spectator's without."""
    gid = game_id(game)
    seat = viewer(gid)
    info, loaded = games().current(gid)
    if loaded is None:
        return reply(summary(info) | {"viewer": seat}, version=0)
    if request.if_none_match.contains(str(loaded.version)):
        return reply_not_modified(loaded.version)
    document = view(loaded.state, seat)
    document["status"] = "finished" if loaded.state.phase == FINISHED else "running"
    game_document(document, games().seat_info(gid))
    if info.clock:
        document["deadline"] = deadline(games().clocks, gid, loaded.state)
        document["clock"] = info.clock  # (a rematch's settings: issue 51)
    return reply(document, version=loaded.version)


@bp.delete("/<game>")
def delete_game(game: str) -> Response:
    """Operator only: remove a game and every record of it."""
    require_admin()
    games().delete(game_id(game))
    return Response(status=204)


def reply_not_modified(version: int) -> Response:
    response = Response(status=304)
    response.headers["ETag"] = f'"{version}"'
    return response
