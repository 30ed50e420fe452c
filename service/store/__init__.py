"""The store: game events in Redis, and everything that names or reaches Redis.

``event_store.EventStore`` appends and reads one stream per game through the
Lua scripts beside it (``append.lua``, ``snapshot.lua``, ``delete.lua``, run
by ``scripts``); ``values`` holds what it takes and gives, ``idempotency``
its idempotency records and private keys, ``errors`` its error tree.
``keys`` is the one place that names Redis keys, and ``connections`` makes
the Redis clients from the settings. The store is generic over bytes: it
never decodes an event.

It imports neither ``service.application`` nor ``service.http``
(``.importlinter``).
"""
