"""Webhook endpoints and deliveries in the SQL database (issue 50).

A delivery row is the message and its schedule at once: whoever sends it
first takes a lease on it (``claim``), so two workers never send one attempt
twice at the same moment, and a worker killed mid-send leaves a lease that
runs out, after which the sweep sends the message again with the same id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine, RowMapping

from service.store.account_tables import accounts
from service.store.webhook_tables import deliveries, endpoints

__all__ = ["DeliveryRow", "EndpointRow", "Outcome", "WebhookStore"]

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


@dataclass(frozen=True, slots=True)
class EndpointRow:
    id: str
    account_id: str
    url: str
    events: tuple[str, ...]
    description: str | None
    secret: str
    created_ms: int
    previous_secret: str | None = None
    previous_expires_ms: int | None = None
    failing_since_ms: int | None = None
    disabled_ms: int | None = None
    disabled_reason: str | None = None

    def secrets(self, now_ms: int) -> tuple[str, ...]:
        """The secrets that sign now: the current one, and the previous one for 24 h."""
        previous = self.previous_secret
        if previous and (self.previous_expires_ms or 0) > now_ms:
            return (self.secret, previous)
        return (self.secret,)


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    id: str
    endpoint_id: str
    event_type: str
    payload: str
    created_ms: int
    status: str = PENDING
    attempts: int = 0
    next_attempt_ms: int | None = None
    last_attempt_ms: int | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    last_response: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one attempt came to; ``retry_at_ms`` None means no further attempt."""

    at_ms: int
    status_code: int | None
    error: str | None
    response: str | None
    delivered: bool
    retry_at_ms: int | None


