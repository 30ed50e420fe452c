"""Game modes over the API: ``mode`` at creation, the old ``rules.variant`` still
accepted, and the rule options' schema held to their one declaration
(``riskcore.model.options.OPTIONS``)."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.options import OPTIONS
from riskcore.model.state import FINISHED
from riskcore.modes import BUILT_IN_MODES
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.games import GameService
from tests.service.api_helpers import ApiClient, problem

SPEC = yaml.safe_load((Path(__file__).resolve().parents[3] / "openapi.yaml").read_text())
SCHEMAS = SPEC["components"]["schemas"]


def test_a_two_player_game_is_created_by_mode(api: ApiClient) -> None:
    """000_ed9208fe5525be2d.txt ("specialspelet för två deltagare"): two players and two
    neutral armies."""
    game, tokens = api.create(2, mode="two_player")
    view = api.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens['p1']}"})
    assert view.json["mode"] == "two_player"
    assert [s["id"] for s in view.json["seats"]] == ["p1", "p2", "n1", "n2"]
    assert api.get(f"/v1/games/{game}").json["mode_state"] == {}
    listed = api.get("/v1/games").json["games"]
    assert next(g for g in listed if g["game_id"] == game)["mode"] == "two_player"


def test_the_old_variant_rule_still_chooses_the_mode(api: ApiClient) -> None:
    game, _ = api.create(2, rules={"variant": "two_player", "fortify": "connected"})
    view = api.get(f"/v1/games/{game}").json
    assert view["mode"] == "two_player"
    assert view["rules"]["fortify"] == "connected"
    assert view["rules"]["variant"] == "two_player"  # still served, deprecated


def test_a_variant_that_contradicts_the_mode_is_refused(api: ApiClient) -> None:
    body = {"seats": [{"kind": "human"}] * 2, "mode": "two_player"}
    response = api.post("/v1/games", json={**body, "rules": {"variant": "classic"}})
    problem(response, 400, "invalid_rule_option")


def test_a_mode_needs_its_player_count(api: ApiClient) -> None:
    response = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 3, "mode": "two_player"})
    assert response.status_code == 400


def test_the_rules_schema_is_the_option_declaration() -> None:
    """One declaration of the rule options: openapi.yaml's ``Rules`` says exactly it."""
    properties = dict(SCHEMAS["Rules"]["properties"])
    assert properties.pop("variant")["deprecated"] is True
    assert list(properties) == [spec.name for spec in OPTIONS]
    for spec in OPTIONS:
        declared = properties[spec.name]
        assert declared["default"] == spec.default, spec.name
        if spec.choices is None or isinstance(spec.default, bool):
            expected = "integer" if spec.choices is None else "boolean"
            assert declared["type"] == expected, spec.name
        else:
            assert declared["enum"] == list(spec.choices), spec.name
        if spec.bounds is not None:
            assert (declared["minimum"], declared["maximum"]) == spec.bounds, spec.name


def test_the_modes_schema_lists_the_built_in_modes() -> None:
    assert SCHEMAS["Mode"]["enum"] == list(BUILT_IN_MODES)


