"""``GET /v1/modes`` (issue 33): each mode as the engine declares it, for forms (the lobby)
that must not offer a game the engine refuses. Every response is checked against
openapi.yaml by ``ApiClient``."""

from __future__ import annotations

from riskcore.model.options import MODE_OPTIONS, OPTIONS
from riskcore.modes import BUILT_IN_MODES, mode_named
from tests.service.api_helpers import ApiClient, problem


def _modes(api: ApiClient) -> dict[str, dict[str, object]]:
    response = api.get("/v1/modes")
    assert response.status_code == 200
    assert [o["name"] for o in response.json["options"]] == [o.name for o in OPTIONS]
    return {m["name"]: m for m in response.json["modes"]}


def test_every_mode_with_its_board_players_and_options(api: ApiClient) -> None:
    modes = _modes(api)
    assert list(modes) == list(BUILT_IN_MODES)
    for name, mode in modes.items():
        engine = mode_named(name)
        assert mode["players"] == list(engine.players)
        assert mode["board"] == engine.board and engine.board in mode["boards"]
        assert mode["options"] == list(engine.reads_options())
    # Options only some modes read are offered to those alone (docs/rules.md, each mode).
    assert "adventure_deck" in modes["lotr"]["options"]
    assert "adventure_deck" not in modes["classic"]["options"]
    assert "team_placement" in modes["team"]["options"]
    assert not MODE_OPTIONS & set(modes["classic"]["options"])
    # A mode's own defaults: the Lord of the Rings game trades at fixed values.
    assert modes["lotr"]["defaults"]["card_values"] == "fixed"
    assert modes["classic"]["defaults"]["card_values"] == "progressive"


def test_each_mode_says_how_it_is_won_as_the_engine_declares_it(api: ApiClient) -> None:
    """Issue 53: the win condition in words, declared once by the mode, for the lobby
    and the end of a game on the board."""
    modes = _modes(api)
    for name, mode in modes.items():
        assert mode["win_condition"] == mode_named(name).win_condition
    team = modes["team"]["win_condition"]
    assert "the other team is eliminated" in team and "partner is out" in team
    assert "Fellowship leaves the Dead Marshes" in modes["lotr"]["win_condition"]


def test_the_seats_a_game_gets_are_the_modes(api: ApiClient) -> None:
    """docs/rules.md: two players play beside two neutral armies; the team game is four
    players in teams A and B."""
    modes = _modes(api)
    assert [s["kind"] for s in modes["two_player"]["seats"]["2"]] == ["player"] * 2 + [
        "neutral"
    ] * 2
    assert [s["team"] for s in modes["team"]["seats"]["4"]] == ["A", "B", "A", "B"]
    assert set(modes["classic"]["seats"]) == {"3", "4", "5", "6"}


def test_every_listed_board_opens_and_an_unlisted_one_is_refused(api: ApiClient) -> None:
    """What the list says the engine refuses, the API refuses: lotr on the classic map."""
    modes = _modes(api)
    assert modes["lotr"]["boards"] == ["middle_earth"]
    bots = [{"kind": "bot", "bot": "random"}] * 3
    for board in modes["classic"]["boards"]:
        created = api.post("/v1/games", json={"board": board, "mode": "classic", "seats": bots})
        assert created.status_code == 201, created.json
    refused = api.post("/v1/games", json={"board": "classic", "mode": "lotr", "seats": bots})
    problem(refused, 400, "invalid_rule_option")