class WebhookStore:
    """Reads and writes ``webhook_endpoints`` and ``webhook_deliveries``."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # -- endpoints ---------------------------------------------------------------

    def add_endpoint(self, row: EndpointRow) -> None:
        with self._engine.begin() as connection:
            connection.execute(
                endpoints.insert().values(
                    id=row.id,
                    account_id=row.account_id,
                    url=row.url,
                    events=" ".join(row.events),
                    description=row.description,
                    secret=row.secret,
                    created_ms=row.created_ms,
                )
            )

    def endpoints_of(self, account_id: str) -> list[EndpointRow]:
        query = (
            endpoints.select()
            .where(endpoints.c.account_id == account_id)
            .order_by(endpoints.c.created_ms, endpoints.c.id)
        )
        with self._engine.connect() as connection:
            return [_endpoint(r) for r in connection.execute(query).mappings()]

    def endpoint(self, endpoint_id: str) -> EndpointRow | None:
        with self._engine.connect() as connection:
            found = connection.execute(_ENDPOINT, {"p_id": endpoint_id}).mappings().first()
        return None if found is None else _endpoint(found)

    def delete_endpoint(self, endpoint_id: str) -> bool:
        """Delete it and its deliveries (children first: SQLite may not cascade)."""
        with self._engine.begin() as connection:
            connection.execute(deliveries.delete().where(deliveries.c.endpoint_id == endpoint_id))
            deleted = connection.execute(endpoints.delete().where(endpoints.c.id == endpoint_id))
        return deleted.rowcount > 0

    def rotate(self, endpoint_id: str, secret: str, previous: str, expires_ms: int) -> None:
        with self._engine.begin() as connection:
            connection.execute(
                endpoints.update()
                .where(endpoints.c.id == endpoint_id)
                .values(secret=secret, previous_secret=previous, previous_expires_ms=expires_ms)
            )

    def subscribed(
        self, account_ids: Iterable[str], event_type: str | None = None
    ) -> list[EndpointRow]:
        """The enabled endpoints of these accounts that take ``event_type`` (None: any)."""
        wanted = sorted(set(account_ids))
        if not wanted:
            return []
        query = (
            endpoints.select()
            .join(accounts, accounts.c.id == endpoints.c.account_id)
            .where(endpoints.c.account_id.in_(wanted))
            .where(endpoints.c.disabled_ms.is_(None))
            .where(accounts.c.deleted_ms.is_(None))  # a deleted account's endpoints are mute
        )
        with self._engine.connect() as connection:
            found = [_endpoint(r) for r in connection.execute(query).mappings()]
        return [row for row in found if event_type is None or event_type in row.events]

    def accounts_subscribed(self) -> set[str]:
        """The accounts with an enabled endpoint (the fan-out skips every other game)."""
        query = (
            sa.select(endpoints.c.account_id)
            .join(accounts, accounts.c.id == endpoints.c.account_id)
            .where(endpoints.c.disabled_ms.is_(None))
            .where(accounts.c.deleted_ms.is_(None))
        )
        with self._engine.connect() as connection:
            return {row[0] for row in connection.execute(query.distinct())}

    def disable(self, endpoint_id: str, at_ms: int, reason: str) -> None:
        with self._engine.begin() as connection:
            connection.execute(
                endpoints.update()
                .where(endpoints.c.id == endpoint_id)
                .values(disabled_ms=at_ms, disabled_reason=reason[:255])
            )

    def update(
        self,
        endpoint_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        description: str | None = None,
        clear_description: bool = False,
    ) -> None:
        """Change what is given (``clear_description``: the description becomes null)."""
        values: dict[str, str | None] = {}
        if url is not None:
            values["url"] = url
        if events is not None:
            values["events"] = " ".join(events)
        if description is not None or clear_description:
            values["description"] = description
        if not values:
            return
        with self._engine.begin() as connection:
            connection.execute(
                endpoints.update().where(endpoints.c.id == endpoint_id).values(**values)
            )

    def enable(self, endpoint_id: str) -> None:
        """Enabled again, as if new: not disabled, not failing."""
        with self._engine.begin() as connection:
            connection.execute(
                endpoints.update()
                .where(endpoints.c.id == endpoint_id)
                .values(disabled_ms=None, disabled_reason=None, failing_since_ms=None)
            )

    def mark_failing(self, endpoint_id: str, since_ms: int | None) -> None:
        """``since_ms`` None: it answered well again."""
        query = endpoints.update().where(endpoints.c.id == endpoint_id)
        if since_ms is not None:
            query = query.where(endpoints.c.failing_since_ms.is_(None))
        with self._engine.begin() as connection:
            connection.execute(query.values(failing_since_ms=since_ms))

    # -- deliveries --------------------------------------------------------------

    def add_delivery(self, row: DeliveryRow) -> bool:
        """Insert it unless a delivery of that id exists (a notification handled twice);
        True if inserted."""
        try:
            with self._engine.begin() as connection:
                connection.execute(deliveries.insert().values(**_new_delivery(row)))
        except sa.exc.IntegrityError:
            return False
        return True

    def add_deliveries(self, rows: Sequence[DeliveryRow]) -> list[str]:
        """``add_delivery`` for each, in one transaction (one by one only if another
        writer inserted one of them meanwhile); the ids inserted."""
        if not rows:
            return []
        wanted = {row.id: row for row in rows}
        try:
            with self._engine.begin() as connection:
                query = sa.select(deliveries.c.id).where(deliveries.c.id.in_(sorted(wanted)))
                for (known,) in connection.execute(query):
                    wanted.pop(known)
                if wanted:
                    connection.execute(
                        deliveries.insert(), [_new_delivery(r) for r in wanted.values()]
                    )
        except sa.exc.IntegrityError:
            return [row.id for row in rows if self.add_delivery(row)]
        return list(wanted)

    def delivery(self, delivery_id: str) -> DeliveryRow | None:
        with self._engine.connect() as connection:
            found = connection.execute(_DELIVERY, {"p_id": delivery_id}).mappings().first()
        return None if found is None else _delivery(found)

    def deliveries_of(self, endpoint_id: str, limit: int) -> list[DeliveryRow]:
        query = (
            deliveries.select()
            .where(deliveries.c.endpoint_id == endpoint_id)
            .order_by(deliveries.c.created_ms.desc(), deliveries.c.id)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return [_delivery(r) for r in connection.execute(query).mappings()]

    def claim(self, delivery_id: str, now_ms: int, lease_until_ms: int) -> bool:
        """Take the lease of a pending delivery that is due and held by nobody."""
        values = {"p_id": delivery_id, "p_now": now_ms, "p_lease": lease_until_ms}
        with self._engine.begin() as connection:
            return connection.execute(_CLAIM, values).rowcount > 0

    def record(self, delivery_id: str, outcome: Outcome) -> None:
        """Write an attempt's outcome and let the lease go."""
        if outcome.delivered:
            status = DELIVERED
        else:
            status = PENDING if outcome.retry_at_ms is not None else FAILED
        values = {
            "p_id": delivery_id,
            "p_status": status,
            "p_next": outcome.retry_at_ms,
            "p_at": outcome.at_ms,
            "p_code": outcome.status_code,
            "p_error": (outcome.error or "")[:255] or None,
            "p_response": (outcome.response or "")[:1024] or None,
        }
        with self._engine.begin() as connection:
            connection.execute(_RECORD, values)

    def redeliver(self, delivery_id: str, now_ms: int) -> None:
        """Due again at once, whatever its status."""
        query = (
            deliveries.update()
            .where(deliveries.c.id == delivery_id)
            .values(status=PENDING, next_attempt_ms=now_ms, lease_ms=None)
        )
        with self._engine.begin() as connection:
            connection.execute(query)

    def due(self, now_ms: int, limit: int = 100) -> list[tuple[str, int]]:
        """Pending deliveries due by ``now_ms`` that no live lease holds: (id, when due)."""
        query = (
            sa.select(deliveries.c.id, deliveries.c.next_attempt_ms)
            .where(deliveries.c.status == PENDING)
            .where(deliveries.c.next_attempt_ms <= now_ms)
            .where(sa.or_(deliveries.c.lease_ms.is_(None), deliveries.c.lease_ms < now_ms))
            .order_by(deliveries.c.next_attempt_ms)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return [(row[0], row[1]) for row in connection.execute(query)]


# What a sender reads and writes for every attempt, built once: SQLAlchemy then
# compiles each once, where a statement built per call costs its cache key every
# time (a third of a webhook worker's CPU under bench/webhooks.py's load).
_ENDPOINT = endpoints.select().where(endpoints.c.id == sa.bindparam("p_id"))
_DELIVERY = deliveries.select().where(deliveries.c.id == sa.bindparam("p_id"))
_CLAIM = (
    deliveries.update()
    .where(deliveries.c.id == sa.bindparam("p_id"))
    .where(deliveries.c.status == PENDING)
    .where(deliveries.c.next_attempt_ms <= sa.bindparam("p_now"))
    .where(sa.or_(deliveries.c.lease_ms.is_(None), deliveries.c.lease_ms < sa.bindparam("p_now")))
    .values(lease_ms=sa.bindparam("p_lease"))
)
_RECORD = (
    deliveries.update()
    .where(deliveries.c.id == sa.bindparam("p_id"))
    .values(
        status=sa.bindparam("p_status"),
        attempts=deliveries.c.attempts + 1,
        next_attempt_ms=sa.bindparam("p_next"),
        lease_ms=None,
        last_attempt_ms=sa.bindparam("p_at"),
        last_status_code=sa.bindparam("p_code"),
        last_error=sa.bindparam("p_error"),
        last_response=sa.bindparam("p_response"),
    )
)


def _new_delivery(row: DeliveryRow) -> dict[str, object]:
    return {
        "id": row.id,
        "endpoint_id": row.endpoint_id,
        "event_type": row.event_type,
        "payload": row.payload,
        "created_ms": row.created_ms,
        "status": PENDING,
        "attempts": 0,
        "next_attempt_ms": row.next_attempt_ms or row.created_ms,
    }


def _endpoint(row: RowMapping) -> EndpointRow:
    return EndpointRow(
        id=row["id"],
        account_id=row["account_id"],
        url=row["url"],
        events=tuple(row["events"].split()),
        description=row["description"],
        secret=row["secret"],
        created_ms=row["created_ms"],
        previous_secret=row["previous_secret"],
        previous_expires_ms=row["previous_expires_ms"],
        failing_since_ms=row["failing_since_ms"],
        disabled_ms=row["disabled_ms"],
        disabled_reason=row["disabled_reason"],
    )


def _delivery(row: RowMapping) -> DeliveryRow:
    return DeliveryRow(
        id=row["id"],
        endpoint_id=row["endpoint_id"],
        event_type=row["event_type"],
        payload=row["payload"],
        created_ms=row["created_ms"],
        status=row["status"],
        attempts=row["attempts"],
        next_attempt_ms=row["next_attempt_ms"],
        last_attempt_ms=row["last_attempt_ms"],
        last_status_code=row["last_status_code"],
        last_error=row["last_error"],
        last_response=row["last_response"],
    )