def test_a_team_game_seats_each_team_where_it_alternates(api: ApiClient) -> None:
    """000_ed9208fe5525be2d.txt ("lagspelet"): "Spelarna ska sitta så att de två lagen kan
    turas om att spela": seats that name their team are put in its places (p1 and p3
    play for A, p2 and p4 for B), and the team game's own defaults apply."""
    seats = [
        {"kind": "bot", "bot": "random", "name": "Ada", "team": "A"},
        {"kind": "bot", "bot": "random", "name": "Bo", "team": "A"},
        {"kind": "open", "team": "B"},
        {"kind": "open"},
    ]
    created = api.post("/v1/games", json={"mode": "team", "seats": seats})
    assert created.status_code == 201, created.json
    game = created.json["game"]
    assert [(s["seat"], s["name"], s["team"]) for s in game["seats"]] == [
        ("p1", "Ada", "A"),
        ("p2", None, "B"),
        ("p3", "Bo", "A"),
        ("p4", None, "B"),
    ]
    assert game["rules"]["card_values"] == "fixed" and game["rules"]["fortify"] == "connected"
    gid = game["game_id"]
    problem(api.post(f"/v1/games/{gid}/join", json={"team": "A"}), 409, "team_full")
    wrong = api.post(f"/v1/games/{gid}/join", json={"team": "A", "seat": "p2"})
    problem(wrong, 409, "team_full")
    problem(api.post(f"/v1/games/{gid}/join", json={"team": "C"}), 400, "invalid_body")
    joined = api.post(f"/v1/games/{gid}/join", json={"team": "B", "name": "Cy"})
    assert joined.status_code == 200 and joined.json["seat"] == "p2"
    api.post(f"/v1/games/{gid}/join", json={"name": "Di"})
    view = api.get(f"/v1/games/{gid}", headers={"Authorization": f"Bearer {joined.json['token']}"})
    assert view.json["mode"] == "team"
    assert {s["id"]: s["team"] for s in view.json["seats"]} == {
        "p1": "A",
        "p2": "B",
        "p3": "A",
        "p4": "B",
    }
    teams = view.json["mode_state"]["teams"]
    assert teams["A"]["players"] == ["p1", "p3"] and teams["B"]["players"] == ["p2", "p4"]


def test_teams_that_cannot_be_seated_are_refused(api: ApiClient) -> None:
    three = [{"kind": "human", "team": "A"}] * 3 + [{"kind": "human"}]
    problem(api.post("/v1/games", json={"mode": "team", "seats": three}), 400, "invalid_team")
    classic = [{"kind": "human", "team": "A"}] + [{"kind": "human"}] * 2
    problem(api.post("/v1/games", json={"seats": classic}), 400, "invalid_team")
    wrong = api.post("/v1/games", json={"mode": "team", "seats": [{"kind": "human"}] * 3})
    problem(wrong, 400, "invalid_rule_option")


def test_joining_a_team_of_a_game_without_teams_is_a_conflict(api: ApiClient) -> None:
    created = api.post("/v1/games", json={"seats": [{"kind": "open"}] * 3}).json["game"]
    joined = api.post(f"/v1/games/{created['game_id']}/join", json={"team": "A"})
    problem(joined, 409, "team_not_in_game")


def test_the_mission_modes_are_created_and_each_seat_sees_its_own_missions(api: ApiClient) -> None:
    """Secret missions and the mission game over the API: the missions are dealt after
    the (dealt) setup; a seat's view shows its own mission texts, nobody else's."""
    for mode, per_seat in (("secret_missions", 1), ("mission_game", 4)):
        rules = {"setup": "deal", "starting_armies": 14}
        game, tokens = api.create(3, mode=mode, rules=rules)
        for _ in range(200):
            view = api.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens['p1']}"})
            if view.json["mode_state"].get("missions"):
                break
            seat = view.json["current"]
            actions = api.get(
                f"/v1/games/{game}/legal-actions",
                headers={"Authorization": f"Bearer {tokens[seat]}"},
            ).json["actions"]
            body = next(a["command"] for a in actions if a["command"]["type"] == "place_armies")
            api.command(game, tokens[seat], body)
        missions = view.json["mode_state"]["missions"]
        assert len(missions["p1"]) == per_seat and all(m["text"] for m in missions["p1"])
        assert all(m["card"] is None for m in missions["p2"] + missions["p3"])
        spectator = api.get(f"/v1/games/{game}").json["mode_state"]["missions"]
        assert all(m["card"] is None for entries in spectator.values() for m in entries)


def play_to_the_end(api: ApiClient, service: GameService, game: str, tokens: dict[str, str]) -> str:
    """Every command over HTTP, the random bot choosing from the seat's legal actions;
    the game's record, verified."""
    bot, rng = get_bot("random"), random.Random(17)
    for _ in range(20_000):
        state = service.load(game).state
        if state.phase == FINISHED:
            break
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        assert api.command(game, tokens[seat], body).status_code == 200, body
    assert service.load(game).state.phase == FINISHED
    text = api.get(f"/v1/games/{game}/record").get_data(as_text=True)
    verdict = verify_text(text)
    assert verdict.ok, verdict.divergence
    return text


