"""Which webhook events a change of a game makes, and for which accounts (issue 50).

The feed (``workers.webhook_feed``) reads the outbox like the relay does and
describes each notification of a game as a ``GameChange``; ``events_for``
turns it into events, one per account with a seat in the game (a seat bound
to the account: one it was given, joined, or got by creating the game with
its token), and for the account that created the game without taking a seat
(a game of bots or of open seats set up for others): it hears of the game's
creation, start and end, with ``seat`` null, and never of a turn (it has
none). Each event has a ``key`` naming what happened, so a notification
handled twice (a feed that died before acknowledging it) makes the same
deliveries, not new ones (``service.application.webhooks.delivery_id``).

Payloads are small: ids, seats and URLs, never records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from service.application.lobby import GameInfo

__all__ = [
    "EVENT_TYPES",
    "GameChange",
    "WebhookEvent",
    "audience_accounts",
    "created_events",
    "events_for",
    "payload",
]

GAME_CREATED, GAME_STARTED, TURN_STARTED = "game.created", "game.started", "turn.started"
GAME_FINISHED = "game.finished"
CHALLENGE_RECEIVED, CHALLENGE_ACCEPTED = "challenge.received", "challenge.accepted"
EVENT_TYPES = (
    GAME_CREATED,
    GAME_STARTED,
    TURN_STARTED,
    GAME_FINISHED,
    CHALLENGE_RECEIVED,
    CHALLENGE_ACCEPTED,
)


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    type: str
    account_id: str
    key: str  # what happened, uniquely: the same event found twice has the same key
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameChange:
    """One outbox notification of a game, with what the feed read about it."""

    info: GameInfo
    first_version: int
    last_version: int
    acting: str | None = None  # the seat to act after it, if it just became that seat's turn
    winners: tuple[str, ...] | None = None  # set when this notification finished the game
    deadline: str | None = None  # the acting seat's clock deadline, if one runs
    base_url: str = ""  # prefixes the URLs in payloads (RISK_PUBLIC_URL)


def events_for(change: GameChange) -> list[WebhookEvent]:
    """The events ``change`` makes for the accounts seated in its game, and for its
    creator if it has no seat there."""
    info = change.info
    game = info.game_id
    seats = {s.seat: s.account for s in info.seats if s.account is not None}
    urls = _urls(change.base_url, game)
    found: list[WebhookEvent] = []
    if change.first_version == 1:
        found += created_events(info, change.base_url)  # made at creation already if it waited
        for seat, account in _audience(info):
            data = {"game_id": game, "seat": seat, "mode": info.mode, "url": urls["game"]}
            found.append(WebhookEvent(GAME_STARTED, account, f"{game}:started", data))
    acting = change.acting
    if acting is not None and acting in seats:
        data = {
            "game_id": game,
            "seat": acting,
            "version": change.last_version,
            "deadline": change.deadline,
            "url": urls["game"],
        }
        key = f"{game}:turn:{change.last_version}:{acting}"
        found.append(WebhookEvent(TURN_STARTED, seats[acting], key, data))
    if change.winners is not None:
        for seat, account in _audience(info):
            data = {
                "game_id": game,
                "seat": seat,
                "won": None if seat is None else seat in change.winners,
                "winners": list(change.winners),
                "version": change.last_version,
                "rated": info.rated,
                "record_url": urls["record"],
            }
            found.append(WebhookEvent(GAME_FINISHED, account, f"{game}:finished", data))
    return found


def created_events(info: GameInfo, base_url: str = "") -> list[WebhookEvent]:
    """``game.created`` for each account seated in ``info`` (and its creator without a
    seat). The API makes them when a game waits for players to join; the feed makes
    them again when the game begins (the same keys: the same deliveries), which is when
    accounts that joined get theirs."""
    urls = _urls(base_url, info.game_id)
    return [
        WebhookEvent(
            GAME_CREATED,
            account,
            f"{info.game_id}:created",
            {"game_id": info.game_id, "seat": seat, "mode": info.mode, "url": urls["game"]},
        )
        for seat, account in _audience(info)
    ]


def audience_accounts(info: GameInfo) -> list[str]:
    """The accounts a game's events may go to: its seats' and its creator's."""
    return [account for _, account in _audience(info)]


def _audience(info: GameInfo) -> list[tuple[str | None, str]]:
    """(seat, account) for each seat bound to an account, then (None, creator) when the
    account that created the game holds no seat in it."""
    seated = [(s.seat, s.account) for s in info.seats if s.account is not None]
    creator = info.creator
    if creator is not None and all(account != creator for _, account in seated):
        return [*seated, (None, creator)]
    return list(seated)


def payload(event: WebhookEvent, at_ms: int) -> str:
    """The body a delivery sends: ``{"type", "timestamp", "data"}``, compact JSON."""
    timestamp = datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="milliseconds")
    document: dict[str, Any] = {"type": event.type, "timestamp": timestamp.replace("+00:00", "Z")}
    document["data"] = dict(event.data)
    return json.dumps(document, separators=(",", ":"), sort_keys=False)


def _urls(base_url: str, game: str) -> dict[str, str]:
    base = base_url.rstrip("/")
    return {"game": f"{base}/v1/games/{game}", "record": f"{base}/v1/games/{game}/record"}
