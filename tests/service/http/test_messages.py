"""Messages a first-time user met (issue 14, "Newcomer friction"): each says what is wrong
in plain words, and nothing reads ``None`` or ``null`` where a name belongs."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from riskcli.main import main
from tests.service.api_helpers import ApiClient

HUMAN = {"kind": "human", "name": "Ada"}
BOT = {"kind": "bot", "bot": "random"}


def test_not_your_turn_names_the_seats_without_doubled_quotes(api: ApiClient) -> None:
    created = api.post("/v1/games", json={"seats": [HUMAN, HUMAN, HUMAN]}).get_json()
    game, tokens = created["game"]["game_id"], created["tokens"]
    current = api.get(f"/v1/games/{game}").get_json()["current"]
    other = next(seat for seat in tokens if seat != current)
    refused = api.post(
        f"/v1/games/{game}/commands",
        json={"type": "claim_territory", "territory": "alaska"},
        headers={"Authorization": f"Bearer {tokens[other]}"},
    ).get_json()
    assert refused["detail"] == f"it is {current}'s turn, not {other}'s"


def test_a_wrong_player_count_reads_as_a_sentence(api: ApiClient) -> None:
    refused = api.post(
        "/v1/games", json={"mode": "two_player", "seats": [HUMAN, BOT, BOT]}
    ).get_json()
    assert refused["detail"] == "the two_player game needs 2 players, not 3"
    refused = api.post("/v1/games", json={"seats": [HUMAN, BOT]}).get_json()
    assert refused["detail"] == "the classic game needs 3 to 6 players, not 2"


def test_an_unknown_command_type_says_which_types_there_are(api: ApiClient) -> None:
    created = api.post("/v1/games", json={"seats": [HUMAN, BOT, BOT]}).get_json()
    game, token = created["game"]["game_id"], created["tokens"]["p1"]
    refused = api.post(
        f"/v1/games/{game}/commands",
        json={"type": "teleport"},
        headers={"Authorization": f"Bearer {token}"},
    ).get_json()
    assert refused["code"] == "malformed_command"
    assert refused["detail"].startswith("invalid type: must be one of ['attack', ")
    assert "_schema" not in refused["detail"]


def test_a_bad_seat_names_the_field_and_the_fault(api: ApiClient) -> None:
    refused = api.post("/v1/games", json={"seats": [HUMAN, BOT, {"kind": "robot"}]}).get_json()
    assert refused["detail"] == "invalid seats.2.kind: Must be one of: human, bot, open."


def test_bot_seats_have_names_in_the_create_answer(api: ApiClient) -> None:
    created = api.post("/v1/games", json={"seats": [{"kind": "human"}, BOT, BOT]}).get_json()
    names = [seat["name"] for seat in created["game"]["seats"]]
    assert names == ["Player 1", "Random bot 2", "Random bot 3"]
    view = api.get(f"/v1/games/{created['game']['game_id']}").get_json()
    assert [seat["name"] for seat in view["seats"]] == names


def test_a_record_refused_before_any_version_does_not_say_version_none(tmp_path: Path) -> None:
    record = tmp_path / "bad.jsonl"
    record.write_text('{"not": "a record"}\n')
    result = CliRunner().invoke(main, ["verify", str(record)])
    assert "FAILED: line 1" in result.output
    assert "None" not in result.output.split("\n", 1)[1]
