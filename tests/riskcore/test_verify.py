"""Offline verification of game records (issue 7): every kind of tampering is caught.

The record format is ``riskcore.audit.gamerecord``; the verifier trusts nothing
but the record itself: chain, seed commitment (DESIGN.md §2 "Randomness is
fair and auditable"), and replaying every command.
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
    assert verdict.divergence.check == "commitment"
    assert verdict.divergence.field == "seed_commitment"


def test_truncated_record_skips_what_needs_the_seed(record: list[str]) -> None:
    verdict = verify_text("\n".join(record[:100]))
    assert verdict.ok
    assert verdict.checks["replay"].startswith("skipped")


def test_unknown_engine_version_is_refused(record: list[str]) -> None:
    objs = lines_of(record)
    objs[0]["engine"]["codec"] = 999
    verdict = verify_text(text(objs))
    assert verdict.divergence is not None
    assert verdict.divergence.field == "engine.codec"


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
