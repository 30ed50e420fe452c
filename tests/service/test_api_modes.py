"""Game modes over the API: ``mode`` at creation, the old ``rules.variant`` still
accepted, and the rule options' schema held to their one declaration
(``riskcore.model.options.OPTIONS``)."""

from __future__ import annotations

from pathlib import Path

import yaml

from riskcore.model.options import OPTIONS
from riskcore.modes import BUILT_IN_MODES
from tests.service.api_helpers import ApiClient, problem

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
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
