"""Game records from the store (issue 7): complete and verifiable once a game
ends, redacted for the reader while it runs."""

from __future__ import annotations

import json
import random

import redis as redis_lib

from riskcore.audit.verify import verify_text
from riskcore.bots import get_bot
from riskcore.engine.legal import legal_actions
from riskcore.model.state import FINISHED
from riskcore.simulate import acting_seat
from riskcore.views.seatview import SeatView
from service.games import GameService, SeatPlan
from service.keys import KeySpace
from service.records import record_text


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
    service = GameService(redis, KeySpace(key_prefix))
    game = service.create(seats=[SeatPlan("human") for _ in range(3)]).info.game_id
    play(service, game, until_cards=True)
    assert service.load(game).state.phase != FINISHED
    lines = [json.loads(line) for line in record_text(service, game, "p1").splitlines()]
    assert lines[0]["redacted"] is True and lines[0]["complete"] is False
    events = [line["payload"]["e"] for line in lines[1:]]
    shuffles = [e for e in events if e["type"] == "deck_shuffled"]
    assert shuffles and all(set(e["order"]) == {-1} for e in shuffles)
    draws = [e for e in events if e["type"] == "card_drawn"]
    assert draws, "the game should have drawn cards by now"
    assert all((e["card"] == -1) == (e["seat"] != "p1") for e in draws)
    assert not any("seed" in line for line in lines[1:])
    verdict = verify_text("\n".join(json.dumps(line) for line in lines))
    assert not verdict.ok and verdict.divergence is not None
    assert "redacted" in verdict.divergence.message
