"""What the game store holds, for ``/metrics``: Redis's memory and its keys by kind.

Read at scrape time: ``render_metrics`` counts a sample of at most
``SAMPLE_KEYS`` keys by what they hold (``key_kind``) and scales it to the
total, so a scrape costs the same however many games are stored.
"""

from __future__ import annotations

from collections import Counter

from service.store.errors import gauges
from service.store.keys import KeySpace
from service.store.quotas import memory
from service.store.values import Client

__all__ = ["SAMPLE_KEYS", "key_kind", "render_metrics"]

SAMPLE_KEYS = 2000


def key_kind(key: str, prefix: str) -> str | None:
    """What a key of this deployment holds (``events``, ``meta``, ``info``, ``rl``,
    ``quota``, ``tournament``, ...); None for another deployment's key."""
    if not key.startswith(prefix + ":") and not key.startswith(prefix + "."):
        return None
    parts = key[len(prefix) + 1 :].split(":")
    if key.startswith(prefix + "."):
        return "rq"
    if parts[0].startswith("{t:"):
        return "tournament:" + parts[-1] if len(parts) > 1 else "tournament"
    if parts[0].startswith("{p"):
        if len(parts) >= 4 and parts[1] == "game":
            return parts[3]  # events, meta, seed, snapshot, info, seats, idem, computed, ...
        return parts[1] if len(parts) > 1 else "partition"
    return parts[0]


@gauges
def render_metrics(client: Client, keys: KeySpace) -> bytes:
    """Prometheus text: Redis's memory, its keys, and this deployment's keys by kind."""
    used, limit = memory(client)
    total = int(client.dbsize())
    sample: Counter[str] = Counter()
    seen = 0
    for raw in client.scan_iter(count=500):
        seen += 1
        key = raw.decode() if isinstance(raw, bytes) else str(raw)
        kind = key_kind(key, keys.prefix)
        if kind is not None:
            sample[kind] += 1
        if seen >= SAMPLE_KEYS:
            break
    scale = total / seen if seen else 0.0
    lines = [
        "# HELP risk_redis_used_memory_bytes Memory Redis uses (INFO used_memory).",
        "# TYPE risk_redis_used_memory_bytes gauge",
        f"risk_redis_used_memory_bytes {used}",
        "# HELP risk_redis_maxmemory_bytes Redis's maxmemory (0: none set).",
        "# TYPE risk_redis_maxmemory_bytes gauge",
        f"risk_redis_maxmemory_bytes {limit}",
        "# HELP risk_redis_keys Keys in the store's database (DBSIZE).",
        "# TYPE risk_redis_keys gauge",
        f"risk_redis_keys {total}",
        "# HELP risk_redis_keys_by_kind This deployment's keys by kind, from a sample of "
        f"at most {SAMPLE_KEYS} keys scaled to the total.",
        "# TYPE risk_redis_keys_by_kind gauge",
        *(
            f'risk_redis_keys_by_kind{{kind="{k}"}} {round(n * scale)}'
            for k, n in sorted(sample.items())
        ),
    ]
    return ("\n".join(lines) + "\n").encode()
