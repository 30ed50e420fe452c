"""Offline verification of game records (issue 7): every kind of tampering is caught.

The record format is ``riskcore.audit.gamerecord``; the verifier trusts nothing
but the record itself: chain, seed commitment (docs/rules.md, "Fair dice"),
and replaying every command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.simulate import play_game, record_of

FIXTURE = Path(__file__).parent / "data" / "record-v1-classic-3p.jsonl"
SEED = bytes.fromhex("ab" * 32)


@pytest.fixture(scope="module")
def record() -> list[str]:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="audit")
    assert result.winner is not None
    return record_of(result, SEED).splitlines()


def lines_of(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines]


def text(objs: list[dict]) -> str:
    return "\n".join(json.dumps(o) for o in objs)


def first_of(objs: list[dict], event_type: str) -> int:
    return next(
        i for i, o in enumerate(objs) if o.get("payload", {}).get("e", {}).get("type") == event_type
    )


def test_an_honest_record_verifies(record: list[str]) -> None:
    verdict = verify_text("\n".join(record))
    assert verdict.ok, verdict.divergence
    assert set(verdict.checks.values()) == {"passed"}
    assert verdict.winner is not None


def test_a_record_kept_from_2026_11_29_still_verifies() -> None:
    """Old records keep verifying after the engine changes (upcasting)."""
    verdict = verify_text(FIXTURE.read_text())
    assert verdict.ok, verdict.divergence
    assert verdict.game_id == "fixture-2026-11-29"


def test_dropped_event_is_named(record: list[str]) -> None:
    verdict = verify_text("\n".join(record[:20] + record[21:]))
    assert not verdict.ok
    assert verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.version) == ("structure", 20)


def test_swapped_events_are_named(record: list[str]) -> None:
    swapped = [*record[:30], record[31], record[30], *record[32:]]
    verdict = verify_text("\n".join(swapped))
    assert verdict.divergence is not None
    assert verdict.divergence.version == 30


def test_edited_die_breaks_the_chain_at_that_event(record: list[str]) -> None:
    objs = lines_of(record)
    i = first_of(objs, "battle_resolved")
    dice = objs[i]["payload"]["e"]["attacker_dice"]
    dice[0] = 6 if dice[0] != 6 else 5
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert verdict.divergence.check == "chain"
    assert verdict.divergence.version == objs[i]["n"]
    assert verdict.divergence.field == "hash"


def test_edited_die_with_recomputed_chain_fails_replay(record: list[str]) -> None:
    """A forger who rehashes everything is still caught: the dice follow from the seed."""
    objs = lines_of(record)
    i = first_of(objs, "battle_resolved")
    dice = objs[i]["payload"]["e"]["attacker_dice"]
    dice[0] = 6 if dice[0] != 6 else 5
    verdict = verify_text(_rechained(objs))
    assert verdict.divergence is not None
    assert verdict.checks["chain"] == "passed"
    assert (verdict.divergence.check, verdict.divergence.version) == ("replay", objs[i]["n"])
    assert verdict.divergence.field == "e.attacker_dice"


def test_edited_timestamp_is_named(record: list[str]) -> None:
    objs = lines_of(record)
    objs[40]["payload"]["t"] += 1
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.version) == ("chain", objs[40]["n"])


def test_changed_seed_fails_the_commitment(record: list[str]) -> None:
    objs = lines_of(record)
    objs[-1]["seed"] = "cd" * 32
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert verdict.divergence.check == "commitment"


def test_changed_commitment_in_header_is_named(record: list[str]) -> None:
    objs = lines_of(record)
    objs[0]["seed_commitment"] = "00" * 32
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert verdict.divergence.check == "header"
    assert verdict.divergence.field == "seed_commitment"


def test_a_finished_record_cut_short_fails_though_its_header_says_complete(
    record: list[str],
) -> None:
    """Issue 13 item 2: the last 60 events dropped, the header still ``complete``:
    this verified with exit 0 before (commitment and replay "skipped")."""
    verdict = verify_text("\n".join(record[:-61]))  # the seed trailer and 60 events
    assert not verdict.ok and verdict.status == "failed"
    assert verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.field) == ("structure", "complete")


def test_a_record_of_a_running_game_is_valid_but_not_final(record: list[str]) -> None:
    """Without the seed the dice cannot be checked: not VERIFIED, its own status."""
    objs = lines_of(record[:100])
    objs[0]["complete"] = False
    verdict = verify_text(text(objs))
    assert verdict.divergence is None
    assert (verdict.ok, verdict.status) == (False, "not_final")
    assert verdict.checks["chain"] == "passed"
    assert verdict.checks["replay"].startswith("skipped")
    assert verdict.head == objs[-1]["hash"]


@pytest.mark.parametrize(
    ("key", "forged"),
    [
        ("game_id", "forged-id"),
        ("rules", {"card_values": "fixed"}),
        ("seats", [{"id": "p1", "kind": "player", "name": "mallory"}]),
        ("board", "other"),
        ("format", 1),
    ],
)
def test_a_header_that_is_not_the_first_events_fails(
    record: list[str], key: str, forged: object
) -> None:
    """Issue 13 item 2: an edited header (id, rules, seat names) verified before."""
    objs = lines_of(record)
    if key == "seats":
        forged = [{**seat, "name": "mallory"} for seat in objs[0]["seats"]]
    objs[0][key] = forged
    verdict = verify_text(text(objs))
    assert not verdict.ok and verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.field) == ("header", key)


def test_a_header_without_its_game_facts_fails(record: list[str]) -> None:
    objs = lines_of(record)
    del objs[0]["rules"]
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None and verdict.divergence.check == "header"


def test_the_head_a_client_saw_anchors_the_record(record: list[str]) -> None:
    """Issue 13 item 3: a forger who edits a timestamp and rehashes everything gets a
    record that verifies, but not one that holds the head a client kept."""
    objs = lines_of(record)
    seen = objs[300]["hash"]  # what a command response showed, mid-game
    assert verify_text(text(objs), expect_heads=[seen]).ok
    objs[40]["payload"]["t"] += 1
    forged = _rechained(objs)
    assert verify_text(forged).ok  # the chain alone proves nothing about who wrote it
    verdict = verify_text(forged, expect_heads=[seen])
    assert not verdict.ok and verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.expected) == ("anchor", seen)


def test_unknown_engine_version_is_refused(record: list[str]) -> None:
    objs = lines_of(record)
    objs[0]["engine"]["codec"] = 999
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert verdict.divergence.field == "engine.codec"


def test_lines_are_read_as_json_loads_reads_them(record: list[str]) -> None:
    """Lines the server did not write (spaces around them, another layout) still verify."""
    spaced = [f"  {line} \t" for line in record[:3]] + [json.dumps(json.loads(record[3]), indent=1)]
    loose = [line.replace("\n", " ") for line in spaced] + record[4:]
    assert verify_text("\n".join(loose)).ok


@pytest.mark.parametrize("extra", ["}", " 1", ',{"n":2}', " x"])
def test_a_line_with_more_than_one_json_value_is_named(record: list[str], extra: str) -> None:
    verdict = verify_text("\n".join([record[0], record[1] + extra, *record[2:]]))
    assert verdict.divergence is not None
    assert verdict.divergence.message.startswith("line 2: not JSON")


@pytest.mark.parametrize("garbage", ["", "not json", "[1, 2]", '{"record": "other"}', "\x00\xff"])
def test_garbage_gives_a_verdict_not_a_crash(garbage: str) -> None:
    verdict = verify_text(garbage)
    assert not verdict.ok
    assert verdict.divergence is not None


def test_two_player_game_with_player_seeds_replays() -> None:
    """Players' seeds are mixed into every roll; replay uses the recorded ones."""
    result = play_game(
        [get_bot("random"), get_bot("random")],
        seed=SEED,
        game_id="duo",
        mode="two_player",
        player_seeds={"p1": "0f" * 16, "p2": "f0" * 16},
    )
    verdict = verify_text(record_of(result, SEED))
    assert verdict.ok, verdict.divergence
    without = play_game(
        [get_bot("random"), get_bot("random")],
        seed=SEED,
        game_id="duo",
        mode="two_player",
    )
    assert [e for e in without.events[1:5]] != [e for e in result.events[1:5]]


