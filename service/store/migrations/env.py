"""Alembic's environment: migrations run on the connection ``migrate`` opens.

``service.store.database.migrate`` passes its connection (inside the lock
and transaction it holds) as ``config.attributes["connection"]``; there is no
alembic.ini and no URL here, so a password never sits in a config file.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
