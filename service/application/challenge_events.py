"""The webhook events of challenges (issues 49 and 50): received, and accepted.

``challenge.received`` goes to each account a challenge names, when it is
made; ``challenge.accepted`` to the challenger, each time a seat is accepted
(a named account's answer, a link taken), with the game once the last seat
made it. A challenge of bots only is answered at once: its bots' accounts
receive it and its challenger's is accepted in the same moment, the game made.

Keys name what happened (a challenge and a seat), so an event found twice is
one delivery (``service.application.webhooks.delivery_id``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from service.application.lobby import GameInfo
from service.application.webhook_events import (
    CHALLENGE_ACCEPTED,
    CHALLENGE_RECEIVED,
    WebhookEvent,
)
from service.store.challenges import ChallengeRow, ChallengeSeat

__all__ = ["accepted_event", "bot_challenge_events", "received_events"]


def received_events(
    row: ChallengeRow, names: Mapping[str, str], base_url: str = ""
) -> list[WebhookEvent]:
    """A new challenge, for each account it names."""
    found = []
    for seat in row.seats:
        if seat.kind != "named" or seat.account_id is None:
            continue
        data = _received(row.id, None, seat.seat, row.challenger_id, names, row)
        data |= {"expires": _iso(row.expires_ms), "url": _challenge_url(base_url, row.id)}
        key = f"{row.id}:received:{seat.seat}"
        found.append(WebhookEvent(CHALLENGE_RECEIVED, seat.account_id, key, data))
    return found


def accepted_event(
    row: ChallengeRow,
    seat: ChallengeSeat,
    names: Mapping[str, str],
    base_url: str = "",
) -> WebhookEvent:
    """``seat`` of the challenge was accepted (``row`` as it is after: its game, if the
    acceptance made it), for the challenger."""
    url = _game_url(base_url, row.game_id) if row.game_id else _challenge_url(base_url, row.id)
    opponents = [s.account_id for s in row.seats if s.kind != "challenger" and s.account_id]
    data: dict[str, Any] = {
        "challenge_id": row.id,
        "game_id": row.game_id,
        "seat": "p1",
        "accepted_by": [_by(seat, names)],
        "opponents": opponents,
        "rated": row.rated,
        "url": url,
    }
    key = f"{row.id}:accepted:{seat.seat}"
    return WebhookEvent(CHALLENGE_ACCEPTED, row.challenger_id, key, data)


def bot_challenge_events(info: GameInfo, base_url: str = "") -> list[WebhookEvent]:
    """A challenge of bots made ``info`` at once (its first seat the challenger's): the
    bots' accounts received it, and the challenger's was accepted."""
    game = info.game_id
    seated = [s for s in info.seats if s.account is not None]
    if not seated:
        return []
    challenger, others = seated[0], seated[1:]
    names = {str(s.account): s.name or "" for s in seated}
    url = _game_url(base_url, game)
    found = []
    for other in others:
        data = _received(None, game, other.seat, str(challenger.account), names, info)
        data |= {"expires": None, "url": url}
        key = f"{game}:challenge:{other.seat}"
        found.append(WebhookEvent(CHALLENGE_RECEIVED, str(other.account), key, data))
    accepted: dict[str, Any] = {
        "challenge_id": None,
        "game_id": game,
        "seat": challenger.seat,
        "accepted_by": [{"seat": s.seat, "account": s.account, "name": s.name} for s in others],
        "opponents": [s.account for s in others],
        "rated": info.rated,
        "url": url,
    }
    key = f"{game}:accepted"
    found.append(WebhookEvent(CHALLENGE_ACCEPTED, str(challenger.account), key, accepted))
    return found


def _received(
    challenge: str | None,
    game: str | None,
    seat: str,
    challenger: str,
    names: Mapping[str, str],
    made: ChallengeRow | GameInfo,
) -> dict[str, Any]:
    return {
        "challenge_id": challenge,
        "game_id": game,
        "seat": seat,
        "challenger": challenger,
        "challenger_name": names.get(challenger),
        "mode": made.mode,
        "rated": made.rated,
    }


def _by(seat: ChallengeSeat, names: Mapping[str, str]) -> dict[str, Any]:
    name = names.get(seat.account_id) if seat.account_id else seat.name
    return {"seat": seat.seat, "account": seat.account_id, "name": name}


def _iso(ms: int) -> str:
    stamp = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def _challenge_url(base_url: str, challenge: str) -> str:
    return f"{base_url.rstrip('/')}/v1/challenges/{challenge}"


def _game_url(base_url: str, game: str | None) -> str:
    return f"{base_url.rstrip('/')}/v1/games/{game}"
