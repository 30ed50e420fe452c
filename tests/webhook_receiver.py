"""A real local webhook receiver for the tests of issue 50: an HTTP server in a thread
that answers each POST with the next of its scripted answers and keeps what it got.
An answer is (status, headers, seconds to wait first), and optionally its body
(``b"ok"`` otherwise)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, dict[str, str], float] | tuple[int, dict[str, str], float, bytes]


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: str
    at: float


@dataclass
class Receiver:
    """``answers``: (status, headers, seconds to wait first[, body]) in turn; the last
    repeats."""

    answers: list[Answer] = field(default_factory=list)
    got: list[Received] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_answer(self) -> Answer:
        with self.lock:
            if not self.answers:
                return 200, {}, 0.0
            return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.got) >= count:
                    return list(self.got)
            time.sleep(0.02)
        raise AssertionError(f"{len(self.got)} requests arrived, not {count}")


@contextmanager
def receiver(*answers: Answer) -> Iterator[Receiver]:
    state = Receiver(list(answers))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length).decode()
            headers = {k.lower(): v for k, v in self.headers.items()}
            answer = state.next_answer()
            status, extra, delay = answer[:3]
            content = answer[3] if len(answer) > 3 else b"ok"
            with state.lock:  # kept on arrival: an attempt whose sender died counts too
                state.got.append(Received(headers, body, time.time()))
            time.sleep(delay)
            self.send_response(status)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/risk"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
