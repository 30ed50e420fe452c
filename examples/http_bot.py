#!/usr/bin/env python3
"""A Risk bot that plays one seat over the HTTP API, and nothing else.

The template for bot authors: it uses only the standard library and the
documented API (``openapi.yaml``), never this project's code. It joins an
open seat (or uses a token you already have), then loops:

1. ask ``GET /v1/games/{id}/legal-actions`` what its seat may do;
2. if something, pick one (``choose`` below: replace it with your strategy)
   and ``POST /v1/games/{id}/commands`` with ``If-Match`` (the version the
   choice was made at) and an ``Idempotency-Key`` (so a retry after a
   network failure cannot act twice);
3. if nothing (another seat's turn), long-poll ``GET /v1/games/{id}/events``
   until something happens.

    python examples/http_bot.py --api http://127.0.0.1:8000 --game GAME_ID [--name Bob]
    python examples/http_bot.py --api ... --game GAME_ID --token TOKEN

In a tournament (``POST /v1/tournaments`` with an entrant of ``kind``
``http`` gave you its token), it plays every game of its entrant, turn by
turn in whichever game waits for it, until the tournament is over::

    python examples/http_bot.py --api ... --tournament TOURNAMENT_ID --token TOKEN
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any


class Api:
    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        for _ in range(5):
            try:
                with urllib.request.urlopen(request, timeout=40) as response:
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                if error.code != 429:  # rate-limited: wait as told, then try again
                    return error.code, json.loads(error.read() or b"null")
                time.sleep(float(error.headers.get("Retry-After", "1")))
        raise RuntimeError(f"{method} {path}: still rate-limited after 5 tries")


def choose(actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A simple strategy for every rule option: do what must be done, attack from
    strength, sometimes fortify, else end the phase.

    Each action's ``command`` can be sent as it is; ``bounds`` says how far
    its numbers may be changed. Where defenders choose their dice there is
    no ``blitz`` (the battle waits for the defender after each roll), so the
    bot attacks roll by roll with ``attack``; where they do not, it blitzes.
    """
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in actions:
        by_type.setdefault(action["command"]["type"], []).append(action)
    for kind in ("claim_territory", "trade_cards", "place_armies", "defend"):
        if kind in by_type:
            return dict(rng.choice(by_type[kind])["command"])
    if "occupy" in by_type:  # move in as many as allowed: the front line needs them
        action = by_type["occupy"][0]
        return dict(action["command"]) | {"count": action["bounds"]["count"][1]}
    strong = [a for a in by_type.get("blitz", []) if a["bounds"]["stop_at"][1] >= 3]
    strong += [a for a in by_type.get("attack", []) if a["bounds"]["dice"][1] == 3]
    if strong:
        return dict(rng.choice(strong)["command"])
    if "fortify" in by_type and rng.random() < 0.5:
        action = rng.choice(by_type["fortify"])
        return dict(action["command"]) | {"count": action["bounds"]["count"][1]}
    if "end_phase" in by_type:
        return {"type": "end_phase"}
    playable = [a for a in actions if a["command"]["type"] != "resign"]
    return dict(rng.choice(playable)["command"])


def describe(command: dict[str, Any]) -> str:
    """The command in words, for the log ("attack kamchatka from alaska with 3 dice")."""
    kind = command["type"]
    if kind in ("attack", "blitz", "fortify"):
        extra = {"attack": f"with {command.get('dice')} dice", "blitz": "until it falls"}
        what = extra.get(kind, f"with {command.get('count')} armies")
        return f"{kind} {command['target']} from {command['source']} {what}"
    if "territory" in command:
        count = f" {command['count']}" if "count" in command else ""
        return f"{kind.replace('_', ' ')}{count} on {command['territory']}"
    fields = ", ".join(f"{k}={v}" for k, v in command.items() if k != "type")
    return kind.replace("_", " ") + (f" ({fields})" if fields else "")


def play(api: Api, game: str, rng: random.Random, log: Any = sys.stderr) -> dict[str, Any]:
    """Play until the game ends; return the final view."""
    since = 0
    while True:
        status, legal = api.call("GET", f"/v1/games/{game}/legal-actions")
        if status == 409:  # the game waits for players
            time.sleep(0.5)
            continue
        if status != 200:
            raise RuntimeError(f"legal-actions answered {status}: {legal}")
        if legal["actions"]:
            command = choose(legal["actions"], rng)
            print(f"v{legal['version']}: {describe(command)}", file=log)
            status, result = api.call(
                "POST",
                f"/v1/games/{game}/commands",
                command,
                {"If-Match": f'"{legal["version"]}"', "Idempotency-Key": str(uuid.uuid4())},
            )
            if status not in (200, 409):  # 409: someone moved first; ask again
                print(f"refused {command}: {result.get('code')}", file=log)
            continue
        status, page = api.call("GET", f"/v1/games/{game}/events?since={since}&wait=25")
        if status != 200:
            raise RuntimeError(f"events answered {status}: {page}")
        since = page["version"]
        if page["finished"]:
            return api.call("GET", f"/v1/games/{game}")[1]


def play_tournament(
    api: Api, tournament: str, rng: random.Random, log: Any = sys.stderr
) -> dict[str, Any]:
    """Act in every running game of the tournament that waits for this entrant (the
    token is the entrant's, and acts as its seat token in each); return the final
    standings once the tournament is over."""
    while True:
        status, document = api.call("GET", f"/v1/tournaments/{tournament}")
        if status != 200:
            raise RuntimeError(f"tournament answered {status}: {document}")
        if document["status"] == "finished":
            return document
        me = document["viewer"]
        acted = False
        for game in document["games"]:
            if game["status"] != "running" or me not in game["seats"]:
                continue
            status, legal = api.call("GET", f"/v1/games/{game['game_id']}/legal-actions")
            if status != 200 or not legal["actions"]:
                continue
            command = choose(legal["actions"], rng)
            print(f"{game['game_id']} v{legal['version']}: {describe(command)}", file=log)
            api.call(
                "POST",
                f"/v1/games/{game['game_id']}/commands",
                command,
                {"If-Match": f'"{legal["version"]}"', "Idempotency-Key": str(uuid.uuid4())},
            )
            acted = True
        if not acted:
            time.sleep(0.2)  # every game waits for others: look again shortly


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--game", help="The game to play (or --tournament).")
    parser.add_argument("--tournament", help="Play every game of this tournament's entrant.")
    parser.add_argument("--token", help="A seat (or tournament entrant) token you hold.")
    parser.add_argument("--seat", help="Join this open seat (else the first open one).")
    parser.add_argument("--name", default="http-bot")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    api = Api(args.api, args.token)
    if args.tournament:
        if api.token is None:
            sys.exit("--tournament needs --token, the entrant's token")
        final = play_tournament(api, args.tournament, random.Random(args.seed))
        print(json.dumps({"standings": final["standings"]}))
        return
    if args.game is None:
        sys.exit("name a --game or a --tournament")
    if api.token is None:
        body = {"name": args.name} | ({"seat": args.seat} if args.seat else {})
        status, joined = api.call("POST", f"/v1/games/{args.game}/join", body)
        if status != 200:
            sys.exit(f"could not join: {status} {joined}")
        api.token = joined["token"]
        print(f"joined {args.game} as {joined['seat']}", file=sys.stderr)
    final = play(api, args.game, random.Random(args.seed))
    print(json.dumps({"winner": final.get("winner"), "version": final.get("version")}))


if __name__ == "__main__":
    main()
