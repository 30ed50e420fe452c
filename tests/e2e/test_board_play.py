"""Playing the web board by clicks only (issue 33), in a real headless Chromium.

Every move of the human seat here is a click on the page (a territory, a button,
a card); the tests read the API only to decide which click to make and to check
what the page shows against what the server holds. The bots are the fast ones
(``random``) and the games small, so that whole games end within seconds.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Stack, http, running_stack

# Skips this module as it skips that one: without a system Chromium.
from tests.e2e.test_board_browser import (
    CHROMIUM,
    DRIVER,
    FLAGS,
    Service,
    create,
    shown_version,
    wait_for,
    webdriver,
)

from selenium.webdriver.common.by import By  # isort: skip  (after the skip above)

pytestmark = pytest.mark.e2e
BOT = {"kind": "bot", "bot": "random"}


def chromium(profile: str | None = None) -> Any:
    """Headless Chromium that keeps the page's console (``console_errors`` reads it)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    if profile:
        options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def board_stack(stack_env: dict[str, str], tmp_path: Path, browser: Any) -> Iterator[Stack]:
    """As test_board_browser's: the page closed, then the API stopped at once."""
    env = stack_env | {"RISK_SSE_KEEPALIVE": "0.5"}
    with running_stack(env, tmp_path) as stack:
        try:
            yield stack
        finally:
            browser.get("about:blank")
            os.killpg(stack.processes["api"].pid, signal.SIGQUIT)


