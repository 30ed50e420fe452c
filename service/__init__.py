"""service: the game server, in three layers that import one way (``.importlinter``).

* ``service.http``: the HTTP edge. The Flask app, its views (``service.http.api``),
  request bodies, schemas, problem documents, rate limits and stream caps, the
  metrics it serves, and the web board's files (``static/``).
* ``service.application``: what games, lobbies and tournaments are, with no HTTP:
  ``GameService`` and the modules it is built from, records, analyses, forks,
  quotas, retention, clocks, and the helper process for what costs CPU.
* ``service.store``: the Redis event store (its Lua scripts beside it), the key
  layout, the store's errors and the Redis clients.

``http`` may import ``application`` and ``store``; ``application`` may import
``store``; ``store`` imports neither. The workers (``workers``) use the
application and the store, never ``service.http``.

Two modules stay here because every layer and process uses them and they
belong to none: ``service.settings`` (the one frozen value every process reads
from its environment: the store's clients, the app, the workers and the
helper process all take theirs from it) and ``service.logs`` (structured
logging, set up the same way by the server, the workers and the CLI). Neither
imports anything of the layers.
"""
