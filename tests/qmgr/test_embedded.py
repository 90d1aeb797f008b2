"""Embedded-only behaviour the contract does not pin down for every adapter."""

from __future__ import annotations

import sqlite3

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions
from dlqhandler.qmgr.embedded import schema
from dlqhandler.qmgr.embedded.selection import candidate_query

NOW = PutOptions(syncpoint=False)


def put(qm: EmbeddedQueueManager, body: str, priority: int) -> None:
    qm.put1("APP.Q", Message(MQMD(priority=priority), body.encode()), NOW)


def bodies(qm: EmbeddedQueueManager) -> list[str]:
    q = qm.open("APP.Q")
    out = []
    for _ in range(qm.inquire_queue("APP.Q").curdepth):
        out.append(q.get(GetOptions(syncpoint=False)).body.decode())
    return out


def test_msgdlvsq_change_does_not_reorder_messages_already_there(qm: EmbeddedQueueManager) -> None:
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


def test_browse_next_is_an_index_seek_not_a_scan_from_the_cursors_priority(
    qm: EmbeddedQueueManager,
) -> None:
    """Browse-next reads two index ranges (same priority after the cursor, then lower
    priorities), so a pass over a deep queue stays linear; the order is unchanged."""
    db = sqlite3.connect(":memory:")
    db.executescript(schema._SCHEMA)
    q = candidate_query(queue="APP.Q", conn="c", handle=1, after=(4, 10))
    plan = " | ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + q.sql, q.params))
    assert "priority=? AND id>?" in plan, plan
    assert "priority<?" in plan, plan

    qm.admin().define_queue("APP.Q", {})
    for i, priority in enumerate([3, 7, 3, 0, 7, 9, 3, 0]):
        put(qm, f"{priority}-{i}", priority)
    browse = qm.open("APP.Q")
    seen = [browse.get(GetOptions(browse="first")).body.decode()]
    seen += [browse.get(GetOptions(browse="next")).body.decode() for _ in range(7)]
    assert seen == ["9-5", "7-1", "7-4", "3-0", "3-2", "3-6", "0-3", "0-7"]