def test_regular_risk_on_middle_earth_is_played_over_the_api(
    api: ApiClient, service: GameService
) -> None:
    """002_84c66041fccdfcee.txt: "Du kan också använda spelplanen till Sagan om Ringen Risk
    för att spela Risk på vanligt sätt": the mode brings its board; two players get the
    neutral army; played to the end over HTTP, its record verifies."""
    game, tokens = api.create(2, mode="middle_earth")
    view = api.get(f"/v1/games/{game}", token=tokens["p1"]).json
    assert view["mode"] == "middle_earth" and view["board"] == "middle_earth"
    assert [s["id"] for s in view["seats"]] == ["p1", "p2", "n1"]
    assert view["rules"]["one_die_vs_one"] is True and view["rules"]["fortify"] == "adjacent"
    play_to_the_end(api, service, game, tokens)
    five = {"seats": [{"kind": "human"}] * 5, "mode": "middle_earth"}
    problem(api.post("/v1/games", json=five, documented=False), 400, "invalid_rule_option")


def test_lord_of_the_rings_risk_is_played_over_the_api(
    api: ApiClient, service: GameService
) -> None:
    """002_84c66041fccdfcee.txt: "När brödraskapet lämnar Döda Träsken med Ringen, är spelet
    slut. Den spelare som har flest poäng vinner": three players over HTTP to the end; the
    view shows sides, leaders, the Fellowship and the score table; the record verifies."""
    game, tokens = api.create(3, mode="lotr")
    state = api.get(f"/v1/games/{game}").json["mode_state"]
    assert state["sides"] == {"p1": "evil", "p2": "good", "p3": "evil"}
    assert state["fellowship"] == {
        "step": 0,
        "territory": "the_shire",
        "needs_roll": False,
        "left": False,
    }
    play_to_the_end(api, service, game, tokens)
    final = api.get(f"/v1/games/{game}").json
    scores = final["mode_state"]["scores"]
    assert set(scores) == {"p1", "p2", "p3"}
    assert all(
        row["total"]
        == row["territories"] + row["regions"] + 2 * row["strongholds"] + row["adventure"]
        for row in scores.values()
    )
    # The adventure points are those of the cards each player played (002: "lägga ihop de
    # siffror som står i nedre högra hörnet av dina äventyrskort"), shown once it is over.
    cards = final["mode_state"]["adventure"]
    side = state["sides"]
    for seat, row in scores.items():
        played = cards["played"].get(seat, [])
        points = sum(cards["catalogue"][n]["points"][side[seat]] for n in played)
        assert row["adventure"] == points
    assert all(entry["adventure_hand"] is not None for entry in cards["hands"].values())


def test_a_game_with_active_neutrals_is_played_over_the_api(api: ApiClient) -> None:
    """000_ed9208fe5525be2d.txt ("Spel Med Aktiva Neutrala Härar"): "De neutrala härarna
    börjar som ej involverade"; the track is shown to all, a bribe's cards to the giver only,
    and the passive game refuses ``neutrals=active``."""
    game, tokens = api.create(2, mode="two_player_active")
    auth = {t: {"Authorization": f"Bearer {tokens[t]}"} for t in tokens}
    view = api.get(f"/v1/games/{game}", headers=auth["p1"]).json
    assert view["rules"]["neutrals"] == "active"
    assert view["mode_state"]["track"] == ["p1", "uninvolved", "p2"]
    assert {n["marker"] for n in view["mode_state"]["neutrals"].values()} == {"uninvolved"}
    two = {"seats": [{"kind": "human"}] * 2, "mode": "two_player"}
    response = api.post("/v1/games", json={**two, "rules": {"neutrals": "active"}})
    problem(response, 400, "invalid_rule_option")
    body = {"seats": [{"kind": "human"}] * 2, "mode": "two_player_active"}
    refused = api.post("/v1/games", json={**body, "rules": {"neutrals": "passive"}})
    problem(refused, 400, "invalid_rule_option")
