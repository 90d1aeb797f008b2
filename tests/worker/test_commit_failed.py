"""A commit the queue manager backs out (MQCMIT's MQRC_BACKED_OUT) is never taken as done."""

from __future__ import annotations

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq.constants import MQRC_CALL_INTERRUPTED, MQRC_CONNECTION_BROKEN, mqi_error
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager
from tests.worker.helpers import DLQ, STATUS, RunCli, browse, dead_letter, define, load


def test_a_commit_backed_out_by_the_queue_manager_moves_and_counts_nothing(
    qm, ledger, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every MQCMIT of the handler's units of work is backed out by the queue manager
    (the embedded one's disk-full path: part of the unit was lost, so MQCMIT backs the
    rest out and answers MQRC_BACKED_OUT). The handler takes none of it as done: no
    message is counted retried or logged moved, the target queue gets nothing, every
    dead letter is back on the DLQ once, no attempt record is left, and the run ends
    with the MQ error's exit code naming 2003. IBM's 2003 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040770_.html): "On an MQCMIT
    or MQDISC call, when the commit operation fails and the unit of work is backed out.
    All resources that participated in the unit of work are returned to their state at
    the start of the unit of work"."""
    define(qm, "APP.Q")
    letters = [dead_letter(f"letter {i}", destq="APP.Q", tag=f"C{i}") for i in range(3)]
    load(qm, letters)
    book = ledger()
    real = EmbeddedQueueManager.commit

    def lost(self: EmbeddedQueueManager) -> None:
        if self._uow.active:
            self.store.losses += 1  # (what a failed SQLite commit of the hold records)
        real(self)

    monkeypatch.setattr(EmbeddedQueueManager, "commit", lost)
    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n")
    monkeypatch.undo()

    assert run.rc == ExitCode.MQ_ERROR, run.err
    assert [e["reason"] for e in run.events("handler_mq_error")] == [2003]
    assert run.summary("retried") == 0
    assert run.events("message_retried") == []
    placed = book.check(["APP.Q"])
    assert placed.get("APP.Q", []) == []
    assert sorted(m.md.msg_id for m in placed[DLQ]) == sorted(m.md.msg_id for m in letters)
    assert browse(qm, STATUS) == []


@pytest.mark.parametrize(
    ("reason", "committed"),
    [(MQRC_CONNECTION_BROKEN, True), (MQRC_CALL_INTERRUPTED, False)],
    ids=["2009-after-commit", "2549-before-commit"],
)
def test_a_commit_of_unknown_outcome_is_named_and_counted_neither_moved_nor_failed(
    qm, ledger, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, reason: int, committed: bool
) -> None:
    """The handler's MQCMIT of a unit of three retries fails with MQRC_CONNECTION_BROKEN
    (2009) after the queue manager committed it, or with MQRC_CALL_INTERRUPTED (2549)
    before it did: the handler cannot know which. Either way it says so plainly: one
    ``commit_outcome_unknown`` event and the summary's ``outcome unknown`` name the three
    MsgIds, the summary counts none of them retried nor failed, stderr says to look for
    them, and the run ends non-zero. Where the commit went through the three are on
    their target, else back on the DLQ: once each, either way. IBM's 2549 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q045480_.html): "If MQCMIT was
    interrupted the transaction might or might not have been committed"; its 2009 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040830_.html): "it is possible
    that the call did complete successfully, even though this reason code is returned"."""
    define(qm, "APP.Q")
    letters = [dead_letter(f"letter {i}", destq="APP.Q", tag=f"U{i}") for i in range(3)]
    load(qm, letters)
    book = ledger()
    real = EmbeddedQueueManager.commit

    def broken(self: EmbeddedQueueManager) -> None:
        if self._uow.active and self._uow.put:
            if committed:
                real(self)
            raise mqi_error(reason, "connection broken during MQCMIT")
        real(self)

    monkeypatch.setattr(EmbeddedQueueManager, "commit", broken)
    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n")
    monkeypatch.undo()

    assert run.rc != 0, run.err
    names = sorted(m.md.msg_id.hex() for m in letters)
    [event] = run.events("commit_outcome_unknown")
    assert (event["reason"], event["messages"], sorted(event["msgids"])) == (reason, 3, names)
    assert run.summary("retried") == 0
    assert run.summary("failed, left") == 0
    assert run.summary("outcome unknown") == 3
    assert sorted(line.split()[-1] for line in run.out.splitlines() if "msgid" in line) == names
    assert run.events("message_retried") == []
    assert "3 message(s) may or may not have left" in run.err
    placed = book.check(["APP.Q"])
    where = "APP.Q" if committed else DLQ
    assert sorted(m.md.msg_id for m in placed[where]) == sorted(m.md.msg_id for m in letters)
