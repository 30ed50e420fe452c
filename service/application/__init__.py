"""The application: games, lobbies and tournaments as the server keeps them, with no HTTP.

``games.GameService`` is the one object the HTTP views and the workers call,
built from a module per concern: ``seating``, ``commands``, ``game_states``,
``game_log`` (the stored stream as envelopes and states) and ``lobby``, with
the values they share in ``game_types`` and the errors they raise in
``errors``. Beside it: ``tournaments`` and ``ratings``, ``records`` and
``replays``, ``analysis`` and ``forks``, ``quotas`` and ``storage``
(what a creator may hold), ``clocks``, ``auth`` (seat and admin tokens),
and the results that cost CPU (``computed``, ``costly``, run in the helper
process of ``offload``/``offload_child``).

It may import ``service.store``, never ``service.http`` (``.importlinter``):
the errors it raises are plain facts; ``service.http.problems`` gives them
their statuses.
"""
