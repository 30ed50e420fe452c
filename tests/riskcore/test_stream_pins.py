"""Seeded simulated games per mode produce the very same event streams.

Speed work on the engine (issue 18) must change no behaviour: these pins
hash the canonical bytes of every event and the command bodies of a few
seeded games per mode, with the random and the heuristic bot, so any
change to rules, dice, bots or the codec shows as a changed digest. A
deliberate rule change updates the pins in the same commit, saying why.
"""

from __future__ import annotations

import hashlib

import pytest

from riskcore.bots import get_bot
from riskcore.model.options import RuleSet
from riskcore.protocol.codec import canonical, encode_event
from riskcore.simulate import play_game

PINS = {
    ("classic", "random", b"pin-1"): (
        "b22ab31f2aea19fcaa4e519790e8561ebd31be5b8c22c495b877b4ba28aa17c3"
    ),
    ("classic", "heuristic", b"pin-2"): (
        "94d7c53cfebedc13c844139a09614559d9ca5882f36243e841618925dd72d1e9"
    ),
    ("two_player", "random", b"pin-3"): (
        "9c465c782c41c2adedff01461b03910a79c028356235053415cb30f312dc709d"
    ),
    ("team", "random", b"pin-4"): (
        "45ff018c1f1b4276052238dfaeb0419d3f5e599b3061c57e30f05d4d727e8d8e"
    ),
    ("team", "heuristic", b"pin-5"): (
        "25651c7e558f35115d742856a0117c02d12340a1c5bd9f9dfc05d1e46b5db70c"
    ),
}
PLAYERS = {"classic": 4, "two_player": 2, "team": 4}
RULES = {"two_player": RuleSet(defender_chooses_dice=True)}


def stream_digest(mode: str, bot: str, seed: bytes) -> str:
    bots = [get_bot(bot), get_bot("random")] * (PLAYERS[mode] // 2)
    result = play_game(bots, seed=seed, game_id="pin", mode=mode, rules=RULES.get(mode))
    digest = hashlib.sha256()
    for event in result.events:
        digest.update(encode_event(event) + b"\n")
    for seat, body, caused in result.batches:
        digest.update(seat.encode() + canonical(body) + b"%d\n" % caused)
    return digest.hexdigest()


@pytest.mark.parametrize(("mode", "bot", "seed"), list(PINS))
def test_a_seeded_game_records_the_pinned_event_stream(mode: str, bot: str, seed: bytes) -> None:
    assert stream_digest(mode, bot, seed) == PINS[mode, bot, seed]
