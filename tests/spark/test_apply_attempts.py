"""Apply mode shares the handlers' attempt counts (the status queue): RETRY(n) holds
across ``dlqhandler run`` instances and drains alike. No Spark needed: this is the
per-message function the executors run."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.outcomes import Outcome
from dlqhandler.qmgr.attempts import AttemptStore, message_subject
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager, connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import GetOptions, PutOptions, browse_all
from dlqhandler.rules import Matcher, compile_rules
from dlqhandler.spark.drain.apply import Applied, apply_message

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"
TABLE = (
    "INPUTQ(' ') RETRYINT(1)\n"
    "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"
    "ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"
)


def _setup(tmp_path: Path) -> tuple[EmbeddedQueueManager, Message]:
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    admin = qm.admin()
    admin.define_queue("APP.ORDERS", {"PUT": "DISABLED"})
    admin.define_queue("DLQ.CATCHALL", {})
    admin.define_queue(STATUS, {})
    msg = Message.dead_letter(
        MQMD(format="MQSTR", msg_id=b"\x05" * 24), b"order-1", reason=2053, dest_q_name="APP.ORDERS"
    )
    qm.put1(DLQ, msg, PutOptions(syncpoint=False, context="set_all"))
    return qm, msg


def test_a_drain_continues_the_count_a_handler_left(tmp_path: Path) -> None:
    """Two failed attempts recorded by a handler: the drain makes the third and last
    RETRY, then falls through to the FWD rule; the record goes with the message."""
    qm, msg = _setup(tmp_path)
    subject = message_subject(msg.md.msg_id, msg.md.correl_id)
    handler_store = AttemptStore(qm, STATUS)
    record = handler_store.record_failure(subject, None, 100.0)
    handler_store.record_failure(subject, record, 101.0)
    handler_store.close()

    ruleset = compile_rules(TABLE).ruleset
    assert ruleset is not None
    store = AttemptStore(qm, STATUS)
    q = qm.open(DLQ)
    outcome = apply_message(
        qm,
        q,
        Matcher(ruleset),
        msg.md.msg_id,
        msg.md.correl_id,
        input_queue=DLQ,
        catch_all=None,
        store=store,
        clock=lambda: 200.0,
    )
    assert outcome == Applied(Outcome.OK, 3, "DLQ.CATCHALL", "")
    assert qm.inquire_queue("DLQ.CATCHALL").curdepth == 1
    assert qm.inquire_queue(DLQ).curdepth == 0
    assert qm.inquire_queue(STATUS).curdepth == 0  # removed with the move, one unit of work
    store.close()
    q.close()
    qm.disconnect()


def test_a_drain_records_its_failures_for_the_handlers(tmp_path: Path) -> None:
    """Nothing else to try (no catch-all rule): the message stays, and the count the
    drain reached is on the status queue for the next handler or drain."""
    qm, msg = _setup(tmp_path)
    _retries_spent(qm, msg, 3)
    qm.disconnect()


def _retries_spent(qm: EmbeddedQueueManager, msg: Message, retries: int) -> None:
    """A drain with only ``REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(retries)`` (the target
    put-inhibited, no catch-all): the message stays (outcome failed, as run counts it),
    ``retries`` attempts on record."""
    ruleset = compile_rules(f"REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY({retries})\n").ruleset
    assert ruleset is not None
    store = AttemptStore(qm, STATUS)
    q = qm.open(DLQ)
    outcome = apply_message(
        qm,
        q,
        Matcher(ruleset),
        msg.md.msg_id,
        msg.md.correl_id,
        input_queue=DLQ,
        catch_all=None,
        store=store,
        clock=lambda: 50.0,
    )
    assert outcome.outcome == "failed"  # stays: its action failed, as run counts it
    assert qm.inquire_queue(DLQ).curdepth == 1
    found = store.lookup(message_subject(msg.md.msg_id, msg.md.correl_id))
    assert found is not None
    assert found.attempts == retries
    store.close()
    q.close()


def test_a_drain_counts_a_failure_while_it_still_holds_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the drain's put fails, its attempt is written before the message is given back:
    at that moment another connection cannot see the message. (Given back first, a handler
    could take it, move it and clear the records it read before this count landed, which
    was then left on the status queue: seen in the reliability suite's four handlers and a
    drain.)"""
    qm, msg = _setup(tmp_path)
    other = connect("QM1", home=tmp_path / "home")
    watcher = other.open(DLQ, input=False)
    seen: list[bool] = []
    real = AttemptStore.record_failure

    def watched(self: AttemptStore, *args: object) -> object:
        try:
            watcher.get(GetOptions(browse="first", msg_id=msg.md.msg_id, syncpoint=False))
            seen.append(True)
        except MQIError as exc:
            seen.append(exc.reason != 2033)  # MQRC_NO_MSG_AVAILABLE: held by the drain
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(AttemptStore, "record_failure", watched)
    _retries_spent(qm, msg, 2)
    assert seen == [False, False]  # both attempts counted while the message was held
    watcher.close()
    other.disconnect()
    qm.disconnect()


def test_a_drain_task_refuses_a_forward_to_an_alias_of_the_dlq(tmp_path: Path) -> None:
    """A rule forwarding to a QALIAS whose TARGET is the DLQ would put the message back
    where it came from: the drain's task refuses it as ``run`` does (a forward loop), the
    message stays on the DLQ once (not put back a second time) and nothing lands
    elsewhere. IBM, *Name resolution*
    (https://www.ibm.com/docs/en/ibm-mq/9.4?topic=naming-name-resolution): "If the queue
    name is the name of an alias queue, the queue manager resolves it to the queue named
    in its TARGET attribute"."""
    qm, msg = _setup(tmp_path)
    qm.admin().define_alias("DLQ.ALIAS", {"TARGET": DLQ})
    ruleset = compile_rules("ACTION(FWD) FWDQ(DLQ.ALIAS) HEADER(YES)\n").ruleset
    assert ruleset is not None
    q = qm.open(DLQ)
    outcome = apply_message(
        qm, q, Matcher(ruleset), msg.md.msg_id, msg.md.correl_id, input_queue=DLQ, catch_all=None
    )
    q.close()
    assert outcome.outcome in (Outcome.FAILED, Outcome.REMAINING)
    dlq = qm.open(DLQ, input=False, browse=True)
    assert [m.md.msg_id for m in browse_all(dlq)] == [msg.md.msg_id]
    dlq.close()
    assert qm.inquire_queue("DLQ.CATCHALL").curdepth == 0
    qm.disconnect()
