"""Crash safety: `dlqhandler run` and `dlqhandler drain --apply` killed with SIGKILL at
random moments (mid-batch included) and restarted, again and again; at the end every
message is in exactly one place - its target queue, the DLQ, or discarded by a DISCARD
rule - checked by MsgId and payload hash.

Knobs: ``DLQ_REL_MESSAGES`` / ``DLQ_REL_KILLS`` (handler, default 20000 / 50),
``DLQ_REL_DRAIN_MESSAGES`` / ``DLQ_REL_DRAIN_KILLS`` (drain, default 2000 / 5),
``DLQ_REL_SEED``. The fast subset (``make test``) runs 1000 messages and 3 kills.
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
    kill_at_random,
    load_backlog,
    needs_java,
    start_drain,
    stuck_attempts,
)
from tests.worker.helpers import DLQ, STATUS, Ledger, depth, json_events, start_handler


def db_of(home: Path) -> Path:
    return home / "qmgrs" / "QM1" / "qmgr.db"


def crash_handler(
    home: Path,
    qm: EmbeddedQueueManager,
    tmp_path: Path,
    figures: Figures,
    *,
    messages: int,
    kills: int,
    batch: int = 50,
) -> None:
    seed = knob("DLQ_REL_SEED", 9)
    backlog = load_backlog(qm, messages, seed=seed)
    book = Ledger.of(qm)
    rules = tmp_path / "crash.rul"
    rules.write_text(RULES)
    logs: list[Path] = []

    def start(run: int) -> subprocess.Popen[str]:
        logs.append(tmp_path / f"run{run}.log")
        return start_handler(home, rules, "--no-watch", "--batch-size", str(batch), log=logs[-1])

    # Each run removes about half its share, so every kill lands before the end.
    per_run = (messages - backlog.count(DLQ)) // (2 * (kills + 1))
    killed = kill_at_random(
        start,
        qm=qm,
        db=db_of(home),
        queue=DLQ,
        kills=kills,
        per_run=per_run,
        rng=random.Random(seed),
        floor=backlog.count(DLQ),
    )
    final = start(2 * kills)
    out, _ = final.communicate(timeout=900)
    assert final.returncode == 0, out

    placed = check_outcome(book, backlog)
    attempts = stuck_attempts(e for log in logs for e in json_events(log))
    for msg in backlog.stuck:
        numbers = attempts.get(msg.md.msg_id.hex(), [])
        assert len(numbers) == len(set(numbers)), numbers  # no count seen twice
        assert all(1 <= n <= 3 for n in numbers), numbers  # RETRY(3) never exceeded
    assert depth(qm, STATUS) == 0  # every attempt record went with its message
    assert killed.kills == kills, killed
    figures(
        messages=messages,
        batch_size=batch,
        **killed.as_dict(),
        placed=placed,
        stuck_messages=len(backlog.stuck),
    )


def test_handler_survives_kills_fast(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """1000 messages, `dlqhandler run` SIGKILLed 3 times at random moments and
    restarted: every message once at its rule's place (or discarded), none lost,
    none doubled, RETRY(3) counts never exceeded, no attempt record left over."""
    crash_handler(home, qm, tmp_path, figures, messages=1000, kills=3, batch=25)


@pytest.mark.reliability
def test_handler_survives_many_kills(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """The issue's figures (20000 messages, 50 SIGKILLs incl. mid-batch): every message
    once at its rule's place (or discarded), by MsgId and payload hash."""
    crash_handler(
        home,
        qm,
        tmp_path,
        figures,
        messages=knob("DLQ_REL_MESSAGES", 20_000),
        kills=knob("DLQ_REL_KILLS", 50),
    )


@pytest.mark.spark
@pytest.mark.reliability
def test_drain_apply_survives_kills(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """`dlqhandler drain --apply -m QM1` (Spark) SIGKILLed with its JVM and workers at
    random moments while it moves messages, then run again to the end: every message
    once at its rule's place (or discarded), by MsgId and payload hash."""
    needs_java()
    messages, kills = knob("DLQ_REL_DRAIN_MESSAGES", 2000), knob("DLQ_REL_DRAIN_KILLS", 5)
    seed = knob("DLQ_REL_SEED", 9)
    backlog = load_backlog(qm, messages, seed=seed)
    book = Ledger.of(qm)
    rules = tmp_path / "crash.rul"
    rules.write_text(RULES)

    def start(run: int) -> subprocess.Popen[str]:
        return start_drain(home, rules, tmp_path / f"out{run}")

    # A Spark start takes seconds: kills wait for progress (no start-up kills).
    killed = kill_at_random(
        start,
        qm=qm,
        db=db_of(home),
        queue=DLQ,
        kills=kills,
        per_run=messages // (kills + 1) // 2,
        rng=random.Random(seed),
        startup_kills=0.0,
        floor=backlog.count(DLQ),
        timeout=600,
    )
    final = start(2 * kills)
    out, _ = final.communicate(timeout=1200)
    assert final.returncode == 0, out[-3000:]
    placed = check_outcome(book, backlog)
    figures(messages=messages, **killed.as_dict(), placed=placed)
