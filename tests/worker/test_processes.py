"""Handler processes: SIGTERM in the middle of a backlog, two handlers on one DLQ."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

from dlqhandler.formats.backlog import generate_backlog
from tests.worker.helpers import (
    STATUS,
    Ledger,
    dead_letter,
    define,
    depth,
    failures_per_message,
    has_dlh,
    json_events,
    load,
    start_handler,
    terminate,
    until,
)


def test_sigterm_mid_run_stops_cleanly(home: Path, qm, tmp_path: Path) -> None:
    """SIGTERM while a deep backlog is being worked: the unit of work in hand is
    finished, the handler exits 0 with the summary, and every message is on the DLQ or
    at the target exactly once (nothing lost, nothing doubled)."""
    define(qm, "CATCH")
    messages = load(qm, generate_backlog(3000, seed=7))
    book = Ledger.of(qm)
    rules = tmp_path / "all.rul"
    rules.write_text("RETRYINT(60) WAIT(YES)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")
    log = tmp_path / "handler.log"
    child = start_handler(home, rules, "--no-watch", "--batch-size", "20", log=log)
    try:
        until(lambda: depth(qm, "CATCH") >= 200, "the handler did not start working")
    finally:
        out = terminate(child, timeout=30)
    assert child.returncode == 0
    assert "AMQ8709" in out
    assert "Summary for INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)" in out
    placed = book.check(["CATCH"])
    forwarded = len(placed["CATCH"])
    with_dlh = sum(has_dlh(m) for m in messages)
    assert 200 <= forwarded < with_dlh, "SIGTERM arrived after the backlog was done"
    assert re.search(rf"^\s+forwarded\s+{forwarded}$", out, re.MULTILINE), out
    ended = next(e for e in json_events(log) if e["event"] == "handler_ended")
    assert ended["reason"] == "stopped"
    assert ended["forwarded"] == forwarded


TWO = """\
RETRYINT(0) WAIT(NO)
DESTQ(APP.Q) ACTION(RETRY) RETRY(3)
ACTION(FWD) FWDQ(CATCH)
"""


def test_two_handlers_share_a_dlq_without_duplicates(home: Path, qm, tmp_path: Path) -> None:
    """Two `dlqhandler run` processes on one DLQ: every message is handled exactly once
    (browse locks and units of work), and the durable attempt counts bound RETRY(3) to
    three attempts per message in total, not three per handler."""
    define(qm, "CATCH")
    define(qm, "APP.Q", put="DISABLED")
    stubborn = load(qm, [dead_letter(f"s{i}", destq="APP.Q", reason=2051) for i in range(40)])
    load(qm, [dead_letter(f"m{i}", destq="OTHER.Q", reason=2085) for i in range(800)])
    book = Ledger.of(qm)
    rules = tmp_path / "two.rul"
    rules.write_text(TWO)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    children = [
        start_handler(home, rules, "--no-watch", "--batch-size", "10", log=log) for log in logs
    ]
    outs = []
    try:
        for child in children:
            out, _ = child.communicate(timeout=90)
            outs.append(out)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
    assert [c.returncode for c in children] == [0, 0]
    placed = book.check(["CATCH", "APP.Q"])
    assert len(placed["CATCH"]) == 840
    assert not placed.get("SYSTEM.DEAD.LETTER.QUEUE")
    events = [e for log in logs for e in json_events(log)]
    attempts = failures_per_message(events)
    assert attempts == Counter({m.md.msg_id.hex(): 3 for m in stubborn})
    ended = [e for e in events if e["event"] == "handler_ended"]
    assert sum(e["forwarded"] for e in ended) == 840
    assert depth(qm, STATUS) == 0
    shares = [e["forwarded"] for e in ended]
    print(f"forwarded per handler: {shares}")  # both usually take part; not guaranteed


def test_a_second_handler_started_later_sees_the_counts(home: Path, qm, tmp_path: Path) -> None:
    """Attempts recorded by one process are seen by the next (a restart with the same
    table makes no new attempt once RETRY is spent)."""
    define(qm, "APP.Q", put="DISABLED")
    load(qm, [dead_letter("s", destq="APP.Q", reason=2051)])
    rules = tmp_path / "one.rul"
    rules.write_text("RETRYINT(0) WAIT(NO)\nDESTQ(APP.Q) ACTION(RETRY) RETRY(2)\n")
    logs = [tmp_path / "1.log", tmp_path / "2.log"]
    for log in logs:
        child = start_handler(home, rules, "--no-watch", log=log)
        child.communicate(timeout=60)
        # The first run's attempts failed (PARTIAL); the second makes none (RETRY spent).
        assert child.returncode == (6 if log is logs[0] else 0)
        time.sleep(0.1)
    per_run = [sum(failures_per_message(json_events(log)).values()) for log in logs]
    assert per_run == [2, 0]
