"""How the store runs its Lua scripts: loaded once, called by SHA.

Most scripts go through redis-py's ``register_script`` (EVALSHA, and a
reload on NOSCRIPT). The append is the store's hot path and gets a leaner
runner, :class:`HeldConnectionScript`; why is measured in bench/store.py.
"""

from __future__ import annotations

import itertools
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

try:  # redis-py packs with hiredis too when it is installed; this skips its wrapper
    from hiredis import pack_command as _hiredis_pack
except ImportError:  # pragma: no cover - hiredis is a dependency
    _hiredis_pack = None

__all__ = ["HeldConnectionScript", "register"]

Client = redis.Redis | RedisCluster


def register(client: Client, name: str, prelude: str = "") -> Any:
    """Register a packaged Lua script; redis-py runs it by EVALSHA and reloads on NOSCRIPT.

    ``prelude`` goes in front of the file: constants of the caller's
    configuration, which then cost the script no argument on each call.
    """
    source = resources.files("service.store").joinpath(name).read_text(encoding="utf-8")
    return client.register_script(prelude + source)


class _Held:
    """One thread's connection, handed back to the pool when the thread ends.

    Owned by the process that took it: a forked child (whose copy of this
    thread's state is dropped, or replaced on first use) neither writes to
    the parent's socket nor touches the pool's lock, which another thread
    of the parent may have held at the moment of the fork.
    """

    __slots__ = ("__weakref__", "connection", "pack", "pid")

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.connection: Any = pool.get_connection()
        self.pid = os.getpid()
        self.pack: Callable[..., Any] = _packer(self.connection)
        weakref.finalize(self, _give_back, pool, self.connection, self.pid)


def _give_back(pool: redis.ConnectionPool, connection: Any, pid: int) -> None:
    if os.getpid() == pid:
        pool.release(connection)


def _packer(connection: Any) -> Callable[..., list[bytes]]:
    """Pack a command the way ``connection`` would, minus the per-call wrapper."""
    if _hiredis_pack is not None:
        pack = _hiredis_pack
        return lambda *args: [pack(args)]
    return connection.pack_command  # type: ignore[no-any-return]


def _drop_if_stale(connection: Any) -> None:
    """Disconnect a held connection that the server closed (or that has unread data),
    so that the send below reconnects: the check the pool makes at every checkout."""
    try:
        stale = connection.can_read()
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        stale = True
    if stale:
        connection.disconnect()


class HeldConnectionScript:
    """A script run on a connection each thread holds, for the append's hot path.

    Taking a connection from the pool and giving it back costs as much as
    the rest of a client's share of a single-event append on these machines
    (redis-py's pool bookkeeping and its observability hooks), and so does its
    generic command wrapper. Each thread here keeps one connection of the
    client's pool for its lifetime (the pool gets it back when the thread
    ends), packs the command once with hiredis, and keeps what the generic
    path gives: the pool's check that an idle connection is still open, the
    connection's retry policy around a dropped connection (a re-send
    may carry other arguments: the store marks it as one), health checks
    (``send_packed_command`` does them), and NOSCRIPT answered by loading
    the script and sending it again. Forked children take new connections.
    A Redis Cluster client routes by slot, so there the registered script is
    used as it is.

    Each thread that appends keeps one connection of the pool: a pool capped
    with ``max_connections`` needs room for those and for the other commands
    (twice the threads is plenty).
    """

    def __init__(self, client: Client, name: str, prelude: str = "") -> None:
        self._script = register(client, name, prelude)
        self._pool = None if isinstance(client, RedisCluster) else client.connection_pool
        self._local = threading.local()

    @property
    def sha(self) -> str:
        """The script's SHA-1, as ``EVALSHA`` and ``SCRIPT EXISTS`` know it."""
        return str(self._script.sha)

    def __call__(
        self, keys: Sequence[str], args: Sequence[Any], resend: Sequence[Any] | None = None
    ) -> Any:
        """Run the script; after a dropped connection, send ``resend`` (default: ``args``)."""
        if self._pool is None:
            return self._script(keys=keys, args=args)
        held = self._held()
        connection = held.connection
        _drop_if_stale(connection)
        sha = self._script.sha
        packed = held.pack("EVALSHA", sha, len(keys), *keys, *args)
        attempts = itertools.count()

        def send() -> Any:
            if next(attempts) and resend is not None:  # a retry after a dropped connection
                return self._run(connection, held.pack("EVALSHA", sha, len(keys), *keys, *resend))
            return self._run(connection, packed)

        return connection.retry.call_with_retry(send, lambda _: connection.disconnect())

    def _held(self) -> _Held:
        held: _Held | None = getattr(self._local, "held", None)
        if held is None or held.pid != os.getpid():
            assert self._pool is not None
            held = self._local.held = _Held(self._pool)
        return held

    def _run(self, connection: Any, packed: list[bytes]) -> Any:
        connection.send_packed_command(packed)
        try:
            return connection.read_response()
        except NoScriptError:  # a restarted or flushed Redis: load it, then send again
            connection.send_command("SCRIPT", "LOAD", self._script.script)
            connection.read_response()
            connection.send_packed_command(packed)
            return connection.read_response()
