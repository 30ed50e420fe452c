"""The map in a real headless Chromium (issue 33): shapes for both boards, the last move
with both sides' dice, conquests and eliminations called out, other seats' moves played
back at a pace with "skip to now", and no JavaScript errors on the way.

Reuses the stack and helpers of test_board_browser.py; this module's browser keeps the
console log, so each test can check that the page threw nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import skip_without_chromium

skip_without_chromium()

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from tests.e2e import test_board_browser as pages  # noqa: E402
from tests.e2e.conftest import Stack, http  # noqa: E402

BOTS, create, wait_for = pages.BOTS, pages.create, pages.wait_for
shown_version = pages.shown_version
board_stack = pages.board_stack  # the stack fixture, with this module's browser

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = pages.CHROMIUM
    for flag in pages.FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(pages.DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def errors(browser: Any) -> list[str]:
    """The page's console errors since the last call (the log is read once), a refused
    request's included: these pages only watch, and a finished game's page no longer asks
    for an analysis that is not there (issue 51: it logged a 404 on every load)."""
    entries = browser.get_log("browser")
    found = [e["message"] for e in entries if e["level"] == "SEVERE"]
    return [m for m in found if "favicon.ico" not in m]  # the JSON page opened for storage


def finished_game(stack: Stack, **extra: Any) -> tuple[str, list[dict[str, Any]]]:
    game = create(stack, BOTS, **extra)["game"]["game_id"]
    url = f"{stack.url}/v1/games/{game}"
    wait_for(lambda: http("GET", url)[1]["status"] == "finished", 60, "the bots' game to end")
    envelopes: list[dict[str, Any]] = []
    while True:
        page = http("GET", f"{url}/events?since={len(envelopes)}&limit=1000")[1]
        envelopes += page["events"]
        if len(page["events"]) < 1000:
            return game, envelopes


def first(envelopes: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in envelopes if e["event"]["type"] == kind)


def open_version(stack: Stack, browser: Any, game: str, version: int) -> None:
    browser.get(f"{stack.url}/games/{game}#v={version}")
    wait_for(lambda: shown_version(browser) == version, 20, f"version {version}")


def test_the_last_attack_its_dice_a_conquest_and_an_elimination_are_drawn(
    board_stack: Stack, browser: Any
) -> None:
    """After an attack the map shows the arrow from source to target and both sides'
    dice with the losses (the rules' battle: highest against highest, docs/rules.md, "Attack"),
    as the events say; a conquest and an elimination are called out."""
    game, envelopes = finished_game(board_stack)
    battle = first(envelopes, "battle_resolved")
    event = battle["event"]
    open_version(board_stack, browser, game, battle["version"])
    panel = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".dice-panel"), 5, "dice")
    shown = lambda d: "".join(str(n) for n in d)  # noqa: E731
    assert panel.get_attribute("data-attacker") == shown(event["attacker_dice"])
    assert panel.get_attribute("data-defender") == shown(event["defender_dice"])
    losses = f"{event['attacker_losses']}-{event['defender_losses']}"
    assert panel.get_attribute("data-losses") == losses
    faces = browser.execute_script(
        "return [...document.querySelectorAll('.dice-panel .die')].map(d => d.classList[1]"
        " + Number(d.dataset.value) + ':' + d.querySelectorAll('.pip').length)"
    )
    expected = [f"attack{n}:{n}" for n in sorted(event["attacker_dice"], reverse=True)]
    expected += [f"defend{n}:{n}" for n in sorted(event["defender_dice"], reverse=True)]
    assert faces == expected  # each face shows as many pips as it rolled
    # Issue 51: both sides by name, not cut to 8 letters ("random b" against "random b").
    who = browser.execute_script(
        "return [...document.querySelectorAll('.dice-panel .dice-who')].map(t => t.textContent)"
    )
    assert len(who) == 2 and who[0] != who[1] and min(map(len, who)) > 8, who
    ends = browser.execute_script(
        "return [document.querySelector('.territory.moved-from')?.dataset.territory,"
        " document.querySelector('.territory.moved-to')?.dataset.territory,"
        " document.querySelectorAll('.move-arrow path').length]"
    )
    assert ends == [event["source"], event["target"], 2]

    conquest = first(envelopes, "territory_conquered")
    open_version(board_stack, browser, game, conquest["version"])
    callout = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".callout.conquest"), 5)
    assert "Conquered" in callout.text
    target = conquest["event"]["target"]
    assert browser.find_element(By.CSS_SELECTOR, f".territory[data-territory='{target}']")
    assert "conquered" in browser.find_element(
        By.CSS_SELECTOR, f".territory[data-territory='{target}']"
    ).get_attribute("class")

    out = first(envelopes, "player_eliminated")
    open_version(board_stack, browser, game, out["version"])
    banner = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".banner").text, 5)
    assert "eliminated" in banner
    assert errors(browser) == []


def test_both_boards_draw_as_shapes_with_a_legend_of_their_own(
    board_stack: Stack, browser: Any
) -> None:
    classic = create(board_stack, BOTS)["game"]["game_id"]
    lotr = create(board_stack, BOTS, mode="lotr")["game"]["game_id"]
    read = (
        "return [document.querySelectorAll('.territory path.land[d^=M]').length,"
        " document.querySelectorAll('.group-label').length,"
        " document.querySelector('#legend').textContent,"
        " [...document.querySelectorAll('.legend-seat')].map(s => s.dataset.seat)]"
    )
    for game, board_words, absent in (
        (classic, ["sea lane"], ["bridge", "harbour", "stronghold", "site of power"]),
        (lotr, ["bridge", "harbour", "stronghold", "site of power", "no passage"], ["sea lane"]),
    ):
        browser.get(f"{board_stack.url}/games/{game}")
        wait_for(lambda: shown_version(browser) > 1, 20, "a first view")
        land, labels, words, seats = wait_for(lambda: browser.execute_script(read), 5)
        assert (land, labels) == (42, 6)
        assert seats == ["p1", "p2", "p3"]
        for word in board_words:
            assert word in words, (game, word)
        for word in absent:
            assert word not in words, (game, word)
    assert errors(browser) == []


def play_a_turn(stack: Stack, game: str, token: str) -> None:
    """The human seat's turn through the API: every army on its first choice, no attack,
    no fortification."""
    url = f"{stack.url}/v1/games/{game}"
    wait_for(lambda: http("GET", f"{url}/legal-actions", token=token)[1]["actions"], 20, "p1")
    while actions := http("GET", f"{url}/legal-actions", token=token)[1]["actions"]:
        by_type = {a["command"]["type"]: a for a in actions}
        action = by_type.get("place_armies") or by_type.get("end_phase") or actions[0]
        command = dict(action["command"])
        command.update({field: high for field, (_, high) in action.get("bounds", {}).items()})
        status, body = http("POST", f"{url}/commands", command, token=token)
        assert status in (200, 201), body


def test_other_seats_moves_play_back_at_a_pace_until_skipped(
    board_stack: Stack, browser: Any
) -> None:
    """Bots that move in milliseconds: once the human seat ends its turn, the page shows
    the bots' steps one after another (the slow pace: 1.6 s a step), behind the game,
    until "skip to now" shows the newest version."""
    created = create(
        board_stack,
        [{"kind": "human", "name": "Ada"}, *BOTS[:2]],
        rules={"setup": "deal", "starting_armies": 14},
    )
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    browser.get(board_stack.url + "/board/meta.json")  # the origin, for its storage
    browser.execute_script("localStorage.setItem('risk-pace', 'slow')")
    browser.get(f"{board_stack.url}/games/{game}")  # watched, not played: no token here
    wait_for(lambda: shown_version(browser) > 0, 20, "a first view")
    start = shown_version(browser)
    play_a_turn(board_stack, game, token)  # the bots play at once, in milliseconds
    behind = lambda: browser.find_element(By.ID, "behind").text  # noqa: E731
    wait_for(lambda: "behind" in behind(), 20, "the page to fall behind the bots")
    seen: set[int] = set()

    def three_steps() -> bool:
        version = shown_version(browser)
        if version > start:  # (the first step may still be on its way)
            seen.add(version)
        return len(seen) >= 3

    # Three paced steps behind the game, each strictly between the start and the head. On
    # a loaded machine the bots could finish before the first step's view arrived, and a
    # step's state could arrive after the next one was asked for: both were seen jumping
    # the page to the head (the playback now draws exactly each step, one after another).
    wait_for(three_steps, 60, "steps")
    head = http("GET", f"{board_stack.url}/v1/games/{game}")[1]["version"]
    assert max(seen) < head
    browser.find_element(By.ID, "skip-now").click()
    wait_for(lambda: shown_version(browser) >= head, 10, "the newest version")
    assert "behind" not in behind()
    browser.execute_script("localStorage.removeItem('risk-pace')")
    assert errors(browser) == []


# The motion played again on the map's paused SVG clock, so that where the badge is at its
# start, half-way and after its end does not hang on how soon the test looks (the page plays
# it once, in 0.9 s, when the version is drawn).
MOTION = """
const svgRoot = document.querySelector('#map svg.map');
const mover = document.querySelector('.armies-moving');
if (!mover) return null;
svgRoot.pauseAnimations();
const motion = mover.querySelector('animateMotion');
motion.beginElement();
const start = svgRoot.getCurrentTime(), centre = (node) => {
  const r = node.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
};
const at = (t) => { svgRoot.setCurrentTime(t); return centre(mover.querySelector('circle')); };
const disc = (id) => centre(document.querySelector(`[data-territory="${id}"] .disc`));
// (a hundredth of a second in: a seek to the very instant the motion began again may still
// sample the motion before it)
const result = [mover.dataset.count, at(start + 0.01), at(start + 0.45), at(start + 5),
  disc(arguments[0]), disc(arguments[1]), document.querySelectorAll('.armies-moving').length];
svgRoot.unpauseAnimations();
return result;
"""


def test_moved_armies_travel_along_the_arrow(board_stack: Stack, browser: Any) -> None:
    """Issue 51, "armies move along the arrow": after a fortification and after the
    armies of a conquest move in (docs/rules.md, "Fortify" and "Occupy"), a badge with the
    number moved travels the arrow from the source to the target (the map's SVG clock,
    paused and set by the test: at its start it is at the source, at its end at the target).
    A conquest is called out on the map too."""
    game, envelopes = finished_game(board_stack)
    distance = lambda a, b: ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5  # noqa: E731
    for kind in ("fortified", "territory_occupied"):
        moved = first(envelopes, kind)
        event = moved["event"]
        open_version(board_stack, browser, game, moved["version"])
        found = wait_for(
            lambda e=event: browser.execute_script(MOTION, e["source"], e["target"]), 20, kind
        )
        count, begin, middle, end, source, target, movers = found
        assert (count, movers) == (str(event["count"]), 1), kind
        assert distance(begin, source) < distance(begin, target), (kind, begin, source)
        assert distance(end, target) < distance(end, source), (kind, end, target)
        assert distance(end, target) < 40, (kind, end, target)  # (the arrow stops short)
        assert 0 < distance(middle, begin) < distance(end, begin), kind  # under way
    assert "Conquered" in browser.find_element(By.CSS_SELECTOR, ".callout.conquest").text
    assert errors(browser) == []


HAND_OF = """
const done = arguments[arguments.length - 1];
const [catalogue, number] = arguments;
import('/board/hand.js').then((m) => {
  const box = document.createElement('section');
  const hands = {p1: {adventure_hand: [number]}};
  const view = {seats: [{id: 'p1', status: 'playing', cards: []}], territories: {},
    mode_state: {sides: {p1: 'evil'}, adventure: {catalogue, hands}}};
  m.renderHand(box, {board: {names: {}, cards: []}, view, seat: 'p1', actions: [],
    picked: new Set(), send() {}, redraw() {}});
  done(box.querySelector('[data-adventure]').textContent);
});
"""


def test_a_mission_card_in_the_hand_says_what_it_gives(board_stack: Stack, browser: Any) -> None:
    """Issue 51: "Mount Gundabad — Played a mission: at its site, in a battle or a manoeuvre"
    did not say what it gives. The hand (hand.js) shows the catalogue's words for it, which
    the engine makes from the card's reward (docs/rules.md, "Missions"), when it is claimed
    and what it counts at the end for the seat's side; drawn from a real game's view."""
    game = create(board_stack, BOTS, mode="lotr")["game"]["game_id"]
    view = http("GET", f"{board_stack.url}/v1/games/{game}")[1]
    catalogue = view["mode_state"]["adventure"]["catalogue"]
    number = next(n for n, card in enumerate(catalogue) if card["id"] == "gates_of_moria")
    browser.get(f"{board_stack.url}/games/{game}")
    wait_for(lambda: shown_version(browser) > 0, 20, "a first view")
    words = browser.execute_async_script(HAND_OF, catalogue, number)
    assert words == (
        "Gates of Moria — With a leader of yours in Eregion: 2 armies there for a good player,"
        " 4 for an evil one. Played as a mission, in your battle or manoeuvre phase (the leader"
        " then stays there until your next turn). Worth 1 point at the end."
    )


FAST = {"kind": "bot", "bot": "heuristic"}  # (it plays its adventure cards)
CARD_EVENTS = ("adventure_played", "adventure_mission_claimed")


def placed_card(url: str) -> dict[str, Any] | None:
    """The first card played or mission fulfilled at a place (some cards act on none)."""
    status, page = http("GET", f"{url}/events?since=0&limit=1000")
    assert status == 200, page
    for envelope in page["events"]:
        event = envelope["event"]
        if event["type"] in CARD_EVENTS and card_place(event):
            found: dict[str, Any] = envelope
            return found
    return None


def card_place(event: dict[str, Any]) -> str | None:
    place: str | None = event.get("target") or event.get("territory") or event.get("source")
    return place


def test_a_lord_of_the_rings_card_is_named_on_the_map_and_in_the_log(
    board_stack: Stack, browser: Any
) -> None:
    """Issue 51, "LOTR cards leave no trace": the log said "adventure played (Frodo)" and
    the map nothing. At the first card a bot plays or mission it fulfils at a place
    (docs/rules.md, "Adventure cards"), the map names the card there and the log names it."""
    game = create(board_stack, [FAST, FAST, FAST], mode="lotr")["game"]["game_id"]
    url = f"{board_stack.url}/v1/games/{game}"
    played = wait_for(lambda: placed_card(url), 120, "a card played at a place")
    version, event = played["version"], played["event"]
    catalogue = http("GET", url)[1]["mode_state"]["adventure"]["catalogue"]
    name = catalogue[event["adventure"]]["name"]
    open_version(board_stack, browser, game, version)
    callout = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".callout.adventure"), 10)
    assert callout.text == f"♦ {name}"
    carded = browser.find_element(By.CSS_SELECTOR, ".territory.carded")
    assert carded.get_attribute("data-territory") == card_place(event)
    line = browser.find_element(By.CSS_SELECTOR, f"#log li[data-version='{version}']")
    assert f"“{name}”" in line.get_attribute("textContent"), line.get_attribute("textContent")
    assert errors(browser) == []
