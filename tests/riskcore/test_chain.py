"""riskcore.audit.chain: the hash rule an offline auditor recomputes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from riskcore.audit.chain import GENESIS, HASH_SIZE, chain, event_hash, verify_chain

payloads = st.lists(st.binary(min_size=1, max_size=64), min_size=2, max_size=12)


def test_genesis_is_32_zero_bytes() -> None:
    assert GENESIS == b"\0" * 32
    assert HASH_SIZE == 32


def test_known_vectors_match_sha256sum() -> None:
    # (head -c 32 /dev/zero; printf '{}') | sha256sum
    assert event_hash(GENESIS, b"{}").hex() == (
        "fb1634c4e6cd4b1f1afe3ce2d6ef080f7ac5d1f357d723ad4dfca782733b62db"
    )
    assert event_hash(GENESIS, b'{"type":"GameCreated"}').hex() == (
        "cf0b142f317a2193837c161e09f20fcadf82033acf8744bc18ce21b2837ef779"
    )


def test_hash_covers_the_previous_hash() -> None:
    first = event_hash(GENESIS, b"a")
    assert event_hash(first, b"b") != event_hash(GENESIS, b"b")


@pytest.mark.parametrize("prev", [b"", b"\0" * 31, GENESIS.hex().encode()])
def test_prev_must_be_raw_32_bytes(prev: bytes) -> None:
    with pytest.raises(ValueError, match="32 raw bytes"):
        event_hash(prev, b"{}")


@given(payloads)
def test_chain_links_each_hash_to_the_one_before(items: list[bytes]) -> None:
    hashes = chain(GENESIS, items)
    assert hashes[0] == event_hash(GENESIS, items[0])
    for index in range(1, len(items)):
        assert hashes[index] == event_hash(hashes[index - 1], items[index])
    assert verify_chain(GENESIS, zip(items, hashes, strict=True)) is None


@given(payloads, st.data())
def test_an_edited_payload_is_found_where_it_is(items: list[bytes], data: st.DataObject) -> None:
    hashes = chain(GENESIS, items)
    index = data.draw(st.integers(0, len(items) - 1))
    edited = [*items]
    edited[index] = items[index] + b"x"
    assert verify_chain(GENESIS, zip(edited, hashes, strict=True)) == index


@given(payloads, st.data())
def test_a_dropped_event_breaks_the_chain_at_the_gap(
    items: list[bytes], data: st.DataObject
) -> None:
    entries = list(zip(items, chain(GENESIS, items), strict=True))
    index = data.draw(st.integers(0, len(items) - 2))
    del entries[index]
    assert verify_chain(GENESIS, entries) == index


@given(payloads, st.data())
def test_reordered_events_are_found(items: list[bytes], data: st.DataObject) -> None:
    entries = list(zip(items, chain(GENESIS, items), strict=True))
    index = data.draw(st.integers(0, len(items) - 2))
    entries[index], entries[index + 1] = entries[index + 1], entries[index]
    assert verify_chain(GENESIS, entries) == index


def test_a_chain_checked_from_the_wrong_start_fails_at_once() -> None:
    items = [b"a", b"b"]
    hashes = chain(GENESIS, items)
    assert verify_chain(event_hash(GENESIS, b"z"), zip(items, hashes, strict=True)) == 0
    assert verify_chain(hashes[0], [(b"b", hashes[1])]) is None
