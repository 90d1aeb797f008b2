"""snapshot_queue, what ``report -m`` and ``drain -m`` browse: the queue named, else the
queue manager's DEADQ, and a clear refusal when there is neither."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, PutOptions
from dlqhandler.qmgr.attempts import AttemptStore, group_subject, message_subject
from dlqhandler.qmgr.embedded.runmqsc import run_mqsc
from dlqhandler.qmgr.snapshot import snapshot_queue


def test_no_queue_and_no_deadq_is_refused_by_name(qm: EmbeddedQueueManager, tmp_path: Path) -> None:
    """With DEADQ blank and no queue named there is nothing to browse: a queue manager
    has a dead-letter queue only when told ("by using the DEADQ attribute on the ALTER
    QMGR command to specify one later", IBM MQ, Working with dead-letter queues,
    https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.adm.doc/q020730_.html). The snapshot
    says so (no DEADQ, how to name or set one) instead of browsing a queue named ''
    and failing with a bare MQRC_UNKNOWN_OBJECT_NAME; no file is written. With the queue
    named, the same queue manager is browsed."""
    qm.admin().define_queue("MY.DLQ", {}, replace=True)  # type: ignore[attr-defined]
    qm.put1("MY.DLQ", Message(MQMD(format="MQSTR"), b"x"), PutOptions(syncpoint=False))
    out = io.StringIO()
    assert run_mqsc("ALTER QMGR DEADQ(' ')", qm.admin(), out, qmgr_name="QM1").ok
    path = tmp_path / "snap" / "input.dmp"
    with pytest.raises(ConfigError, match=r"queue manager QM1 has no DEADQ; name the queue"):
        snapshot_queue(qm, None, path)
    assert not path.exists()
    assert snapshot_queue(qm, "MY.DLQ", path).messages == 1


def test_snapshot_keeps_the_messages_with_attempts_on_record(
    qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """Asked for a status queue, the snapshot reads its records once and keeps the
    messages they count failed attempts for, each with its count: a message by its
    (MsgId, CorrelId), a group member by its group's record (`drain --apply` decides the
    whole group with that count); messages without a record are not kept. Not asked, or
    with a status queue that does not exist, it keeps none. The counts are what `run`
    goes on from: IBM's "Processing the rules table"
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table): "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table"."""
    for name in ("MY.DLQ", "DLQHANDLER.STATUS"):
        qm.admin().define_queue(name, {}, replace=True)  # type: ignore[attr-defined]
    group = b"\x07" * 24
    plain = MQMD(format="MQSTR", msg_id=b"\x01" * 24)
    member = MQMD(format="MQSTR", msg_id=b"\x02" * 24, group_id=group, msg_flags=0x10)
    fresh = MQMD(format="MQSTR", msg_id=b"\x03" * 24)
    for md in (plain, member, fresh):
        msg = Message.dead_letter(md, b"x", reason=2053, dest_q_name="APP.Q")
        qm.put1("MY.DLQ", msg, PutOptions(syncpoint=False, context="set_all"))
    store = AttemptStore(qm, "DLQHANDLER.STATUS")
    store.new_unit()
    store.record_failure(message_subject(plain.msg_id, plain.correl_id), None, 1.0)
    counted = None
    for n in range(3):
        store.new_unit()
        counted = store.record_failure(group_subject(group), counted, 2.0 + n)
    store.close()
    path = tmp_path / "snap" / "input.dmp"
    snap = snapshot_queue(qm, "MY.DLQ", path, status_queue="DLQHANDLER.STATUS")
    assert snap.messages == 3
    assert [(m.md.msg_id[0], n) for m, n in snap.spent] == [(1, 1), (2, 3)]
    assert snapshot_queue(qm, "MY.DLQ", path).spent == ()
    assert snapshot_queue(qm, "MY.DLQ", path, status_queue="NO.SUCH.Q").spent == ()