@pytest.mark.parametrize(
    "name", ["record-2026-12-01-classic-4p.jsonl", "record-2026-12-01-two-player.jsonl"]
)
def test_records_written_before_game_modes_still_verify(name: str) -> None:
    """Records of main as it was on 2026-12-01, before the engine's game-mode seam:
    a classic deal with connected fortifies, and a two-player game where
    defenders choose their dice."""
    verdict = verify_text((FIXTURE.parent / name).read_text())
    assert verdict.ok, verdict.divergence
    assert verdict.winner is not None


def _rechained(objs: list[dict]) -> str:
    from riskcore.audit.chain import GENESIS, event_hash
    from riskcore.protocol.codec import canonical

    prev = GENESIS
    for o in objs[1:]:
        if "payload" in o:
            o["prev"] = prev.hex()
            prev = event_hash(prev, canonical(o["payload"]))
            o["hash"] = prev.hex()
    return text(objs)


def test_a_fact_marked_derived_in_a_current_event_is_a_divergence(record: list[str]) -> None:
    """Only an old event version may leave a fact to the engine: a forger who writes
    "derived" into today's events (and rehashes) is caught at that event."""
    objs = lines_of(record)
    i = first_of(objs, "territory_occupied")
    objs[i]["payload"]["e"]["next_phase"] = "derived"
    verdict = verify_text(_rechained(objs))
    assert verdict.divergence is not None
    assert (verdict.divergence.version, verdict.divergence.field) == (objs[i]["n"], "e.next_phase")


