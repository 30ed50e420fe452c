"""The players' pages (issue 49) and the lobby's finished games (issue 48) in a real
headless Chromium, against `risk serve`, `risk worker` and `risk projector`.

An account is made on the page, signed out and signed in again by pasting its token;
one click plays a bot and the game page plays the account's seat (a move by a click);
the finished game is then among "my games", on the profile with its rating, and on the
leaderboard beside the bot's account. The lobby lists the archive's finished games with
the history's filters and pages on with "More". Each page passes axe-core, fits a phone
(390 x 844 CSS pixels, no sideways scrolling), and no request's URL carries a token
(the server's access log is read).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Stack, http, running_stack, skip_without_chromium

skip_without_chromium()

from tests.e2e.test_board_browser import wait_for  # noqa: E402
from tests.e2e.test_board_clicks import phone  # noqa: E402
from tests.e2e.test_board_play import (  # noqa: E402
    Clicker,
    axe_source,  # noqa: F401  (a fixture: the ``axe`` fixture asks for it by name)
    chromium,
    console_errors,
    serious_violations,
)

from selenium.webdriver.common.by import By  # noqa: E402  # isort: skip

pytestmark = pytest.mark.e2e
ARCHIVED_SECONDS = 30  # the projector's lag on a loaded machine, generously


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = chromium()
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def axe(request: pytest.FixtureRequest) -> str:
    """axe-core's source, as test_board_play installs it."""
    source: str = request.getfixturevalue("axe_source")
    return source


@pytest.fixture
def pages_stack(stack_env: dict[str, str], tmp_path: Path, browser: Any) -> Iterator[Stack]:
    """The API and the worker, and the projector that feeds the archive and the ratings."""
    env = stack_env | {"RISK_SSE_KEEPALIVE": "0.5"}
    with running_stack(env, tmp_path) as stack:
        stack.start("projector", "projector", "--log-level", "WARNING")
        try:
            yield stack
        finally:
            browser.get("about:blank")  # close the game page's event stream
            os.killpg(stack.processes["api"].pid, signal.SIGQUIT)  # as test_board_browser's


def stored(browser: Any, key: str) -> Any:
    raw = browser.execute_script("return localStorage.getItem(arguments[0])", key)
    return json.loads(raw) if raw else None


def text(browser: Any, css: str) -> str:
    return str(browser.find_element(By.CSS_SELECTOR, css).text)


def rows(browser: Any, box: str) -> list[str]:
    found = browser.find_elements(By.CSS_SELECTOR, f"#{box} tbody tr")
    return [str(r.get_attribute("data-game") or r.get_attribute("data-player")) for r in found]


