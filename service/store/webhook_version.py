"""The Redis counter every new webhook endpoint raises (issue 50).

The webhook feed keeps the set of accounts with an endpoint in memory and
reads it again from the database every 2 s; an account that registers one
and plays at once would otherwise lose its first events. So registering
raises this counter before the API answers, and the feed, meeting an account
it does not know, reads the counter (one ``GET``) and reloads the set when it
moved.
"""

from __future__ import annotations

from service.store.keys import KeySpace
from service.store.values import Client

__all__ = ["WebhookVersion"]


class WebhookVersion:
    def __init__(self, client: Client, keys: KeySpace) -> None:
        self._client = client
        self._key = f"{keys.prefix}:webhooks:version"

    def read(self) -> int:
        return int(self._client.get(self._key) or 0)

    def bump(self) -> None:
        self._client.incr(self._key)