def test_an_old_records_derived_facts_are_checked_event_by_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The flow an old record left to the engine (protocol/legacy.py) is checked after
    every batch that has it, not only in the final state: a wrong derivation of a setup
    quota, which later events would hide, is caught."""
    from riskcore.protocol import legacy

    right = legacy._turn

    def one_more(state: object, seat: str | None) -> dict:
        turn = right(state, seat)  # type: ignore[arg-type]
        return {**turn, "quota": {k: v + 1 for k, v in turn["quota"].items()}}

    monkeypatch.setattr(legacy, "_turn", one_more)
    verdict = verify_text(FIXTURE.read_text())
    assert not verdict.ok and verdict.divergence is not None
    assert verdict.divergence.check == "replay" and verdict.divergence.version is not None


def test_a_record_whose_events_do_not_fold_is_a_divergence_not_a_crash(
    record: list[str],
) -> None:
    objs = lines_of(record)
    i = first_of(objs, "territory_claimed")
    objs[i]["payload"]["e"]["seat"] = "derived"
    verdict = verify_text(_rechained(objs))
    assert verdict.divergence is not None and not verdict.ok


def _server_layout(objs: list[dict], rechain: bool = True) -> str:
    """The record as the server writes it (canonical lines), rehashed if asked: the
    layout whose payload texts the verifier hashes and compares byte for byte."""
    from riskcore.protocol.codec import canonical_text

    if rechain:
        _rechained(objs)
    events = [canonical_text(o) if "payload" in o else json.dumps(o) for o in objs[1:]]
    return "\n".join([json.dumps(objs[0], sort_keys=True), *events])


def test_a_record_in_the_servers_layout_is_checked_byte_for_byte(record: list[str]) -> None:
    assert _server_layout(lines_of(record), rechain=False) == "\n".join(record)
    objs = lines_of(record)
    i = first_of(objs, "battle_resolved")
    dice = objs[i]["payload"]["e"]["attacker_dice"]
    dice[0] = 6 if dice[0] != 6 else 5
    verdict = verify_text(_server_layout(objs))
    assert verdict.divergence is not None and verdict.checks["chain"] == "passed"
    assert (verdict.divergence.check, verdict.divergence.version) == ("replay", objs[i]["n"])
    assert verdict.divergence.field == "e.attacker_dice"


def test_a_payload_text_hashed_as_written_but_not_canonical_breaks_the_chain(
    record: list[str],
) -> None:
    """A forger who writes a payload in another form (here a space) and hashes that
    text is caught: the chain is defined over the canonical bytes."""
    from riskcore.audit.chain import GENESIS, event_hash
    from riskcore.protocol.codec import canonical_text

    objs = lines_of(record)
    lines, prev, forged = [record[0]], GENESIS, 50
    for o in objs[1:-1]:
        payload = canonical_text(o["payload"])
        if o["n"] == forged:
            payload = payload.replace(",", ", ", 1)
        o["prev"] = prev.hex()
        prev = event_hash(prev, payload.encode())
        o["hash"] = prev.hex()
        body = canonical_text({**o, "payload": None}).replace(
            '"payload":null', '"payload":' + payload
        )
        lines.append(body)
    verdict = verify_text("\n".join([*lines, record[-1]]))
    assert verdict.divergence is not None and not verdict.ok
    assert (verdict.divergence.check, verdict.divergence.version) == ("chain", forged)


def test_a_payload_with_a_space_hashed_canonically_verifies(record: list[str]) -> None:
    """The server's layout with one payload written loosely: the chain hashes the
    canonical bytes, so the record holds (as ``json.loads`` reads it)."""
    line = record[50]
    loose = line.replace(',"e":', ', "e":', 1)
    assert loose != line
    verdict = verify_text("\n".join([*record[:50], loose, *record[51:]]))
    assert verdict.ok, verdict.divergence


def test_an_event_missing_a_field_in_the_servers_layout_is_a_decode_failure(
    record: list[str],
) -> None:
    objs = lines_of(record)
    i = first_of(objs, "battle_resolved")
    del objs[i]["payload"]["e"]["attacker_dice"]
    verdict = verify_text(_server_layout(objs))
    assert verdict.divergence is not None and not verdict.ok
    assert (verdict.divergence.check, verdict.divergence.version) == ("decode", objs[i]["n"])


def test_a_hidden_card_swapped_in_the_servers_layout_fails(record: list[str]) -> None:
    """A drawn card's value lives in the line's ``secret``: another value, with the
    commitment recomputed to match it, is caught by the replay, not only the seal."""
    from riskcore.audit.sealing import commit, salt

    objs = lines_of(record)
    i = next(k for k, o in enumerate(objs) if o.get("secret"))
    name, value = next(iter(objs[i]["secret"].items()))
    other = [v + 1 for v in value] if isinstance(value, list) else value + 1
    objs[i]["secret"][name] = other
    game_id, seed = objs[0]["game_id"], bytes.fromhex(objs[-1]["seed"])
    objs[i]["payload"]["x"] = commit(salt(seed, game_id, objs[i]["n"]), objs[i]["secret"])
    verdict = verify_text(_server_layout(objs))
    assert verdict.divergence is not None and not verdict.ok
    assert (verdict.divergence.check, verdict.divergence.version) == ("replay", objs[i]["n"])


def test_a_finished_record_in_the_servers_layout_is_checked_in_one_pass(
    record: list[str],
) -> None:
    """``_one_pass`` gives the step-by-step verdict, anchors included, and says
    nothing (None) about a record it does not find exactly as the server writes it."""
    from riskcore.audit.gamerecord import parse_record
    from riskcore.audit.verify import _one_pass, verify_record

    whole = "\n".join(record)
    head = json.loads(record[7])["hash"]
    for heads in ([], [head], [head.upper() + " "]):
        verdict = _one_pass(whole, None, heads)
        assert verdict is not None and verdict.ok
        assert verdict == verify_record(parse_record(whole), expect_heads=heads)
    assert _one_pass(whole, None, ["00" * 32]) is None
    loose = record[50].replace(',"e":', ', "e":', 1)
    assert _one_pass("\n".join([*record[:50], loose, *record[51:]]), None, []) is None
    assert _one_pass("\n".join(record[:-2] + record[-1:]), None, []) is None
    assert _one_pass("\n".join(record[:-1]), None, []) is None
