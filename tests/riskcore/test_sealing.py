"""Record format 2 (issue 13 item 1): hidden cards provable but never recoverable.

A format-1 event's hash covers its secret fields, so a viewer holding the hash
of a redacted ``card_drawn`` tries the 44 cards and finds the one drawn. In
format 2 the hash covers the public part and a salted commitment: the same
search finds nothing, while the chain still checks and, after the end, every
commitment opens (docs/records.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from riskcore.audit.chain import event_hash
from riskcore.audit.gamerecord import Reader, event_lines
from riskcore.audit.record import envelopes, hashed_bytes
from riskcore.audit.sealing import commit, salt, seal, secret_of
from riskcore.audit.verify import verify_text
from riskcore.boards.board import load_board
from riskcore.bots import get_bot
from riskcore.engine.evolve import fold
from riskcore.protocol import events as ev
from riskcore.protocol.codec import canonical, event_to_dict
from riskcore.simulate import play_game, record_of
from riskcore.views.view import redact

OLD_RECORD = Path(__file__).parent / "data" / "record-v1-classic-3p.jsonl"
SEED = bytes.fromhex("5a" * 32)
CARDS = [card.id for card in load_board("classic").cards]


@pytest.fixture(scope="module")
def new_record() -> list[dict[str, Any]]:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="sealed")
    return [json.loads(line) for line in record_of(result, SEED).splitlines()]


def _draws(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in lines[1:] if o.get("payload", {}).get("e", {}).get("type") == "card_drawn"]


def _guess(line: dict[str, Any]) -> list[int]:
    """The attack: every card value whose payload hashes to the published hash."""
    found = []
    for card in CARDS:
        payload = json.loads(json.dumps(line["payload"]))
        payload["e"]["card"] = card
        tries = (
            [payload, {k: v for k, v in payload.items() if k != "x"}]
            if "x" in payload
            else [payload]
        )
        for tried in tries:
            if event_hash(bytes.fromhex(line["prev"]), canonical(tried)).hex() == line["hash"]:
                found.append(card)
    return found


def test_trying_every_card_against_a_format_1_hash_reveals_the_draw() -> None:
    """What a format-1 record (or feed) handed out: the hash of the unredacted draw."""
    lines = [json.loads(line) for line in OLD_RECORD.read_text().splitlines()]
    draws = _draws(lines)
    assert draws
    for line in draws:
        drawn = line["payload"]["e"]["card"]
        line["payload"]["e"]["card"] = -1  # as the redacted record showed it
        assert _guess(line) == [drawn]


def test_trying_every_card_against_a_format_2_hash_finds_nothing(
    new_record: list[dict[str, Any]],
) -> None:
    spectator = [{k: v for k, v in o.items() if k != "secret"} for o in new_record]
    draws = _draws(spectator)
    assert draws and all(line["payload"]["e"]["card"] == -1 for line in draws)
    for line in draws:
        assert _guess(line) == []
        # ...and yet the public part is exactly what the chain covers:
        digest = event_hash(bytes.fromhex(line["prev"]), canonical(line["payload"]))
        assert digest.hex() == line["hash"]


def test_the_spectators_record_of_a_running_game_checks_its_chain(
    new_record: list[dict[str, Any]],
) -> None:
    running = [{k: v for k, v in o.items() if k != "secret"} for o in new_record[:400]]
    running[0] |= {"redacted": True, "complete": False}
    verdict = verify_text("\n".join(json.dumps(o) for o in running))
    assert verdict.divergence is None, verdict.divergence
    assert verdict.status == "not_final" and verdict.checks["chain"] == "passed"
    assert verdict.checks["secrets"].startswith("partial: 0 given")


def test_after_the_end_every_commitment_opens(new_record: list[dict[str, Any]]) -> None:
    committed = [o for o in new_record[1:] if "x" in o.get("payload", {})]
    types = {o["payload"]["e"]["type"] for o in committed}
    assert {"deck_shuffled", "card_drawn"} <= types
    for o in committed:
        event_salt = salt(SEED, "sealed", o["n"])
        assert commit(event_salt, o["secret"]) == o["payload"]["x"]
    verdict = verify_text("\n".join(json.dumps(o) for o in new_record))
    assert verdict.ok and verdict.checks["secrets"] == "passed"


def test_a_secret_changed_after_the_end_is_caught(new_record: list[dict[str, Any]]) -> None:
    """The server cannot reveal another card than the one it committed to."""
    lines = json.loads(json.dumps(new_record))
    draw = _draws(lines)[0]
    draw["secret"]["card"] = next(c for c in CARDS if c != draw["secret"]["card"])
    verdict = verify_text("\n".join(json.dumps(o) for o in lines))
    assert verdict.divergence is not None
    assert (verdict.divergence.check, verdict.divergence.version) == ("secrets", draw["n"])


def test_a_secret_shown_in_the_public_part_is_caught(new_record: list[dict[str, Any]]) -> None:
    lines = json.loads(json.dumps(new_record))
    draw = _draws(lines)[0]
    draw["payload"]["e"]["card"] = draw["secret"]["card"]
    verdict = verify_text("\n".join(json.dumps(o) for o in lines))
    assert verdict.divergence is not None and verdict.divergence.check == "chain"


def test_a_seat_checks_its_own_card_before_the_end(new_record: list[dict[str, Any]]) -> None:
    """The salt a seat gets with its own card opens that commitment; a forged card
    (or salt) given with it fails."""
    lines = json.loads(json.dumps(new_record[:400]))
    lines[0] |= {"redacted": True, "complete": False}
    for o in lines[1:]:
        if "secret" in o:
            if o["payload"]["e"].get("seat") == "p1":
                o["salt"] = salt(SEED, "sealed", o["n"]).hex()
            else:
                del o["secret"]
    own = [o for o in _draws(lines) if "salt" in o]
    assert own
    verdict = verify_text("\n".join(json.dumps(o) for o in lines))
    assert verdict.status == "not_final", verdict.divergence
    assert verdict.checks["secrets"] == (
        f"partial: {len(own)} given with their salt checked; the rest need the seed"
    )
    own[0]["secret"]["card"] = next(c for c in CARDS if c != own[0]["secret"]["card"])
    verdict = verify_text("\n".join(json.dumps(o) for o in lines))
    assert verdict.divergence is not None and verdict.divergence.check == "secrets"


def test_event_lines_give_a_seat_only_its_own_secrets_with_their_salt() -> None:
    result = play_game([get_bot("random") for _ in range(3)], seed=SEED, game_id="sealed")
    batch = seal(envelopes(result.events, first_version=1, time_ms=0, actor="p1"), SEED, "sealed")
    stored, prev = [], bytes(32)
    for envelope in batch:
        payload = envelope.encode()
        digest = event_hash(prev, hashed_bytes(envelope, payload, 2))
        stored.append((envelope.version, digest, prev, payload))
        prev = digest
    lines = list(event_lines(stored, Reader("sealed", 2, complete=False, viewer="p2", seed=SEED)))
    for envelope, line in zip(batch, lines, strict=True):
        event = envelope.event
        sees = redact(event, "p2") == event
        if type(event).SECRET:
            assert ("secret" in line) == sees and ("salt" in line) == sees
        assert "secret" not in line or line["secret"] == secret_of(event_to_dict(event))
        assert "x" not in line["payload"] or line["payload"]["e"] == event_to_dict(
            redact(event, None)
        )


def test_an_unsealed_secret_is_refused_in_a_format_2_game() -> None:
    drawn = envelopes([ev.CardDrawn(seat="p1", card=7)], first_version=9, time_ms=0, actor="p1")[0]
    with pytest.raises(ValueError, match="seal it first"):
        hashed_bytes(drawn, drawn.encode(), 2)
    assert hashed_bytes(drawn, drawn.encode(), 1) == drawn.encode()


def test_the_declared_secrets_are_what_spectators_do_not_see() -> None:
    """``Event.SECRET`` (what the chain commits to) and the views' redaction agree."""
    result = play_game([get_bot("random") for _ in range(4)], seed=SEED, game_id="agree")
    seen_types = set()
    for event in result.events:
        full, public = event_to_dict(event), event_to_dict(redact(event, None))
        hidden = {name for name in full if full[name] != public[name]}
        assert hidden <= set(type(event).SECRET), event.TYPE
        if type(event).SECRET and any(full[name] for name in type(event).SECRET):
            assert hidden == set(type(event).SECRET), event.TYPE
            seen_types.add(event.TYPE)
    assert {"deck_shuffled", "card_drawn"} <= seen_types
    assert fold(result.events).record_format == ev.RECORD_FORMAT == 2


