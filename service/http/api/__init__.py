"""The HTTP API: one blueprint per area, each view a few lines over the application.

The application is ``service.application.games`` and the modules beside it."""

from __future__ import annotations

from flask import Flask

from service.http.api import (
    accounts,
    analysis,
    board,
    challenges,
    events,
    history,
    lobby,
    ops,
    pairing,
    play,
    records,
    reference,
    swagger,
    tournaments,
    webhooks,
)

__all__ = ["register"]


def register(app: Flask) -> None:
    app.register_blueprint(history.bp)  # issue 48: before lobby's /v1/games/<game>
    for module in (lobby, play, events, records, reference, ops, board, swagger, tournaments):
        app.register_blueprint(module.bp)
    app.register_blueprint(analysis.bp)  # issue 37: analyses and forks of finished games
    app.register_blueprint(accounts.bp)  # issue 49: players
    app.register_blueprint(challenges.bp)
    app.register_blueprint(pairing.bp)
    app.register_blueprint(webhooks.bp)  # issue 50
