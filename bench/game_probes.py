"""Probes of how games fare while costly work runs (issue 54): bot replies and clocks.

Shared by ``bench/abuse.py --only analyses`` and tests/e2e/test_analysis_jobs.py,
which loads this file with ``importlib.util.spec_from_file_location`` (never by
putting ``bench/`` on ``sys.path``: ``bench/workers.py`` would then shadow the
``workers`` package).

* ``finished_games``: large finished random-bot games, stored as the API stores
  games (``service.application.records.append_simulated``), to analyse;
* ``bot_replies``: a person (this probe, playing passively over HTTP) against
  two random bots: seconds from each of its commands that handed the turn
  over until it may act again;
* ``clock_lateness``: games whose person never moves, on a 2 s turn clock
  (made through the application service: the API refuses clocks under 10 s):
  seconds from each deadline to the bot move its timeout made.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from riskcore.audit.record import decode_envelope
from riskcore.bots.base import get_bot
from riskcore.simulate import play_game
from service.application.games import GameService, SeatPlan
from service.application.records import append_simulated

CLOCK = {"turn_seconds": 2, "on_timeout": "bot"}


def call(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def finished_games(
    service: GameService, count: int, players: int = 6, min_events: int = 1500
) -> list[str]:
    """``count`` finished random-bot games of ``players`` seats, each of at least
    ``min_events`` events (long games: deep analyses of them run for minutes)."""
    games: list[str] = []
    attempt = 0
    while len(games) < count:
        attempt += 1
        seed = attempt.to_bytes(32, "big")
        bots = [get_bot("random") for _ in range(players)]
        result = play_game(bots, seed=seed, game_id=f"big{attempt}-{time.time_ns() % 10**9}")
        if result.winner and len(result.events) >= min_events:
            games.append(append_simulated(service.store, result, seed))
    return games


def start_analyses(url: str, games: list[str], depth: int) -> list[int]:
    """POST an analysis of each game; the statuses answered."""
    return [call("POST", f"{url}/v1/games/{g}/analysis", {"depth": depth})[0] for g in games]


def analysis(url: str, game: str, depth: int) -> dict[str, Any]:
    return dict(call("GET", f"{url}/v1/games/{game}/analysis?depth={depth}")[1])


def bot_replies(url: str, seconds: float) -> list[float]:
    """Seconds from each command that handed the turn to the bots until the person may
    act again, for ``seconds``; a finished game is followed by a new one."""
    replies: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seats = [{"kind": "human", "name": "probe"}, *[{"kind": "bot", "bot": "random"}] * 2]
        status, created = call("POST", f"{url}/v1/games", {"seats": seats})
        assert status == 201, created
        game, token = created["game"]["game_id"], created["tokens"]["p1"]
        replies += _play(url, game, token, deadline)
    return replies


def _play(url: str, game: str, token: str, deadline: float) -> list[float]:
    replies: list[float] = []
    waited_from: float | None = time.monotonic()
    while time.monotonic() < deadline:
        status, legal = call("GET", f"{url}/v1/games/{game}/legal-actions", token=token)
        if status != 200:
            return replies  # the game is over (or this seat is out of it)
        if not legal["actions"]:
            if waited_from is None:
                waited_from = time.monotonic()
            time.sleep(0.02)
            continue
        if waited_from is not None:
            replies.append(time.monotonic() - waited_from)
            waited_from = None
        command = _passive(legal["actions"])
        sent = call("POST", f"{url}/v1/games/{game}/commands", command, token=token)
        if sent[0] not in (200, 201, 409):
            return replies
    return replies


def _passive(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Claim, place, trade, defend and move in what is asked; otherwise end the phase."""
    by_type = {action["command"]["type"]: action for action in reversed(actions)}
    for kind in ("claim_territory", "place_armies", "trade_cards", "defend", "occupy"):
        if kind in by_type:
            return dict(by_type[kind]["command"])
    if "end_phase" in by_type:
        return {"type": "end_phase"}
    return dict(actions[0]["command"])


def clocked_games(service: GameService, count: int) -> list[str]:
    """Games where p1, a person, never moves: only its 2 s clock plays for it."""
    seats = [SeatPlan("human", name="idle"), SeatPlan("bot", bot="random")]
    seats.append(SeatPlan("bot", bot="random"))
    return [service.create(seats=seats, clock=CLOCK).info.game_id for _ in range(count)]


class ClockWatch:
    """Watches the games' clocks in a thread: each deadline seen, then the lateness of
    the timeout move that answered it (its event time minus the deadline)."""

    def __init__(self, service: GameService, games: list[str]) -> None:
        self._service, self._games = service, games
        self.lateness: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ClockWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        client, keys = self._service.store.client, self._service.keys
        deadlines: dict[str, set[int]] = {g: set() for g in self._games}
        answered: dict[str, int] = {g: self._timeouts(g)[1] for g in self._games}
        while not self._stop.wait(0.05):
            for game in self._games:
                at = client.hget(keys.clock(game), "deadline_ms")
                if at is not None:
                    deadlines[game].add(int(at))
                times, count = self._timeouts(game)
                for made in times[answered[game] :]:
                    due = [d for d in deadlines[game] if d <= made]
                    if due:
                        self.lateness.append((made - max(due)) / 1000)
                answered[game] = count

    def _timeouts(self, game: str) -> tuple[list[int], int]:
        """The event times (unix ms) of the moves the clock made for p1, in order."""
        batches = [decode_envelope(e.payload) for e in self._service.store.read(game)]
        times = [
            b.time_ms
            for b in batches
            if b.command is not None
            and b.actor == "p1"
            and (b.bot or {}).get("reason") == "timeout"
        ]
        return times, len(times)


def figures(values: list[float]) -> dict[str, Any]:
    """Count, median, p99 and max, in milliseconds."""
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "p50_ms": round(1000 * statistics.median(ordered)),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]),
        "max_ms": round(1000 * ordered[-1]),
    }


def measure(url: str, service: GameService, seconds: float, clocks: int = 2) -> dict[str, Any]:
    """Bot replies and clock lateness over ``seconds``, side by side."""
    with ClockWatch(service, clocked_games(service, clocks)) as watch:
        replies = bot_replies(url, seconds)
        time.sleep(0.5)  # the last deadline's move
    return {"bot_reply": figures(replies), "clock_lateness": figures(watch.lateness)}
