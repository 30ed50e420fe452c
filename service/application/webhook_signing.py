"""Webhook signatures per Standard Webhooks (issue 50), by its own library.

``webhook-signature`` is ``v1,`` and the base64 HMAC-SHA256 of
``id.timestamp.body`` under each secret that signs now (two during a
rotation, separated by a space): a receiver that knows either accepts the
message, and ``standardwebhooks.Webhook.verify`` checks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

__all__ = ["signed_headers"]


def signed_headers(message_id: str, at_s: int, body: str, secrets: Sequence[str]) -> dict[str, str]:
    """The three Standard Webhooks headers for ``body`` sent at ``at_s`` (unix seconds)."""
    when = datetime.fromtimestamp(at_s, UTC)
    signatures = [Webhook(secret).sign(message_id, when, body) for secret in secrets]
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(at_s),
        "webhook-signature": " ".join(signatures),
    }
