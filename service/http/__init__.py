"""The HTTP edge: everything that knows about requests and responses.

The app factory (``app``), the views (``api/``), request bodies read whole
(``bodies``), the marshmallow schemas of ``openapi.yaml`` (``schemas``),
problem documents (``problems``: the one place a status code is chosen),
rate limits and what a request costs (``ratelimit``, ``request_cost``), the
cap on open streams (``stream_slots``), the Prometheus figures ``/metrics``
serves (``metrics``; the workers' figures are read by
``service.store.queue_metrics``), the web board's files
(``static/``), and a small JSON-over-HTTP client for our own tools
(``http_json``).

It calls ``service.application`` for anything about games, and reads
``service.store`` directly only for what is the edge's own (rate-limit
counters, stream leases, key names, the store's errors to map, the
worker figures); it imports no Redis or RQ client (``.importlinter``). Nothing
below imports this package (``.importlinter``).
"""