def lost_challenge(url: str, token: str, mode: str = "two_player") -> str:
    """A rated challenge against one easy bot, resigned at once: the bot wins."""
    status, made = http("POST", f"{url}/v1/challenges", {"bots": ["easy"], "mode": mode}, token)
    assert status == 201, made
    game: str = made["game"]["game_id"]
    status, sent = http("POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, token)
    assert status == 200, sent
    return game


def archived(url: str, count: int) -> None:
    """Wait until the archive lists ``count`` finished games (the projector's work)."""
    listed = f"{url}/v1/games?source=archive&status=finished&limit=100"
    wait_for(lambda: len(http("GET", listed)[1]["games"]) >= count, ARCHIVED_SECONDS, "archived")


def on_a_phone(stack: Stack, paths: list[str], ready: dict[str, str], token: str | None) -> None:
    """Each page at 390 x 844 is no wider than the screen (a screenshot of each is kept
    in the test's log directory)."""
    driver = phone()
    try:
        driver.get(stack.url + "/account")
        if token:
            driver.execute_script(
                "localStorage.setItem('risk-account', JSON.stringify({token: arguments[0],"
                " name: 'Ada'}))",
                token,
            )
        for path in paths:
            driver.get(stack.url + path)
            wait_for(lambda p=path: driver.find_element(By.CSS_SELECTOR, ready[p]), 15, path)
            width = driver.execute_script("return document.documentElement.scrollWidth")
            assert width <= 390, (path, width)
            name = path.strip("/").replace("/", "-").split("?")[0] or "lobby"
            driver.save_screenshot(str(stack.logs / f"phone-{name}.png"))
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_an_account_signs_in_plays_a_bot_in_one_click_and_finds_its_game_everywhere(
    pages_stack: Stack, browser: Any, axe: str
) -> None:
    url = pages_stack.url
    browser.get(url + "/account")
    wait_for(lambda: browser.find_element(By.ID, "register-name").is_displayed(), 10, "the form")
    assert serious_violations(browser, axe) == []
    browser.find_element(By.ID, "register-name").send_keys("Ada")
    browser.find_element(By.CSS_SELECTOR, "#register button").click()
    shown = browser.find_element(By.ID, "new-token")
    token = wait_for(lambda: shown.get_attribute("value"), 10, "the token shown once")
    assert token.startswith("rac_") and stored(browser, "risk-account")["token"] == token
    wait_for(lambda: text(browser, "#me-name") == "Ada", 10, "signed in as the new account")
    assert text(browser, "#who") == "Signed in as Ada"

    # Signing out forgets the token; pasting it signs in again (a wrong one is refused).
    browser.find_element(By.ID, "signout").click()
    wait_for(lambda: browser.find_element(By.ID, "signin-token").is_displayed(), 10, "signed out")
    field = browser.find_element(By.ID, "signin-token")
    assert stored(browser, "risk-account") is None
    field.send_keys("rac_not-a-token")
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    wait_for(lambda: "not an account's token" in text(browser, "#signin-error"), 10, "refused")
    field.clear()
    field.send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    wait_for(lambda: text(browser, "#me-name") == "Ada", 10, "signed in")
    easy = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "[data-level=easy]"), 10)
    assert serious_violations(browser, axe) == []

    # One click: a rated game against the easy bot, its page open in the account's seat.
    easy.click()
    wait_for(lambda: "/games/" in browser.current_url, 15, "the game's page")
    game = browser.current_url.rsplit("/", 1)[1]
    assert "(p1)" in wait_for(lambda: text(browser, "#you"), 15, "the seat")
    assert not browser.find_elements(By.ID, "seat-link")  # never the account's token as a link
    # Issue 49: nor in another tab, which finds the seat in localStorage and has not shown
    # a link yet (sessionStorage is per tab): a seat link is an anonymous seat's only.
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(f"{url}/games/{game}")
    assert "(p1)" in wait_for(lambda: text(browser, "#you"), 15, "the seat in a new tab")
    assert not browser.find_elements(By.CSS_SELECTOR, "#seat-link, .seat-link")
    browser.close()
    browser.switch_to.window(first_tab)
    me = Clicker(pages_stack, browser, game, token)
    actions = me.ready(timeout=30)
    assert actions is not None
    where = next(a["command"]["territory"] for a in actions if "territory" in a["command"])
    me.moved(lambda: me.territory(where), "a move by a click")
    events = http("GET", f"{url}/v1/games/{game}/events?limit=1000", token=token)[1]["events"]
    assert any(
        e["actor"] == "p1" and e["event"].get("territory") == where and not e["bot"] for e in events
    )
    status, _ = http("POST", f"{url}/v1/games/{game}/commands", {"type": "resign"}, token)
    assert status == 200
    archived(url, 1)
    wait_for(lambda: http("GET", f"{url}/v1/players/Ada")[1]["ratings"], ARCHIVED_SECONDS)

    # My games: the game, lost, with its replay.
    browser.get(url + "/account")
    mine = f"#my-games tr[data-game='{game}']"
    row = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, mine), 10, "my games")
    assert "lost" in row.text and "winner: bot-easy" in row.text and "Replay" in row.text
    assert serious_violations(browser, axe) == []

    # The profile: the rating of the mode, and the game in the history.
    browser.find_element(By.ID, "me-profile").click()
    mode = "#ratings tr[data-mode=two_player]"
    rating = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, mode), 10, "the rating")
    assert rating.text.endswith(" 1")  # one game
    wait_for(lambda: rows(browser, "history") == [game], 10, "the history")
    assert serious_violations(browser, axe) == []

    # The leaderboard of the mode: the bot's account (marked) above Ada (marked as you).
    rating.find_element(By.TAG_NAME, "a").click()
    wait_for(lambda: rows(browser, "board") == ["bot-easy", "Ada"], 10, "the leaderboard")
    assert browser.current_url.endswith("/leaderboards?mode=two_player")
    assert text(browser, "tr[data-player=bot-easy] th").endswith("bot")
    assert text(browser, "tr[data-player=Ada] th").endswith("you")
    assert serious_violations(browser, axe) == []
    assert console_errors(browser) == []

    pages = ["/account", "/players/Ada", "/leaderboards?mode=two_player"]
    lists = ["#my-games tbody tr", "#history tbody tr", "#board tbody tr"]
    ready = dict(zip(pages, lists, strict=True))
    on_a_phone(pages_stack, pages, ready, token)

    # Signing out forgets the account and the seat kept with its token.
    browser.get(url + "/account")
    wait_for(lambda: browser.find_element(By.ID, "signout").is_displayed(), 10, "signed in")
    browser.find_element(By.ID, "signout").click()
    wait_for(lambda: browser.find_element(By.ID, "signin-token").is_displayed(), 10)
    assert stored(browser, "risk-account") is None
    assert game not in (stored(browser, "risk-seats") or {})
    assert token not in pages_stack.log("api")  # never in a URL