def test_salts_and_commitments_follow_the_documented_rule() -> None:
    """docs/records.md: salt = HMAC(seed, "risk/salt/v1" | game | n), x = HMAC(salt, secret)."""

    expected = hmac.new(b"seed", b"risk/salt/v1\x1fg\x1f12", hashlib.sha256).digest()
    assert salt(b"seed", "g", 12) == expected
    assert commit(expected, {"card": 3}) == hmac.new(expected, b'{"card":3}', "sha256").hexdigest()
    assert salt(b"seed", "g", 12) != salt(b"seed", "g", 13) != salt(b"seed", "h", 12)


def test_a_running_format_1_game_withholds_its_hashes() -> None:
    """Games begun before format 2 keep hashing secrets whole: while they run their
    records carry no hash at all, and cannot be verified until the end."""
    lines = [json.loads(line) for line in OLD_RECORD.read_text().splitlines()][1:-1]
    stored = [
        (o["n"], bytes.fromhex(o["hash"]), bytes.fromhex(o["prev"]), canonical(o["payload"]))
        for o in lines[:300]
    ]
    reader = Reader("fixture-2026-11-29", 1, complete=False, viewer="p1", seed=SEED)
    redacted = list(event_lines(stored, reader))
    assert not any("hash" in o or "prev" in o or "salt" in o for o in redacted)
    draws = _draws([{}, *redacted])
    assert draws and all(
        (o["payload"]["e"]["card"] == -1) != (o["payload"]["e"]["seat"] == "p1") for o in draws
    )
    complete = list(event_lines(stored, Reader("fixture-2026-11-29", 1, complete=True)))
    assert [o["hash"] for o in complete] == [o["hash"] for o in lines[:300]]
