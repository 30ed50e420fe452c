"""Noticing that a waiting client left (service.http.api.events), on any descriptor."""

from __future__ import annotations

import socket

from flask import Flask

from service.http.api.events import _client_gone


def test_a_client_that_left_is_noticed_and_one_that_stays_is_not(app: Flask) -> None:
    """Past descriptor 1023 too: select() refused those, and every long-poll of a
    busy server (a thousand streams) was taken for gone at its first look."""
    padding = [socket.socket() for _ in range(1100)]
    server_end, client_end = socket.socketpair()
    try:
        assert server_end.fileno() > 1024
        with app.test_request_context(environ_base={"gunicorn.socket": server_end}):
            assert not _client_gone()
            client_end.sendall(b"x")  # a pipelined request is not a goodbye
            assert not _client_gone()
            client_end.close()
            server_end.recv(1)
            assert _client_gone()
        with app.test_request_context():
            assert not _client_gone()  # no socket to look at (a test client): still there
    finally:
        server_end.close()
        for unused in padding:
            unused.close()
