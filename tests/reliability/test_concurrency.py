"""Concurrency: four `dlqhandler run` processes on one DLQ, and a `dlqhandler drain
--apply` at the same time: zero duplicates, zero losses, every message at its rule's
place, and RETRY(3) counts shared by the handlers (never more than three attempts
logged per message, never the same count twice).

Knobs: ``DLQ_REL_CONC_MESSAGES`` (default 5000), ``DLQ_REL_HANDLERS`` (default 4).
The fast subset runs four handlers on 1000 messages, without the drain.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from dlqhandler.qmgr import EmbeddedQueueManager
from tests.reliability.knobs import Figures, knob
from tests.reliability.scenario import (
    RULES,
    check_outcome,
    load_backlog,
    needs_java,
    start_drain,
    stuck_attempts,
)
from tests.worker.helpers import DLQ, STATUS, Ledger, depth, json_events, start_handler, until

# Handlers stop after 5 idle seconds, so none ends while another still holds work.
CONCURRENT = RULES.replace("WAIT(NO)", "WAIT(5)")


def run_together(
    home: Path,
    qm: EmbeddedQueueManager,
    tmp_path: Path,
    figures: Figures,
    *,
    messages: int,
    handlers: int,
    drain: bool,
) -> None:
    backlog = load_backlog(qm, messages, seed=knob("DLQ_REL_SEED", 9))
    book = Ledger.of(qm)
    rules = tmp_path / "together.rul"
    rules.write_text(CONCURRENT)
    logs = [tmp_path / f"h{i}.log" for i in range(handlers)]
    order = list(range(handlers))
    random.Random(messages).shuffle(order)
    children: dict[str, subprocess.Popen[str]] = {}
    try:
        if drain:
            # Spark takes seconds to start: the handlers join once it is moving messages.
            children["drain"] = start_drain(home, rules, tmp_path / "drain-out")
            before = depth(qm, DLQ)
            until(
                lambda: depth(qm, DLQ) < before or children["drain"].poll() is not None,
                "the drain did not start moving messages",
                timeout=600,
            )
        for who in order:
            children[f"h{who}"] = start_handler(
                home, rules, "--no-watch", "--batch-size", str(10 + 20 * who), log=logs[who]
            )
        outputs = {name: child.communicate(timeout=1200)[0] for name, child in children.items()}
    finally:
        for child in children.values():
            if child.poll() is None:
                child.kill()
                child.wait(timeout=30)
    codes = {name: child.returncode for name, child in children.items()}
    assert set(codes.values()) == {0}, (codes, outputs.get("drain", "")[-2000:])

    placed = check_outcome(book, backlog)
    events = [e for log in logs for e in json_events(log)]
    for msg in backlog.stuck:
        numbers = stuck_attempts(events).get(msg.md.msg_id.hex(), [])
        assert len(numbers) == len(set(numbers)), numbers
        assert all(1 <= n <= 3 for n in numbers), numbers
    ended = [e for e in events if e.get("event") == "handler_ended"]
    assert len(ended) == handlers
    per_handler = [e["retried"] + e["forwarded"] + e["discarded"] for e in ended]
    # The drain shares the handlers' attempt records (it reads and updates them on the
    # status queue, and removes one in the unit of work that moves its message): every
    # STUCK message fell through to the catch-all, so no record is left.
    assert depth(qm, STATUS) == 0
    figures(
        messages=messages,
        handlers=handlers,
        drain=drain,
        placed=placed,
        moved_per_handler=per_handler,
        moved_by_drain=messages - backlog.count(DLQ) - sum(per_handler),
        status_records_left=depth(qm, STATUS),
    )


def test_four_handlers_share_a_dlq(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """Four handler processes on one DLQ of 1000 messages: each message handled once,
    at its rule's place; RETRY(3) counts shared, never exceeded."""
    run_together(home, qm, tmp_path, figures, messages=1000, handlers=4, drain=False)


@pytest.mark.spark
@pytest.mark.reliability
def test_handlers_and_a_drain_share_a_dlq(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """DLQ_REL_HANDLERS (4) handlers and a `drain --apply` (Spark) on one DLQ of
    DLQ_REL_CONC_MESSAGES (5000) messages at the same time: zero duplicates, zero
    losses, every message at its rule's place."""
    needs_java()
    run_together(
        home,
        qm,
        tmp_path,
        figures,
        messages=knob("DLQ_REL_CONC_MESSAGES", 5000),
        handlers=knob("DLQ_REL_HANDLERS", 4),
        drain=True,
    )
