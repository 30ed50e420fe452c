"""Play a whole game with the generated Python client only (docs/clients.md).

    python clients/play.py http://127.0.0.1:8000

Run it with the generated package ``risk_client`` importable (``make clients``
prints the folder to put on ``PYTHONPATH``) and its dependencies (httpx, attrs,
python-dateutil) installed. It creates a game of three human seats, plays
every seat with a simple greedy policy until the game is over, then reads the
finished game's event stream and record and has the server verify the
record. It prints a JSON summary. Nothing here talks HTTP by hand.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

from risk_client import AuthenticatedClient, Client, models
from risk_client.api.events import stream_events
from risk_client.api.games import create_game, get_game
from risk_client.api.play import list_legal_actions, send_command
from risk_client.api.records import get_record, verify_record
from risk_client.api.reference import get_map
from risk_client.types import File

# Every command class the generator made; each one's from_dict refuses another `type`.
COMMANDS = [getattr(models, name) for name in models.__all__ if name.endswith("Command")]


def command_from_dict(data: dict[str, Any]) -> Any:
    """A plain dict such as ``{"type": "end_phase"}`` as the generated command class."""
    for command in COMMANDS:
        try:
            return command.from_dict(data)
        except (KeyError, ValueError, TypeError):
            continue
    raise ValueError(f"not a command: {data!r}")


def choose(
    actions: list[models.LegalAction], view: models.View, borders: dict[str, set[str]]
) -> tuple[Any, str]:
    """The command to send, from the legal actions, and how it was built: trade and
    claim when allowed, move everything in, pile reinforcements on the biggest army,
    and blitz only with a clear edge; otherwise end the phase (a command from a dict)."""
    held = view.territories.additional_properties
    armies = {name: t.armies for name, t in held.items()}

    def front(territory: str) -> bool:
        return any(held[n].owner != held[territory].owner for n in borders[territory])

    by_type: dict[str, list[models.LegalAction]] = {}
    for action in actions:
        by_type.setdefault(action.command.type_, []).append(action)

    def most(action: models.LegalAction) -> Any:
        command = action.command
        bounds = action.bounds.additional_properties
        if "count" in bounds:
            command.count = bounds["count"][1]
        return command

    for wanted in ("trade_cards", "claim_mission", "occupy", "claim_territory"):
        if wanted in by_type:
            return most(by_type[wanted][0]), "legal action"
    if "place_armies" in by_type:
        action = max(
            by_type["place_armies"],
            key=lambda a: (front(a.command.territory), armies[a.command.territory]),
        )
        return most(action), "legal action"
    edge = [
        a
        for a in by_type.get("blitz", [])
        if armies[a.command.source] > armies[a.command.target] + 1
    ]
    if edge:
        action = max(edge, key=lambda a: armies[a.command.source] - armies[a.command.target])
        return action.command, "legal action"
    if "end_phase" in by_type:
        return command_from_dict({"type": "end_phase"}), "dict"
    return actions[0].command, "legal action"


def acting_seat(view: models.View) -> str | None:
    if view.status != "running":
        return None
    return view.defender_to_choose or view.current


def play(base_url: str, max_commands: int = 1500) -> dict[str, Any]:
    public = Client(base_url=base_url, raise_on_unexpected_status=True)
    body = models.CreateGame.from_dict(
        {
            "seats": [{"kind": "human", "name": name} for name in ("Ada", "Bo", "Cy")],
            "rules": {"setup": "deal"},
        }
    )
    created = create_game.sync(client=public, body=body)
    assert isinstance(created, models.GameCreated), created
    game = created.game.game_id
    seats = {
        seat: AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
        for seat, token in created.tokens.additional_properties.items()
    }
    board = get_map.sync("classic", client=public)
    assert isinstance(board, models.Board), board
    borders: dict[str, set[str]] = {t.id: set() for t in board.territories}
    for one, other, _kind in board.borders:
        borders[one].add(other)
        borders[other].add(one)
    sent = {"legal action": 0, "dict": 0}
    while True:
        view = get_game.sync(game, client=public)
        assert isinstance(view, models.View), view
        seat = acting_seat(view)
        if seat is None:
            break
        if sum(sent.values()) < max_commands:
            legal = list_legal_actions.sync(game, client=seats[seat])
            assert isinstance(legal, models.LegalActions), legal
            command, how = choose(legal.actions, view, borders)
        else:  # long enough: the seat to act gives up, until one is left
            command, how = command_from_dict({"type": "resign"}), "dict"
        accepted = send_command.sync(game, client=seats[seat], body=command)
        assert isinstance(accepted, models.CommandAccepted), accepted
        sent[how] += 1
    final = get_game.sync(game, client=public)
    assert isinstance(final, models.View)

    # The finished game's stream ends by itself after its `end` event: read it whole.
    text = stream_events.sync(game, client=public)
    assert isinstance(text, str)
    events = [frame for frame in text.split("\n\n") if "event: game_event" in frame]
    record = get_record.sync(game, client=public)
    assert isinstance(record, File)
    lines = record.payload.read()
    verdict = verify_record.sync(
        client=public,
        body=File(payload=io.BytesIO(lines), mime_type="application/x-ndjson"),
    )
    assert isinstance(verdict, models.Verdict), verdict
    return {
        "game_id": game,
        "status": final.status,
        "version": final.version,
        "winner": final.winner,
        "finish_reason": final.finish_reason,
        "commands": sent,
        "streamed_events": len(events),
        "record_lines": len(lines.splitlines()),
        "verdict": verdict.status,
    }


if __name__ == "__main__":
    print(json.dumps(play(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")))