def console_errors(browser: Any) -> list[str]:
    """The page's JavaScript errors since the last call (the log is drained by reading)."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


class Clicker:
    """The human seat, played by clicks; counts them (the issue's clicks per turn)."""

    def __init__(self, stack: Stack, browser: Any, game: str, token: str, seat: str = "p1"):
        self.api = f"{stack.url}/v1/games/{game}"
        self.browser = browser
        self.token = token
        self.seat = seat
        self.clicks = 0
        self.board: dict[str, Any] | None = None

    def get(self, path: str = "") -> dict[str, Any]:
        status, body = http("GET", self.api + path, token=self.token)
        assert status == 200, body
        result: dict[str, Any] = body
        return result

    def version(self) -> int:
        return int(self.get()["version"])

    def borders(self) -> set[tuple[str, str]]:
        if self.board is None:
            view = self.get()
            base = self.api.split("/v1/")[0]
            self.board = http("GET", f"{base}/v1/maps/{view['board']}")[1]
        assert self.board is not None
        pairs = {(a, b) for a, b, _ in self.board["borders"]}
        return pairs | {(b, a) for a, b in pairs}

    def ready(self, timeout: float = 20) -> list[dict[str, Any]] | None:
        """Our legal actions once the page shows the server's version; None: game over."""

        def check() -> list[dict[str, Any]] | str | None:
            legal = self.get("/legal-actions")
            if self.get()["phase"] == "finished":
                return "over"
            if not legal["actions"] or shown_version(self.browser) != legal["version"]:
                return None
            shown = self.browser.find_element(By.ID, "actions").get_attribute("data-version")
            if shown != str(legal["version"]):
                return None
            found: list[dict[str, Any]] = legal["actions"]
            return found

        found = wait_for(check, timeout, "our turn on the page")
        return None if found == "over" else found

    def click(self, css: str) -> None:
        try:
            wait_for(
                lambda: self.browser.find_element(By.CSS_SELECTOR, css).click() or True, 10, css
            )
        except AssertionError:
            self.browser.save_screenshot("/tmp/bp/fail.png")
            print(self.browser.find_element(By.ID, "play-panel").text, console_errors(self.browser))
            for e in self.get("/events?since=0&limit=1000")["events"]:
                if e["actor"] == self.seat:
                    print(e["version"], e["event"])
            raise
        self.clicks += 1

    def territory(self, territory: str) -> None:
        self.click(f"[data-territory='{territory}'] .disc")  # its army badge

    def moved(self, action: Callable[[], None], what: str) -> None:
        """Do ``action`` and wait until the server has a new version."""
        before = self.version()
        action()
        wait_for(lambda: self.version() > before, 10, what)

    def submit(self, kind: str) -> None:
        self.moved(lambda: self.click(f"#actions form[data-type='{kind}'] button"), kind)

    def picked(self) -> list[str]:
        return list(
            self.browser.execute_script(
                "return [...document.querySelectorAll('.territory.picked')]"
                ".map((g) => g.dataset.territory)"
            )
        )

    def pick(self, *territories: str) -> None:
        """Pick a source (and target) on the map unless the page still has them picked."""
        if sorted(self.picked()) == sorted(territories):  # (the page's order, not the pick's)
            return
        for territory in territories:
            self.territory(territory)


def open_seat(browser: Any, stack: Stack, game: str, seat: str, token: str) -> None:
    """Open the seat by its seat link (the token in the fragment, which no request carries)."""
    browser.get(f"{stack.url}/games/{game}#seat={seat}&token={token}")
    wait_for(lambda: "token=" not in browser.current_url, 10, "the page to take the token")


def test_clicks_for_a_reinforce_attack_occupy_fortify_turn(
    board_stack: Stack, browser: Any
) -> None:
    """p1 places everything on one border, attacks its weakest neighbour until it falls,
    moves in, ends the attack, fortifies and ends the turn; the clicks are printed."""
    created = create(
        board_stack,
        [{"kind": "human", "name": "Ada"}, BOT, BOT],
        rules={"setup": "deal", "starting_armies": 14},
    )
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    open_seat(browser, board_stack, game, "p1", token)
    me = Clicker(board_stack, browser, game, token)
    actions = me.ready()
    assert actions is not None
    view = me.get()
    assert view["phase"] == "reinforce" and view["current"] == "p1", view["phase"]
    borders = me.borders()
    mine = {t for t, v in view["territories"].items() if v["owner"] == "p1"}
    armies = {t: v["armies"] for t, v in view["territories"].items()}
    source, target = min(
        ((s, t) for s, t in borders if s in mine and t not in mine),
        key=lambda pair: armies[pair[1]] - armies[pair[0]],
    )
    counts = {"reinforce": 0, "attack": 0, "occupy": 0, "fortify": 0, "end": 0, "rolls": 0}

    def phase_clicks(name: str, action: Callable[[], None]) -> None:
        before = me.clicks
        action()
        counts[name] += me.clicks - before

    while me.get()["phase"] == "reinforce":
        phase_clicks("reinforce", lambda: (me.territory(source), me.submit("place_armies")))
        me.ready()

    def can_attack() -> bool:
        attacks = [a["command"] for a in me.get("/legal-actions")["actions"]]
        return any(
            a["type"] == "attack" and (a["source"], a["target"]) == (source, target)
            for a in attacks
        )

    while me.get()["phase"] == "attack" and can_attack():
        counts["rolls"] += 1
        phase_clicks("attack", lambda: (me.pick(source, target), me.submit("attack")))
        me.ready()
    if me.get()["phase"] == "occupy":
        phase_clicks("occupy", lambda: me.submit("occupy"))
        me.ready()
    phase_clicks("end", lambda: me.submit("end_phase"))  # no more attacks
    actions = me.ready()
    assert actions is not None
    move = next(a["command"] for a in actions if a["command"]["type"] == "fortify")
    fortified = me.version()
    phase_clicks("fortify", lambda: (me.pick(move["source"], move["target"]), me.submit("fortify")))

    def turn_over() -> bool:
        events = me.get(f"/events?since={fortified}")["events"]
        return any(e["event"]["type"] in ("turn_ended", "game_finished") for e in events)

    try:
        wait_for(turn_over, 3, "the turn to end by itself")
    except AssertionError:  # the page did not end the turn with the fortification
        me.ready()
        phase_clicks("end", lambda: me.submit("end_phase"))
    wait_for(turn_over, 10, "the end of the turn")
    print(f"CLICKS per turn: {me.clicks} {counts}")
    # "Attack again" keeps source and target: a roll after the first is one click.
    assert counts["attack"] == 3 + (counts["rolls"] - 1), counts
    assert counts["reinforce"] == 2 and counts["occupy"] == 1 and counts["fortify"] == 3, counts
