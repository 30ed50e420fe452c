"""service: the REST API (Flask + marshmallow) and the Redis event store."""