def test_the_lobbys_finished_games_filter_and_page_on(
    pages_stack: Stack, browser: Any, axe: str
) -> None:
    url = pages_stack.url
    ada = http("POST", f"{url}/v1/accounts", {"name": "Ada"})[1]["token"]
    bo = http("POST", f"{url}/v1/accounts", {"name": "Bo"})[1]["token"]
    adas = [lost_challenge(url, ada) for _ in range(21)]  # a page is 20
    bos = lost_challenge(url, bo, "two_player_active")
    archived(url, 22)

    browser.get(url + "/")
    wait_for(lambda: len(rows(browser, "finished-games")) == 20, 15, "the first page")
    browser.find_element(By.CSS_SELECTOR, "#finished-games button.more").click()
    wait_for(lambda: len(rows(browser, "finished-games")) == 22, 10, "the next page")
    assert set(rows(browser, "finished-games")) == {*adas, bos}
    assert not browser.find_element(By.CSS_SELECTOR, "#finished-games button.more").is_displayed()
    assert serious_violations(browser, axe) == []

    def show(**fields: str) -> None:
        browser.find_element(By.CSS_SELECTOR, "#history-filters button[type=reset]").click()
        for name, value in fields.items():  # a select takes its value, a date its ISO day
            browser.execute_script(
                "const f = document.getElementById(arguments[0]); f.value = arguments[1];"
                "f.dispatchEvent(new Event('input', {bubbles: true}));",
                f"filter-{name}",
                value,
            )
        browser.find_element(By.ID, "filter-show").click()

    def listed() -> list[str]:
        return rows(browser, "finished-games")

    show(player="Bo")
    wait_for(lambda: listed() == [bos], 10, "Bo's game")
    assert browser.current_url.endswith("/?player=Bo#finished")  # a search can be linked
    show(player="Bo", result="won")
    wait_for(lambda: "No finished game matches" in text(browser, "#finished-games"), 10)
    show(player="Bo", result="lost")
    wait_for(lambda: listed() == [bos], 10, "Bo's lost game")
    show(mode="two_player_active")
    wait_for(lambda: listed() == [bos], 10, "the mode's game")
    today = browser.execute_script(
        "const d = new Date(); return d.getFullYear() + '-' + String(d.getMonth() + 1)"
        ".padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');"
    )
    show(**{"from": today, "to": today, "mode": "two_player"})
    wait_for(lambda: len(listed()) == 20 and set(listed()) <= set(adas), 10, "today's games")
    yesterday = browser.execute_script(
        "const d = new Date(); d.setDate(d.getDate() - 1); return d.getFullYear() + '-' +"
        " String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');"
    )
    show(to=yesterday)
    wait_for(lambda: "No finished game matches" in text(browser, "#finished-games"), 10)

    # A linked search fills the form; its rows open the replays.
    browser.get(url + "/?player=Ada&mode=two_player#finished")
    wait_for(lambda: len(rows(browser, "finished-games")) == 20, 15, "Ada's games")
    assert browser.find_element(By.ID, "filter-player").get_attribute("value") == "Ada"
    assert set(rows(browser, "finished-games")) <= set(adas)
    first = rows(browser, "finished-games")[0]
    browser.find_element(By.CSS_SELECTOR, f"tr[data-game='{first}'] td:last-child a").click()
    wait_for(lambda: browser.current_url.endswith(f"/games/{first}"), 10, "the replay")
    assert console_errors(browser) == []
    search = "/?player=Ada#finished"
    on_a_phone(pages_stack, [search], {search: "#finished-games tbody tr"}, None)
