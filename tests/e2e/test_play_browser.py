"""The page to play a person (issue 49, `/play`) in a real headless Chromium, against
`risk serve` and `risk worker`.

"`{"open": true}` gives a link anyone may use to take the seat": a signed-in account
makes an open challenge and copies its link; the link, opened in another tab without the
account, takes the seat by a name and opens the game in it, and the challenger's tab
follows into its own seat (never with a seat link: its token is the account's). "A
quick-pairing queue ... pairs waiting people": a guest joins, cancels (its seek is left),
joins again and is taken to the game when another seeker (by the API) pairs with it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.conftest import Stack, http, skip_without_chromium

skip_without_chromium()

from tests.e2e.test_board_browser import wait_for  # noqa: E402
from tests.e2e.test_board_play import (  # noqa: E402
    axe_source,
    board_stack,
    browser,
    console_errors,
    serious_violations,
)

from selenium.webdriver.common.by import By  # noqa: E402  # isort: skip

pytestmark = pytest.mark.e2e
__all__ = ["axe_source", "board_stack", "browser"]  # the fixtures, shared with test_board_play


def text(browser: Any, element_id: str) -> str:
    return str(browser.find_element(By.ID, element_id).text)


def game_of(browser: Any) -> str:
    wait_for(lambda: "/games/" in browser.current_url, 15, "the game's page")
    return str(browser.current_url.rsplit("/", 1)[1])


def test_a_challenge_link_is_made_and_taken_and_quick_pairing_pairs(
    board_stack: Stack, browser: Any, axe_source: str
) -> None:
    url = board_stack.url
    status, made = http("POST", f"{url}/v1/accounts", {"name": "Ada"})
    assert status == 201, made
    browser.get(url + "/play")
    browser.execute_script(
        "localStorage.setItem('risk-account', JSON.stringify({token: arguments[0], name: 'Ada'}))",
        made["token"],
    )
    browser.get(url + "/play")
    wait_for(lambda: text(browser, "who") == "Signed in as Ada", 10, "signed in")
    make = browser.find_element(By.ID, "open-make")
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#open-seats option"), 10, "the form")
    assert serious_violations(browser, axe_source) == []
    make.click()
    field = browser.find_element(By.ID, "open-link")
    link = wait_for(lambda: field.get_attribute("value"), 10, "the challenge's link")
    assert link.startswith(f"{url}/play#challenge=ch_")
    browser.find_element(By.ID, "copy-link").click()
    said = ("Copied ✓", "Selected: copy it")
    wait_for(lambda: text(browser, "copy-link") in said, 5, "the copy said")

    # A guest opens the link in another tab (the account forgotten there) and takes the seat.
    ada_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(url + "/board/meta.json")  # (not /play: the link would then be a same-page jump)
    browser.execute_script("localStorage.removeItem('risk-account')")
    browser.get(link)
    wait_for(lambda: "Ada invites you" in text(browser, "taking-what"), 10, "the challenge")
    browser.find_element(By.ID, "take-name").send_keys("Grace")
    browser.find_element(By.ID, "take-seat").click()
    game = game_of(browser)
    assert "Grace (p2)" in wait_for(lambda: text(browser, "you"), 15, "the guest's seat")
    assert browser.find_elements(By.ID, "seat-link")  # an anonymous seat's token: its link
    guest_tab = browser.current_window_handle

    # The challenger's tab followed the challenge into its game, in seat p1.
    browser.switch_to.window(ada_tab)
    assert game_of(browser) == game
    assert "(p1)" in wait_for(lambda: text(browser, "you"), 15, "the challenger's seat")
    assert not browser.find_elements(By.ID, "seat-link")
    assert console_errors(browser) == []

    # Quick pairing, as a guest: join, cancel (the seek is left), join again; paired with
    # another seeker, the page opens the game in the seat it got.
    browser.switch_to.window(guest_tab)
    browser.get(url + "/play")
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#seek-level option"), 10, "the form")
    browser.find_element(By.ID, "seek-name").send_keys("Grace")
    browser.find_element(By.ID, "seek-start").click()
    wait_for(lambda: "Waiting for 1 other player" in text(browser, "seek-status"), 10, "waiting")
    kept = json.loads(browser.execute_script("return sessionStorage.getItem('risk-seek')"))
    browser.find_element(By.ID, "seek-cancel").click()
    wait_for(lambda: not browser.find_element(By.ID, "seeking").is_displayed(), 10, "cancelled")
    assert http("GET", f"{url}/v1/pairing/{kept['id']}")[1]["seek"]["status"] == "left"
    browser.find_element(By.ID, "seek-start").click()
    wait_for(lambda: "Waiting" in text(browser, "seek-status"), 10, "waiting again")
    body = {"mode": "two_player", "players": 2, "name": "Bo"}
    status, other = http("POST", f"{url}/v1/pairing", body)
    assert status == 201 and other["seek"]["status"] == "paired", other
    paired = game_of(browser)
    assert paired == other["seek"]["game_id"]
    mine = "p2" if other["seek"]["seat"] == "p1" else "p1"
    assert f"Grace ({mine})" in wait_for(lambda: text(browser, "you"), 15, "the paired seat")
    assert console_errors(browser) == []
