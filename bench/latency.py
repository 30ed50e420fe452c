"""Bot reaction latency over the real stack (issue 6).

Starts `risk serve` and `risk worker` on loopback (Redis from REDIS_URL, a
private key prefix), then plays a person's seat over HTTP against two
random bots. After every command of the person that hands the move to a
bot, it measures the time from the command's HTTP response to the bot's
first event arriving on the long-poll events feed, minus the bot's own
thinking time (recorded in the event's provenance). Prints JSON.

    .venv/bin/python bench/latency.py [--games 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time

from service.http.http_json import call

RISK = [sys.executable, "-m", "riskcli"]


def start(env: dict[str, str], workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    children = [
        subprocess.Popen(
            [*RISK, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            start_new_session=True,
            **quiet,
        )
    ]
    children += [
        subprocess.Popen(
            [*RISK, "worker", "--log-level", "WARNING"], start_new_session=True, **quiet
        )
        for _ in range(workers)
    ]
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if call("GET", url + "/readyz")[0] == 200:
                return url, children
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the API did not start")


def play_one(url: str, rng: random.Random, samples: list[float]) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    created = call("POST", f"{url}/v1/games", {"seats": seats})[1]
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    while True:
        legal = call("GET", f"{url}/v1/games/{game}/legal-actions", token=token)[1]
        if not legal["actions"]:
            page = call("GET", f"{url}/v1/games/{game}/events?since={legal['version']}&wait=10")[1]
            if page["finished"]:
                return
            continue
        actions = [a for a in legal["actions"] if a["command"]["type"] != "resign"]
        preferred = [a for a in actions if a["command"]["type"] != "end_phase"]
        choice = rng.choice(preferred if preferred and rng.random() < 0.7 else actions)
        status, result = call("POST", f"{url}/v1/games/{game}/commands", choice["command"], token)
        answered = time.perf_counter()
        if status != 200 or result["events"][-1]["event"]["type"] == "game_finished":
            continue
        view = call("GET", f"{url}/v1/games/{game}")[1]
        if view["current"] == "p1" or view["phase"] == "finished":
            continue
        since = result["version"]
        page = call("GET", f"{url}/v1/games/{game}/events?since={since}&wait=10")[1]
        arrived = time.perf_counter()
        first = next((e for e in page["events"] if e.get("bot")), None)
        if first is not None:
            thinking = float(first["bot"].get("ms", 0)) / 1000
            samples.append((arrived - answered - thinking) * 1000)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    env = dict(os.environ, RISK_KEY_PREFIX=f"bench-{secrets.token_hex(4)}")
    env.update(RISK_RATE_TOKEN="off", RISK_RATE_IP="off", RISK_LOG_FORMAT="text")
    env.update(RISK_GAMES_PER_ADDRESS="0")  # one address creates every game here
    url, children = start(env, args.workers)
    samples: list[float] = []
    try:
        rng = random.Random(1)
        for _ in range(args.games):
            play_one(url, rng, samples)
    finally:
        for child in children:
            os.killpg(child.pid, signal.SIGTERM)
        for child in children:
            child.wait(20)
    print(
        json.dumps(
            {
                "benchmark": "bot_reaction_latency",
                "what": "person's command response -> bot's first event on the long-poll feed, "
                "minus the bot's thinking time",
                "samples": len(samples),
                "p50_ms": round(statistics.median(samples), 1),
                "p99_ms": round(percentile(samples, 0.99), 1),
                "max_ms": round(max(samples), 1),
                "workers": args.workers,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
