"""MQPUT's SQL: the row a message is stored as, and its insertion with MAXDEPTH and
triggering checked in the same transaction.

A put on a queue not armed for triggering (TRIGGER, TRIGTYPE not NONE) is one
``INSERT ... SELECT ... WHERE`` that checks MAXDEPTH and the trigger attributes
in the statement itself. A put on an armed queue (or one armed just now) takes a
write transaction in which the trigger conditions are evaluated before the row
is inserted (:mod:`dlqhandler.qmgr.embedded.trigger`).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from dlqhandler.mq.constants import MQRC_Q_FULL, mqi_error
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.qmgr.embedded.objects import QueueView, queue_view
from dlqhandler.qmgr.embedded.putting import effective_priority
from dlqhandler.qmgr.embedded.store import AVAILABLE, INSERT_MESSAGE_PROPS, PUT_PENDING, Store
from dlqhandler.qmgr.embedded.trigger import Triggers, Written

__all__ = ["MessageRow", "insert_triggered", "insert_unarmed"]

_VALUES = " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
# Inserts only while the queue is below MAXDEPTH and not armed for triggering.
_PUT_UNARMED = INSERT_MESSAGE_PROPS + (  # noqa: S608 - constant fragments, bound values
    " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
    " WHERE (SELECT curdepth < ? AND NOT (coalesce(json_extract(attrs, '$.TRIGGER'),"
    " 'NOTRIGGER') = 'TRIGGER' AND coalesce(json_extract(attrs, '$.TRIGTYPE'), 'FIRST')"
    " != 'NONE') FROM queues WHERE name = ?)"
)


class MessageRow(NamedTuple):
    """The columns of a stored message, in INSERT_MESSAGE_PROPS's order."""

    queue: str
    priority: int  # the order it is got in
    state: int
    owner: str | None
    msg_id: bytes
    correl_id: bytes
    group_id: bytes
    msg_seq_number: int
    offset: int
    msg_flags: int
    persistent: int
    put_clock: float
    expiry: int
    expires_at: float | None
    md: bytes
    body: bytes
    props: bytes | None

    @classmethod
    def of(
        cls,
        queue: QueueView,
        md: MQMD,
        image: bytes,
        data: bytes,
        props: bytes | None,
        *,
        now: float,
        owner: str | None,
    ) -> MessageRow:
        """The row of a message put at ``now``; ``owner``: the unit of work's connection."""
        # A FIFO queue queues everything at DEFPRTY, so arrival decides (as in MQ).
        order = queue.defprty if queue.fifo else effective_priority(md.priority)
        expires_at = now + md.expiry / 10 if md.expiry > 0 else None
        state = AVAILABLE if owner is None else PUT_PENDING
        return cls(
            queue.name,
            order,
            state,
            owner,
            md.msg_id,
            md.correl_id,
            md.group_id,
            md.msg_seq_number,
            md.offset,
            md.msg_flags,
            int(md.persistence == 1),
            now,
            md.expiry,
            expires_at,
            image,
            data,
            props,
        )


def insert_unarmed(
    store: Store, row: MessageRow, maxdepth: int, *, syncpoint: bool, durable: bool
) -> int | None:
    """Insert on a queue below ``maxdepth`` and not armed; the row's id, or None if not."""
    params = (*row, maxdepth, row.queue)
    cursor = (
        store.run(_PUT_UNARMED, params)
        if syncpoint
        else store.execute(_PUT_UNARMED, params, durable=durable)
    )
    return int(cursor.lastrowid or 0) if cursor.rowcount == 1 else None


def insert_triggered(
    store: Store,
    triggers: Triggers,
    row: MessageRow,
    *,
    durable: bool,
    syncpoint: bool,
    missing: int,
) -> tuple[int, Written]:
    """Insert on a triggered queue, trigger evaluation in the same transaction."""
    target = row.queue
    with store.join() if syncpoint else store.write(durable=durable) as db:
        found = db.execute(
            "SELECT attrs, curdepth FROM queues WHERE name = ?", (target,)
        ).fetchone()
        if found is None:
            raise mqi_error(missing, target)
        qv = queue_view(target, found[0])
        if int(found[1]) >= qv.maxdepth:
            raise mqi_error(MQRC_Q_FULL, f"{target} is at MAXDEPTH({qv.maxdepth})")
        written = triggers.message_arrived(
            db, target, json.loads(found[0]), row.priority, syncpoint=syncpoint
        )
        cursor = db.execute(INSERT_MESSAGE_PROPS + _VALUES, row)
    if syncpoint:
        # Trigger evaluation counts committed and uncommitted messages, and a FIRST
        # trigger message outlives a crash: other processes must see this put now.
        store.release(durable=False)
    return int(cursor.lastrowid or 0), written
