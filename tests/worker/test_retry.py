"""RETRY: success once the destination recovers, fall-through, durable attempt counts."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.qmgr import GetOptions, connect
from dlqhandler.qmgr.attempts import AttemptRecord, AttemptStore
from tests.worker.helpers import STATUS, RunCli, alter, dead_letter, define, depth, load


class _Helper(threading.Thread):
    """Runs ``action(conn)`` on a connection of its own once an attempt was recorded."""

    def __init__(self, home: Path, action: Callable[..., None]) -> None:
        super().__init__(daemon=True)
        self.home, self.action = home, action
        self.acted = False
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            conn = connect("QM1", home=self.home, user="operator")
            try:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not self.acted:
                    if conn.admin().queues(STATUS, generic=False) and depth(conn, STATUS):
                        self.action(conn)
                        self.acted = True
                    time.sleep(0.05)
            finally:
                conn.disconnect()
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.error = exc

    def finish(self) -> None:
        self.join(timeout=10)
        assert self.error is None, repr(self.error)
        assert self.acted


def test_retry_succeeds_once_the_queue_is_put_enabled_again(
    home, qm, ledger, run_cli: RunCli
) -> None:
    """A RETRY to a PUT(DISABLED) queue fails (quietly: same reason as the MQDLH) and is
    tried again every RETRYINT; re-enabled during the run, the message goes through."""
    define(qm, "APP.Q", put="DISABLED")
    message = dead_letter("inhibited", reason=2051, destq="APP.Q")
    load(qm, [message])
    book = ledger()
    helper = _Helper(home, lambda conn: alter(conn, "APP.Q", put="ENABLED"))

    run = run_cli("RETRYINT(1) WAIT(NO)\nREASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(30)\n")

    helper.finish()
    assert run.rc == 0, run.err
    book.check(["APP.Q"])
    assert book.where(message) == "APP.Q"
    failed = run.events("put_failed")
    assert failed
    assert all(e["reason_code"] == 2051 for e in failed)
    assert all(e["log_level"] == "info" and e["quiet"] for e in failed)  # "nothing new"
    assert len(run.events("message_retried")) == 1
    assert depth(qm, STATUS) == 0


def test_retry_succeeds_once_the_full_queue_is_drained(home, qm, ledger, run_cli: RunCli) -> None:
    """A RETRY to a queue at MAXDEPTH fails with 2053 until a consumer makes room."""
    define(qm, "APP.Q", maxdepth=1)
    load(qm, [dead_letter("blocker", destq="ELSEWHERE")], queue="APP.Q")
    message = dead_letter("full", reason=2053, destq="APP.Q")
    load(qm, [message])
    book = ledger()

    def drain(conn) -> None:
        q = conn.open("APP.Q", input=True, browse=False)
        q.get(GetOptions(syncpoint=False))
        q.close()

    helper = _Helper(home, drain)
    run = run_cli("RETRYINT(1) WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(30)\n")

    helper.finish()
    assert run.rc == 0, run.err
    placed = book.check(["APP.Q"])
    assert [m.md.msg_id for m in placed["APP.Q"]] == [message.md.msg_id]
    assert {e["reason_code"] for e in run.events("put_failed")} == {2053}
    assert run.summary("retried") == 1


FALL_THROUGH = """\
RETRYINT(0) WAIT(NO)
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)
REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(HOLD.Q) RETRY(3)
DESTQ(APP.*) ACTION(FWD) FWDQ(FINAL) HEADER(YES)
"""


def test_spent_retries_fall_through_rule_by_rule(qm, ledger, run_cli: RunCli) -> None:
    """When a rule's RETRY count is spent the next matching rule takes over: 2 attempts
    on line 2, 3 on line 3, then line 4 succeeds (spec §5.5)."""
    define(qm, "APP.Q", "HOLD.Q", put="DISABLED")
    define(qm, "FINAL")
    messages = load(qm, [dead_letter(f"m{i}", reason=2053, destq="APP.Q") for i in range(3)])
    book = ledger()

    run = run_cli(FALL_THROUGH)

    assert run.rc == 0, run.err
    placed = book.check(["APP.Q", "HOLD.Q", "FINAL"])
    assert len(placed["FINAL"]) == 3
    for m in messages:
        lines = Counter(
            e["rule_line"] for e in run.events("put_failed") if e["msgid"] == m.md.msg_id.hex()
        )
        assert lines == {2: 2, 3: 3}
    assert {e["rule_line"] for e in run.events("message_forwarded")} == {4}
    assert "line     2  FAILED             6" in run.out
    assert "line     4  FWD                3" in run.out


def test_attempt_counts_survive_a_restart(qm, ledger, run_cli: RunCli) -> None:
    """Attempt counts live on the status queue: RETRY(3) makes 3 attempts in total over
    several runs (runmqdlq would start again from zero after each restart); a later
    table with more retries continues from the stored count."""
    define(qm, "APP.Q", put="DISABLED")
    define(qm, "CATCH")
    message = dead_letter("stubborn", reason=2053, destq="APP.Q")
    load(qm, [message])
    book = ledger()
    table = "RETRYINT(0) WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"

    first = run_cli(table)
    second = run_cli(table)
    third = run_cli(table.replace("RETRY(3)", "RETRY(5)"))

    assert [len(r.events("put_failed")) for r in (first, second, third)] == [3, 0, 2]
    assert [e["attempts"] for e in third.events("put_failed")] == [4, 5]
    book.check(["APP.Q"])
    assert book.where(message) == "SYSTEM.DEAD.LETTER.QUEUE"
    assert depth(qm, STATUS) == 1

    # The count is per message over the whole walk (§5.5): with RETRY(5) spent, the
    # catch-all is the 6th attempt.
    last = run_cli(table.replace("RETRY(3)", "RETRY(5)") + "ACTION(FWD) FWDQ(CATCH)\n")
    assert not last.events("put_failed")
    book.check(["APP.Q", "CATCH"])
    assert book.where(message) == "CATCH"
    assert depth(qm, STATUS) == 0


def test_retryint_spaces_the_attempts(
    qm, ledger, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attempts are never sooner than RETRYINT apart: with RETRY(3) and RETRYINT(1) each
    failed attempt is counted at least a second (on the handler's clock) after the one
    before; WAIT(NO) waits for the pending retries, so one run makes all three."""
    define(qm, "APP.Q", put="DISABLED")
    load(qm, [dead_letter("slow", reason=2051, destq="APP.Q")])
    book = ledger()
    counted: list[tuple[int, float]] = []  # (attempt, the handler's clock when counted)
    record_failure = AttemptStore.record_failure

    def counting(store: AttemptStore, *args: Any) -> AttemptRecord:
        record = record_failure(store, *args)
        counted.append((record.attempts, record.last_attempt))
        return record

    monkeypatch.setattr(AttemptStore, "record_failure", counting)
    run = run_cli("RETRYINT(1) WAIT(NO)\nACTION(RETRY) RETRY(3)\n")

    assert run.rc == ExitCode.PARTIAL  # every attempt failed: the message is left
    assert len(run.events("put_failed")) == 3
    assert [n for n, _at in counted] == [1, 2, 3]
    gaps = [later - earlier for (_n, earlier), (_m, later) in itertools.pairwise(counted)]
    assert min(gaps) >= 1.0, gaps
    book.check(["APP.Q"])  # still on the DLQ, unchanged
