"""Game records from the store (issue 7): complete and verifiable once a game
ends, redacted for the reader while it runs."""

from __future__ import annotations

import json
import random

import redis as redis_lib

from riskcore.audit.chain import event_hash
from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.protocol.codec import canonical
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.application.games import GameService, SeatPlan
from service.application.records import record_text
from service.store.keys import KeySpace


def play(service: GameService, game: str, until_cards: bool = False) -> None:
    """Play to the end, or (``until_cards``) until some seat holds a card."""
    bot, rng = get_bot("random"), random.Random(5)
    for _ in range(100_000):
        state = service.load(game).state
        if state.phase == FINISHED or (until_cards and any(state.hands.values())):
            return
        seat = acting_seat(state)
        assert seat is not None
        body = bot.choose(SeatView(state, seat), legal_actions(state, seat), rng)
        service.execute(game, seat, body, expected_version=state.version)


def test_a_finished_game_downloads_as_a_record_that_verifies(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    service = GameService(redis, KeySpace(key_prefix))
    seats = [SeatPlan("human", seed="aa" * 8), SeatPlan("human"), SeatPlan("human")]
    game = service.create(seats=seats).info.game_id
    play(service, game)
    text = record_text(service, game, None)
    verdict = verify_text(text)
    assert verdict.ok, verdict.divergence
    assert set(verdict.checks.values()) == {"passed"}
    assert redis.exists(service.keys.record_export(game))
    assert record_text(service, game, "p2") == text  # after the end: the same for everyone


def test_a_running_game_record_is_redacted_for_its_reader(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    """Every hidden field is -1 in the hashed payload; the reader's own cards come
    beside it with their salt, so its chain and its own cards check before the end."""
    service = GameService(redis, KeySpace(key_prefix))
    game = service.create(seats=[SeatPlan("human") for _ in range(3)]).info.game_id
    play(service, game, until_cards=True)
    assert service.load(game).state.phase != FINISHED
    lines = [json.loads(line) for line in record_text(service, game, "p1").splitlines()]
    assert lines[0]["redacted"] is True and lines[0]["complete"] is False
    events = [line["payload"]["e"] for line in lines[1:]]
    shuffles = [e for e in events if e["type"] == "deck_shuffled"]
    assert shuffles and all(set(e["order"]) == {-1} for e in shuffles)
    draws = [line for line in lines[1:] if line["payload"]["e"]["type"] == "card_drawn"]
    assert draws, "the game should have drawn cards by now"
    assert all(line["payload"]["e"]["card"] == -1 for line in draws)
    assert all(("secret" in line) == (line["payload"]["e"]["seat"] == "p1") for line in draws)
    assert all(("salt" in line) == ("secret" in line) for line in lines[1:])
    assert not any("seed" in line for line in lines[1:])
    verdict = verify_text("\n".join(json.dumps(line) for line in lines))
    assert verdict.divergence is None, verdict.divergence
    assert verdict.status == "not_final" and verdict.checks["chain"] == "passed"
    own = sum(1 for line in draws if "secret" in line)
    assert verdict.checks["secrets"].startswith(f"partial: {own} given")
    assert verdict.head == service.load(game).hash.hex()


def test_no_card_of_a_running_game_can_be_found_from_its_record(
    redis: redis_lib.Redis, key_prefix: str
) -> None:
    """Issue 13 item 1: trying every card against the published hash of a hidden draw
    found it (the hash covered the unredacted event); now none matches."""
    service = GameService(redis, KeySpace(key_prefix))
    game = service.create(seats=[SeatPlan("human") for _ in range(3)]).info.game_id
    play(service, game, until_cards=True)
    lines = [json.loads(line) for line in record_text(service, game, None).splitlines()]
    draws = [line for line in lines[1:] if line["payload"]["e"]["type"] == "card_drawn"]
    assert draws
    for line in draws:
        for card in range(44):
            tried = {**line["payload"], "e": {**line["payload"]["e"], "card": card}}
            for payload in (tried, {k: v for k, v in tried.items() if k != "x"}):
                digest = event_hash(bytes.fromhex(line["prev"]), canonical(payload))
                assert digest.hex() != line["hash"]


def test_a_format_1_game_publishes_no_head_until_it_ends() -> None:
    """Its hashes cover the hidden cards: a head shown mid-game could be tested."""
    from pathlib import Path

    from riskcore.audit.gamerecord import parse_record
    from riskcore.audit.record import envelope_from_dict
    from riskcore.engine.evolve import fold
    from service.application.game_types import published_head

    old = Path(__file__).parents[2] / "riskcore" / "data" / "record-v1-classic-3p.jsonl"
    events = [envelope_from_dict(e.payload).event for e in parse_record(old.read_text()).entries]
    assert published_head(b"h" * 32, fold(events[:200])) is None
    assert published_head(b"h" * 32, fold(events)) == b"h" * 32
