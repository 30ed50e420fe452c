"""Issue 51 in a real headless Chromium: a finished game's page asks the server for nothing
that is not there (its console stays clean, network answers included), and its end-of-game
panel offers a rematch: a new game of the same board, mode, rules, clock and seats.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Stack, http, skip_without_chromium

skip_without_chromium()

from tests.e2e.test_board_browser import create, wait_for  # noqa: E402
from tests.e2e.test_board_play import FAST, board_stack, browser, open_seat  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402  # isort: skip

pytestmark = pytest.mark.e2e
__all__ = ["board_stack", "browser"]  # the fixtures, shared with test_board_play


def every_console_error(browser: Any) -> list[str]:
    """Every error the page's console logged since the last call, a refused request's
    included (``console_errors`` of test_board_play leaves those out)."""
    entries = browser.get_log("browser")
    return [e["message"] for e in entries if e["level"] == "SEVERE"]


def resigned_and_finished(stack: Stack, seats: list[dict[str, Any]], **extra: Any) -> tuple:
    """A game whose human p1 resigns at once, played to its end by the bots."""
    created = create(stack, seats, **extra)
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    url = f"{stack.url}/v1/games/{game}"
    wait_for(lambda: http("GET", f"{url}/legal-actions", token=token)[1]["actions"], 20, "p1")
    status, body = http("POST", f"{url}/commands", {"type": "resign"}, token=token)
    assert status in (200, 201), body
    wait_for(lambda: http("GET", url)[1]["status"] == "finished", 90, "the bots to finish")
    return game, token


def loaded_cleanly(browser: Any) -> None:
    """The finished game's page says who won and where its analysis stands, and its console
    logged no error meanwhile (the first error, if one comes, fails at once)."""
    panel = lambda: browser.find_element(By.ID, "ending").text  # noqa: E731
    wait_for(lambda: "Game over" in panel(), 20, "the end of the game on the page")
    progress = lambda: browser.find_element(By.ID, "analysis-progress").text  # noqa: E731
    logged: list[str] = []

    def settled() -> Any:  # the analysis section says where it is, or an error came
        logged.extend(every_console_error(browser))
        return logged or progress()

    wait_for(settled, 20, "the analysis section to read the kept analyses")
    assert logged == []
    assert progress() == "not analysed at depth 8 yet"


def test_a_finished_games_page_logs_no_error_and_offers_a_rematch(
    board_stack: Stack, browser: Any
) -> None:
    """Issue 51: a finished game's page logged a 404 for `/analysis?depth=8` on every load
    (it asked for an analysis nobody had asked for). Now it reads the list of kept analyses
    first (`GET /v1/games/{id}/analyses`): no error on two loads. The panel's "Rematch"
    makes a new game (`POST /v1/games`) with the same board, mode, rules and clock, this
    seat's person first again and each bot at its bot and level; the new page holds the
    seat."""
    level = {"kind": "bot", "level": "easy"}
    seats = [{"kind": "human", "name": "Ada"}, FAST, level]
    rules = {"setup": "deal", "starting_armies": 14}
    clock = {"turn_seconds": 600, "on_timeout": "bot"}
    game, token = resigned_and_finished(board_stack, seats, rules=rules, clock=clock)
    every_console_error(browser)  # (what an earlier test's page left)
    open_seat(browser, board_stack, game, "p1", token)
    loaded_cleanly(browser)
    browser.refresh()  # (it was on every load)
    loaded_cleanly(browser)
    old = http("GET", f"{board_stack.url}/v1/games/{game}")[1]
    browser.find_element(By.ID, "rematch").click()
    wait_for(lambda: f"/games/{game}" not in browser.current_url, 20, "the rematch's page")
    rematch = browser.current_url.rsplit("/", 1)[1].split("#")[0]
    you = wait_for(lambda: browser.find_element(By.ID, "you").text, 20, "the seat on it")
    assert you == "You play Ada (p1)"
    new = http("GET", f"{board_stack.url}/v1/games/{rematch}")[1]
    assert new["status"] == "running" and rematch != game
    for same in ("board", "mode", "rules", "clock"):
        assert new[same] == old[same], same
    plays = lambda view: [  # noqa: E731
        (s["id"], s["controller"], s["bot"], s["level"]) for s in view["seats"]
    ]
    assert plays(new) == plays(old)
    assert plays(new) == [
        ("p1", "human", None, None),
        ("p2", "bot", "heuristic", None),
        ("p3", "bot", old["seats"][2]["bot"], "easy"),
    ]
    assert new["seats"][0]["name"] == "Ada"
    assert every_console_error(browser) == []


REMATCH_OF = """
const done = arguments[arguments.length - 1];
import('/board/ending.js').then((m) => done(m.rematchRequest(arguments[0], arguments[1])));
"""


def test_a_rematch_leaves_the_other_peoples_seats_open(board_stack: Stack, browser: Any) -> None:
    """Issue 51, the rematch's seats: this tab can hand no one else a token, so another
    person's seat is open in the rematch (joined from the lobby), teams kept; the body is
    one the server takes (`POST /v1/games`), the `rules.variant` of old clients left out."""
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Grace"}]
    seats += [FAST, {"kind": "bot", "level": "medium"}]
    created = create(board_stack, seats, mode="team", rules={"setup": "deal"})
    game = created["game"]["game_id"]
    view = http("GET", f"{board_stack.url}/v1/games/{game}")[1]
    browser.get(f"{board_stack.url}/games/{game}")
    wait_for(lambda: browser.find_element(By.ID, "turn").text, 20, "the page")
    body = browser.execute_async_script(REMATCH_OF, view, "p1")
    teams = {s["id"]: s["team"] for s in view["seats"]}
    assert body["seats"] == [
        {"kind": "human", "name": "Ada", "team": teams["p1"]},
        {"kind": "open", "team": teams["p2"]},
        {"kind": "bot", "bot": "heuristic", "team": teams["p3"]},
        {"kind": "bot", "bot": view["seats"][3]["bot"], "level": "medium", "team": teams["p4"]},
    ]
    assert body["mode"] == "team" and "variant" not in body["rules"] and "clock" not in body
    status, made = http("POST", f"{board_stack.url}/v1/games", body)
    assert status == 201, made
    assert set(made["tokens"]) == {"p1"} and made["game"]["open_seats"] == ["p2"]


OUT_OF = """
const done = arguments[arguments.length - 1];
import('/board/ending.js').then(async (m) => {
  const styles = {p1: {name: 'Ada'}, p2: {name: 'Grace'}, p3: {name: 'Alan'}};
  const seats = ['p1', 'p2', 'p3'].map((id) => ({id, kind: 'player', status: 'playing'}));
  const view = {phase: 'attack', mode: 'classic', seats, turn: 5, version: 300};
  const events = [null, {event: {type: 'turn_started', turn: 4}},
    {event: {type: 'player_eliminated', player: 'p1', seat: 'p2'}}];
  const out = await m.endingPanel({view, events, styles, seat: 'p1'});
  const playing = await m.endingPanel({view, events, styles, seat: 'p3'});
  const early = [null, {event: {type: 'player_resigned', seat: 'p3'}}];
  const setup = await m.endingPanel({view, events: early, styles, seat: 'p3'});
  done([out.textContent, playing, setup.textContent]);
});
"""


def test_a_seat_out_of_a_running_game_is_told_how(board_stack: Stack, browser: Any) -> None:
    """Issue 51, "no end of game": nothing said a seat was eliminated. A seat out of a
    running game is told by whom and when, and that the game goes on (ending.js, on the
    page as the server serves it); a seat still playing is shown no panel; a seat that
    resigned before the first turn did so "during the setup" (not "in turn 0")."""
    game = create(board_stack, [FAST, FAST, FAST])["game"]["game_id"]
    browser.get(f"{board_stack.url}/games/{game}")
    wait_for(lambda: browser.find_element(By.ID, "turn").text, 20, "the page")
    said, playing, setup = browser.execute_async_script(OUT_OF)
    assert said.startswith("You are out")
    assert "You were eliminated by Grace in turn 4. The game goes on without you" in said
    assert playing is None
    assert setup.startswith("You resigned") and "You resigned during the setup." in setup
