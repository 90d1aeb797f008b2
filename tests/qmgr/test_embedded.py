"""Embedded-only behaviour the contract does not pin down for every adapter."""

from __future__ import annotations

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions

NOW = PutOptions(syncpoint=False)


def put(qm: EmbeddedQueueManager, body: str, priority: int) -> None:
    qm.put1("APP.Q", Message(MQMD(priority=priority), body.encode()), NOW)


def bodies(qm: EmbeddedQueueManager) -> list[str]:
    q = qm.open("APP.Q")
    out = []
    for _ in range(qm.inquire_queue("APP.Q").curdepth):
        out.append(q.get(GetOptions(syncpoint=False)).body.decode())
    return out


def test_msgdlvsq_change_does_not_reorder_messages_already_there(
        qm: EmbeddedQueueManager) -> None:
    """As in MQ: a FIFO queue keeps its messages at DEFPRTY, so switching to PRIORITY
    orders only the messages put afterwards by their own priority."""
    qm.admin().define_queue("APP.Q", {"MSGDLVSQ": "FIFO", "DEFPRTY": 5})
    put(qm, "fifo-low", 1)
    put(qm, "fifo-high", 9)
    qm.admin().alter_queue("APP.Q", {"MSGDLVSQ": "PRIORITY"})
    put(qm, "pri-9", 9)
    put(qm, "pri-1", 1)
    assert bodies(qm) == ["pri-9", "fifo-low", "fifo-high", "pri-1"]


def test_priority_above_nine_is_kept_in_the_descriptor(qm: EmbeddedQueueManager) -> None:
    """A Priority above MAXPRTY queues at 9 but the MQMD keeps the value given."""
    qm.admin().define_queue("APP.Q", {})
    put(qm, "p7", 7)
    put(qm, "p12", 12)
    got = qm.open("APP.Q").get(GetOptions(syncpoint=False))
    assert (got.body, got.md.priority) == (b"p12", 12)
