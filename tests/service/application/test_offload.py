"""The helper process of costly requests (service/application/offload.py, issue 36 item 1)."""

from __future__ import annotations

import dataclasses
import io
import os

import pytest

from service.application.offload import Offload, Payload, TaskFailed
from service.settings import Settings


@pytest.mark.parametrize("nice", [0, 7])
def test_the_helper_runs_below_the_request_workers(settings: Settings, nice: int) -> None:
    """docs/operations.md, RISK_OFFLOAD_NICE: the helper yields a busy machine's CPU to the
    server process that started it, by the niceness configured."""
    offload = Offload(dataclasses.replace(settings, offload_nice=nice))
    try:
        with pytest.raises(TaskFailed) as refused:  # a task the helper answers at once
            offload.run({"kind": "summary", "game": "no-such-game"})
        assert refused.value.code == "game_not_found"
        helper = offload._held[0].process.pid
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, helper) == min(19, own + nice)
    finally:
        offload.close()


def test_a_payload_read_from_a_file_is_what_the_helper_gets(settings: Settings) -> None:
    """An uploaded record goes to the helper from its spooled file a chunk at a time
    (service.http.bodies): the verdict is the one of the same bytes handed whole."""
    record = b'{"not": "a record"}\n' * 20_000  # 400 KB: several chunks
    offload = Offload(settings)
    try:
        whole = offload.run({"kind": "verify", "expect_head": None}, record)
        chunked = offload.run(
            {"kind": "verify", "expect_head": None}, Payload(io.BytesIO(record), len(record))
        )
    finally:
        offload.close()
    assert chunked == whole and b'"ok": false' in whole.replace(b'":false', b'": false')
