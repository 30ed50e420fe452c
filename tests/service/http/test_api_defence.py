"""A seat's standing defence over HTTP (issue 35, docs/rules.md "Attack"): where
defenders choose their dice, ``set_defence`` is sent by any seat at any time and
recorded as ``defence_set``; every response is held to openapi.yaml."""

from __future__ import annotations

from service.application.games import GameService
from tests.service.api_helpers import ApiClient, problem
from tests.service.http.test_api_play import acting

CHOOSE = {"defender_chooses_dice": True, "starting_armies": 14}


def test_a_seat_out_of_its_turn_sets_its_defence_and_everyone_sees_it(
    api: ApiClient, service: GameService
) -> None:
    """000_ed9208fe5525be2d.txt: «Därefter bestämmer försvararen hur många arméer han
    eller hon ska använda»: a seat answers once for every battle."""
    # rule: 000-defender-chooses
    game, tokens = api.create(3, rules=CHOOSE)
    other = next(s for s in tokens if s != acting(service, game))
    body = {"type": "set_defence", "always_most": True}
    sent = api.command(game, tokens[other], body)
    assert sent.status_code == 200, sent.json
    (event,) = sent.json["events"]
    assert event["event"]["type"] == "defence_set" and event["actor"] == other
    problem(api.command(game, tokens[other], body), 422, "defence_unchanged")
    problem(api.command(game, tokens[other], {"type": "set_defence"}), 400, "malformed_command")
    problem(
        api.command(game, tokens[other], {"type": "set_defence", "always_most": 1}),
        400,
        "malformed_command",
    )


def test_set_defence_is_refused_where_defenders_roll_the_most(
    api: ApiClient, service: GameService
) -> None:
    """004_780a86783e2219ae.txt: «forsvareren ruller to terninger hvis hun har minst to
    hærer»: the default game has nothing to set."""
    # rule: 004-defender-two-dice
    game, tokens = api.create(3)
    seat = acting(service, game)
    body = {"type": "set_defence", "always_most": True}
    problem(api.command(game, tokens[seat], body), 422, "defenders_roll_most")
