"""Content-Security-Policy and Referrer-Policy on every response (issue 54, item 7).

The board keeps a seat token in ``localStorage``: an injected script could
read it, and a link followed from a game page told the next site its address
(which may carry the token in its fragment only, never sent, but the game id).
The board loads nothing from elsewhere and runs no inline script or style, so
its policy is strict: everything from this origin, images also as ``data:``
URLs (the tab's attention icon), nothing framed. The two documentation pages
need inline code of their own: ``/docs`` an inline style sheet, Swagger UI
(``/docs/ui/``) its inline start-up script and styles; each gets only that.
Every response says ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from flask import Response

__all__ = ["BOARD_POLICY", "secure"]

_BASE = (
    "default-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
BOARD_POLICY = "; ".join((*_BASE, "script-src 'self'", "style-src 'self'"))
_DOCS_POLICY = "; ".join((*_BASE, "script-src 'self'", "style-src 'self' 'unsafe-inline'"))
_SWAGGER_POLICY = "; ".join(
    (*_BASE, "script-src 'self' 'unsafe-inline'", "style-src 'self' 'unsafe-inline'")
)


def secure(response: Response, path: str) -> None:
    """Set both headers on ``response`` to the request at ``path``."""
    if path.startswith("/docs/ui"):
        policy = _SWAGGER_POLICY
    elif path == "/docs":
        policy = _DOCS_POLICY
    else:
        policy = BOARD_POLICY
    response.headers.setdefault("Content-Security-Policy", policy)
    response.headers.setdefault("Referrer-Policy", "no-referrer")
