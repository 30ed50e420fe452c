"""``make screenshots``: pictures of the web board for the README, into ``docs/img/``.

Starts ``risk serve`` and ``risk worker`` on a free port with a key prefix
of its own (removed afterwards), plays bot games, and photographs with
the system's headless Chromium (``apt-get install -y chromium
chromium-driver``): the lobby, a classic game live in the seat of a player
who has just attacked (the arrow and both sides' dice on the map), a
finished game's replay at a conquest with its charts, a Middle-earth game
at a battle, two neutrals, a team game, a phone, and the end of a game in
the seat of a player who resigned (who won and why, Rematch). Needs
``REDIS_URL``.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import redis
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from service.http.http_json import call

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
BOTS = [
    {"kind": "bot", "bot": "heuristic", "name": "Ada"},
    {"kind": "bot", "bot": "heuristic", "name": "Grace"},
    {"kind": "bot", "bot": "random", "name": "Alan"},
]


def main() -> None:
    prefix = f"shots-{secrets.token_hex(4)}"
    env = dict(os.environ, RISK_KEY_PREFIX=prefix, RISK_RATE_TOKEN="off", RISK_RATE_IP="off")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    risk = [sys.executable, "-m", "riskcli"]
    children = [
        subprocess.Popen(
            [*risk, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            env=env,
            start_new_session=True,
        ),
        subprocess.Popen(
            [*risk, "worker", "--log-level", "WARNING"], env=env, start_new_session=True
        ),
    ]
    try:
        _wait(lambda: _ok(url + "/readyz"), 30)
        _photograph(url)
    finally:
        for child in children:
            os.killpg(child.pid, signal.SIGTERM)
        for child in children:
            child.wait(20)
        client = redis.Redis.from_url(env.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
        for key in client.scan_iter(f"{prefix}:*", count=1000):
            client.delete(key)


def _photograph(url: str) -> None:
    finished = _create(url, BOTS)
    _wait(lambda: call("GET", f"{url}/v1/games/{finished}")[1]["status"] == "finished", 120)
    lotr = _create(url, BOTS, mode="lotr")
    active = _create(url, BOTS[:2], mode="two_player_active")
    team = _create(url, [*BOTS, {"kind": "bot", "bot": "heuristic", "name": "Edsger"}], mode="team")
    created = _created(url, [{"kind": "human", "name": "You"}, *BOTS[:2]], rules={"setup": "deal"})
    seat = (created["game"]["game_id"], created["tokens"]["p1"])
    _create(url, [{"kind": "human", "name": "You"}, {"kind": "open"}, BOTS[0]])
    over = _created(url, [{"kind": "human", "name": "Barbara"}, *BOTS[:2]], rules={"setup": "deal"})
    ended = (over["game"]["game_id"], over["tokens"]["p1"])
    _resign_when_asked(url, *ended)
    for game in (lotr, active, team):
        _wait(lambda game=game: call("GET", f"{url}/v1/games/{game}")[1]["version"] > 300, 60)
    _wait(lambda: call("GET", f"{url}/v1/games/{ended[0]}")[1]["status"] == "finished", 120)
    _attack_once(url, *seat)
    conquest = _version_of(url, finished, "territory_conquered", after=300)
    battle = _version_of(url, lotr, "battle_resolved", after=250)
    OUT.mkdir(parents=True, exist_ok=True)
    browser = _browser()
    try:
        _shot(browser, f"{url}/", "lobby.png", 1280, 800)
        browser.get(f"{url}/board/meta.json")  # the origin, to hand the tab its seat
        browser.execute_script(
            "sessionStorage.setItem(arguments[0], arguments[1])",
            f"risk-seat:{seat[0]}",
            json.dumps({"seat": "p1", "token": seat[1]}),
        )
        _shot(browser, f"{url}/games/{seat[0]}", "live-classic.png", 1280, 900)
        _shot(browser, f"{url}/games/{finished}#v={conquest}", "replay-charts.png", 1280, 1050)
        _shot(browser, f"{url}/games/{lotr}#v={battle}", "middle-earth.png", 1280, 900)
        _shot(browser, f"{url}/games/{active}#v=300", "active-neutrals.png", 1280, 900)
        _shot(browser, f"{url}/games/{team}#v=300", "team.png", 1280, 900)
        _shot(browser, f"{url}/games/{seat[0]}", "phone.png", 390, 844, then=PICK_SOURCE)
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.get(f"{url}/board/meta.json")
        browser.execute_script(
            "sessionStorage.setItem(arguments[0], arguments[1])",
            f"risk-seat:{ended[0]}",
            json.dumps({"seat": "p1", "token": ended[1]}),
        )
        _shot(browser, f"{url}/games/{ended[0]}", "ending.png", 1280, 900)
    finally:
        browser.quit()


def _resign_when_asked(url: str, game: str, token: str) -> None:
    """The seat resigns at its first move: the bots play the game to its end (the ending
    panel's picture: who won and why, the seat's place, Rematch)."""
    base = f"{url}/v1/games/{game}"
    _wait(lambda: call("GET", f"{base}/legal-actions", token=token)[1]["actions"], 30)
    status, body = call("POST", f"{base}/commands", {"type": "resign"}, token=token)
    assert status in (200, 201), body


def _attack_once(url: str, game: str, token: str) -> None:
    """Plays the human seat through the API until it has rolled the dice once: armies on
    its strongest border, then an attack from there with as many dice as it may."""
    base = f"{url}/v1/games/{game}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        legal = call("GET", f"{base}/legal-actions", token=token)[1]
        actions = legal["actions"]
        attacks = [a for a in actions if a["command"]["type"] == "attack"]
        if attacks:
            _send(base, token, max(attacks, key=_dice))
            return
        if not actions:
            time.sleep(0.2)
            continue
        _send(base, token, actions[0])
    raise SystemExit("the seat never could attack")


def _dice(action: dict[str, Any]) -> int:
    bound: int = action.get("bounds", {}).get("dice", [0, action["command"].get("dice", 0)])[1]
    return bound


def _send(base: str, token: str, action: dict[str, Any]) -> None:
    """The action with each bounded value at its highest (a refused one is tried anew)."""
    command = dict(action["command"])
    for field, (_, high) in action.get("bounds", {}).items():
        command[field] = high
    call("POST", f"{base}/commands", command, token=token)


def _version_of(url: str, game: str, kind: str, after: int) -> int:
    events = call("GET", f"{url}/v1/games/{game}/events?since={after}&limit=1000")[1]["events"]
    found: int = next(e["version"] for e in events if e["event"]["type"] == kind)
    return found


def _create(url: str, seats: list[dict[str, Any]], **extra: Any) -> str:
    game: str = _created(url, seats, **extra)["game"]["game_id"]
    return game


def _created(url: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    status, body = call("POST", url + "/v1/games", {"seats": seats, **extra})
    assert status == 201, body
    created: dict[str, Any] = body
    return created


def _browser() -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


# The phone's picture: the seat's strongest territory picked, as a tap would (the sheet
# at the bottom then shows what a tap on a target does).
PICK_SOURCE = """
const open = [...document.querySelectorAll('.territory.choosable')];
const best = open.sort((a, b) => Number(b.dataset.armies) - Number(a.dataset.armies))[0];
if (best) best.dispatchEvent(new MouseEvent('click', {bubbles: true}));
"""


def _shot(browser: Any, address: str, name: str, width: int, height: int, then: str = "") -> None:
    """A picture of ``address`` at ``width`` x ``height`` CSS pixels (below 500 wide, as a
    phone: its viewport exactly, twice the pixels), after the script ``then``."""
    phone = width < 500
    if phone:
        metrics = {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True}
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    else:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.set_window_size(width, height)
    browser.get(address)
    drawn = "return !document.querySelector('#map') || Boolean(document.querySelector('#map')"
    drawn += ".dataset.version && (!location.hash || document.querySelector('.chart')))"
    deadline = time.monotonic() + 20  # the page's first view and its charts, however busy
    while time.monotonic() < deadline and not browser.execute_script(drawn):
        time.sleep(0.2)
    time.sleep(1.5)  # a few live updates
    if then:
        browser.execute_script(then)
        time.sleep(0.5)
    browser.save_screenshot(str(OUT / name))
    print(f"docs/img/{name}")


def _ok(address: str) -> bool:
    try:
        return call("GET", address)[0] == 200
    except OSError:
        return False


def _wait(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit("timed out")


if __name__ == "__main__":
    main()
