"""One bot job per game at a time: the game's claim.

A game's claim (``KeySpace.worker_claim``) holds the RQ id of the job that
will play it next, queued or running. The relay sets it (``acquire``, a
``SET NX``) before it enqueues, so the notifications of a game whose job
is pending or running make no second job: they are coalesced into the one
that holds it, which plays on from the game as it is when it runs.

Nothing is lost by coalescing because the holder lets go only with
``release``: one script that drops the claim only if the game is still at
the version the job last saw, and otherwise keeps it (the job plays on).
An append after that release writes its notification after it, so the
relay then finds the claim free and makes a new job.

A job that used its time slice passes the claim to its successor
(``hand_over``) before enqueueing it. The relay's watchdog takes a claim
over (``take_over``) when the game's lease ran out while its holder was
not waiting in a queue: its worker died, or the job failed. The TTL is a
backstop for a claim nothing will release (a game deleted under a crash):
the holder refreshes it every slice, so it never lapses under a live job.
"""

from __future__ import annotations

import uuid
from typing import Any

from service.store.keys import KeySpace
from workers.queues import escaped_game_id

CLAIM_TTL_MS = 10 * 60_000

# KEYS[1] the claim. ARGV: 1 the holder's job id, 2 TTL ms.
_REFRESH = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""
# KEYS[1] the claim. ARGV: 1 the holder's job id, 2 the successor's, 3 TTL ms.
_HAND_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""
# KEYS[1] the claim. ARGV[1] the holder's job id.
_DROP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""
# KEYS: 1 the claim, 2 the game's meta hash. ARGV: 1 the holder's job id, 2 the
# version the holder last saw. 1: released; 0: the game moved, kept; -1: not held.
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if (redis.call('HGET', KEYS[2], 'v') or '0') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""

RELEASED = "released"
MOVED = "moved"
NOT_HELD = "not_held"
_RELEASE_OUTCOMES = {1: RELEASED, 0: MOVED, -1: NOT_HELD}


def new_job_id(game_id: str) -> str:
    """A fresh id for the next job of ``game_id`` (each holder has its own)."""
    return f"advance-{escaped_game_id(game_id)}-{uuid.uuid4().hex[:16]}"


class Claims:
    """The claims of one deployment's games, on the game store's client."""

    def __init__(self, client: Any, keys: KeySpace, *, ttl_ms: int = CLAIM_TTL_MS) -> None:
        self.client = client
        self.keys = keys
        self.ttl_ms = ttl_ms
        self._refresh = client.register_script(_REFRESH)
        self._hand_over = client.register_script(_HAND_OVER)
        self._release = client.register_script(_RELEASE)
        self._drop = client.register_script(_DROP)

    def acquire(self, game_id: str, job_id: str) -> bool:
        """Claim a free game for ``job_id``; False if another job holds it."""
        key = self.keys.worker_claim(game_id)
        return bool(self.client.set(key, job_id, nx=True, px=self.ttl_ms))

    def take_over(self, game_id: str, job_id: str) -> None:
        """Give the game to ``job_id`` whoever held it (the watchdog's rescue)."""
        self.client.set(self.keys.worker_claim(game_id), job_id, px=self.ttl_ms)

    def holder(self, game_id: str) -> str | None:
        held = self.client.get(self.keys.worker_claim(game_id))
        return held.decode() if isinstance(held, bytes) else held

    def refresh(self, game_id: str, job_id: str) -> bool:
        """Whether ``job_id`` still holds the game (and, if so, for another TTL)."""
        key = self.keys.worker_claim(game_id)
        return bool(self._refresh(keys=[key], args=[job_id, self.ttl_ms]))

    def hand_over(self, game_id: str, job_id: str, successor: str) -> bool:
        """Pass the claim from ``job_id`` to ``successor``; False if it was not held."""
        key = self.keys.worker_claim(game_id)
        return bool(self._hand_over(keys=[key], args=[job_id, successor, self.ttl_ms]))

    def release(self, game_id: str, job_id: str, version: int) -> str:
        """Let go, unless the game moved past ``version`` meanwhile: ``RELEASED``,
        ``MOVED`` (still held: play on) or ``NOT_HELD`` (another job has it)."""
        keys = [self.keys.worker_claim(game_id), self.keys.game(game_id).meta]
        return _RELEASE_OUTCOMES[int(self._release(keys=keys, args=[job_id, version]))]

    def drop(self, game_id: str, job_id: str) -> None:
        """Let go whatever the game's version (a job that gives up for good)."""
        self._drop(keys=[self.keys.worker_claim(game_id)], args=[job_id])
