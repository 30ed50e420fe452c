"""A finished game's analysis and "continue from here" on its replay page (issue 37),
in a real headless Chromium against `risk serve` and `risk worker` (the worker runs the
analysis job and then the fork's bots)."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Stack, http, skip_without_chromium

skip_without_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from tests.e2e.test_board_browser import (  # noqa: E402, F401  (fixtures)
    BOTS,
    board_stack,
    browser,
    create,
    shown_version,
    wait_for,
)


def finished_game(stack: Stack) -> str:
    game: str = create(stack, BOTS)["game"]["game_id"]
    over = lambda: http("GET", f"{stack.url}/v1/games/{game}")[1]["phase"] == "finished"  # noqa: E731
    wait_for(over, 60, "the bots' game to end")
    return game


def eliminated(stack: Stack, game: str, seat: str) -> int | None:
    """The version at which ``seat`` was put out of ``game``, if it was."""
    since = 0
    while True:
        url = f"{stack.url}/v1/games/{game}/events?since={since}&limit=1000"
        page = http("GET", url)[1]["events"]
        for item in page:
            event = item["event"]
            if event["type"] == "player_eliminated" and event["player"] == seat:
                return int(item["version"])
        if not page:
            return None
        since = page[-1]["version"]


def clear_point(points: list[Any], playing: set[int]) -> int:
    """The version of a point early in the game, among ``playing`` (p1 still in the game:
    the fork seats us there), that no other point covers (points 4 px in radius, where a
    long game's turns are close, overlap; a click on a covered one is refused), as a
    person would pick one they can click."""
    centres = [(float(p.get_attribute("cx")), float(p.get_attribute("cy"))) for p in points]
    versions = [int(p.get_attribute("data-version")) for p in points]

    def clear(i: int) -> bool:
        x, y = centres[i]
        return all(
            (x - a) ** 2 + (y - b) ** 2 >= 8**2 for j, (a, b) in enumerate(centres) if j != i
        )

    candidates = [i for i, version in enumerate(versions) if version in playing] or [0]
    # A quarter of the way in: p1 still holds enough that the bots cannot put it out of
    # the fork before its turn comes (forked near its end, they did).
    early = candidates[len(candidates) // 4]
    order = sorted(candidates, key=lambda i: abs(i - early))
    return versions[next((i for i in order if clear(i)), early)]


def test_the_graph_jumps_the_replay_and_a_fork_is_played_from_the_page(
    board_stack: Stack,  # noqa: F811  (the fixture imported above)
    browser: Any,  # noqa: F811
) -> None:
    game = finished_game(board_stack)
    browser.get(f"{board_stack.url}/games/{game}")
    wait_for(lambda: browser.find_element(By.ID, "analyse-start").is_displayed(), what="analysis")
    Select(browser.find_element(By.ID, "analysis-depth")).select_by_value("1")
    browser.find_element(By.ID, "analyse-start").click()
    points = wait_for(
        lambda: browser.find_elements(By.CSS_SELECTOR, "#chance-graph .chance-point"),
        90,
        "the win-chance graph (the worker's analysis)",
    )
    report = http("GET", f"{board_stack.url}/v1/games/{game}/analysis?depth=1")[1]["report"]
    assert len(points) == len(report["points"])
    marks = browser.find_elements(By.CSS_SELECTOR, "#slider-marks .turning-mark")
    assert len(marks) == len(report["turning_points"])
    out = eliminated(board_stack, game, "p1")
    playing = {p["version"] for p in report["points"] if out is None or p["version"] < out}
    version = clear_point(points, playing)
    point = f'#chance-graph .chance-point[data-version="{version}"]'
    try:
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, point).click() or True, 5, "a click")
    except AssertionError:  # a click Chromium sends elsewhere (it happens 1 run in ~10 here)
        browser.execute_script(
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
            browser.find_element(By.CSS_SELECTOR, point),
        )
    wait_for(lambda: shown_version(browser) == version, what=f"the replay at version {version}")
    assert browser.current_url.endswith(f"#v={version}")

    # Continue from here: seat p1 is ours, the others easy bots; the page moves to the fork.
    Select(browser.find_element(By.ID, "fork-seat")).select_by_value("p1")
    Select(browser.find_element(By.ID, "fork-level")).select_by_value("easy")
    assert browser.find_element(By.ID, "fork-version").text == str(version)
    browser.find_element(By.ID, "fork-start").click()
    wait_for(lambda: f"/games/{game}" not in browser.current_url, what="the fork's page")
    fork = browser.current_url.rsplit("/", 1)[1].split("#")[0]
    assert "(p1)" in wait_for(lambda: browser.find_element(By.ID, "you").text, what="our seat")
    first = http("GET", f"{board_stack.url}/v1/games/{fork}/events?since=0&limit=1")[1]
    created = first["events"][0]["event"]
    assert created["type"] == "game_forked" and created["parent_game_id"] == game
    assert created["parent_version"] >= version
    # We play: the token the page kept for p1 is accepted, and the page follows the move.
    token = browser.execute_script(
        "return JSON.parse(sessionStorage.getItem(arguments[0])).token", f"risk-seat:{fork}"
    )

    def our_move() -> bool:
        legal = http("GET", f"{board_stack.url}/v1/games/{fork}/legal-actions", token=token)[1]
        if not legal["actions"]:
            return False
        body = legal["actions"][0]["command"]
        url = f"{board_stack.url}/v1/games/{fork}/commands"
        status, _ = http("POST", url, body, token=token)
        return status == 200

    wait_for(our_move, 60, "our turn in the fork")
    head = http("GET", f"{board_stack.url}/v1/games/{fork}")[1]["version"]
    wait_for(lambda: shown_version(browser) >= head, 20, "the page to show our move")
