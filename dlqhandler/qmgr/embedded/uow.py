"""A connection's unit of work: the rows it owns, and how MQCMIT and MQBACK end it.

The rows are kept by id, so ending the unit of work needs no index on owner.
Both ends run in the connection's held transaction (:mod:`.store`): MQCMIT
deletes the rows got, publishes the rows put and the FIRST/DEPTH trigger
messages, then commits - durably when a persistent message took part. MQBACK
restores the rows got (BackoutCount + 1), deletes the rows put, publishes the
FIRST/DEPTH trigger messages (they survive a backout) and commits.

If SQLite rolled back part of the unit of work (a failed commit of an earlier
hold, disk full), committing the rest could move a message's get without its
put: MQCMIT then backs out what is left and fails with MQRC_BACKED_OUT (2003),
as IBM MQ does when it had to back a unit of work out.

A unit of work holds at most the queue manager's MAXUMSGS messages (IBM's
MaxUncommittedMsgs): gets and puts under syncpoint, and the trigger and COA/COD
report messages they make. A get or put that would go past it fails with
MQRC_SYNCPOINT_LIMIT_REACHED (2024) before it changes anything (:meth:`UnitOfWork.room`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dlqhandler.mq.constants import MQRC_BACKED_OUT, MQRC_SYNCPOINT_LIMIT_REACHED, mqi_error
from dlqhandler.qmgr.embedded.store import PUT_PENDING, TAKEN, TRIGGER_PENDING, Store

__all__ = ["UnitOfWork", "back_out", "commit"]

# The rows of a unit of work: their ids (a JSON array), checked against owner and state.
_DELETE_OWNED = (
    "DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND owner = ? AND state = ?"
)
_PUBLISH_OWNED = (
    "UPDATE messages SET state = 0, owner = NULL"
    " WHERE id IN (SELECT value FROM json_each(?)) AND owner = ? AND state = ?"
)
_RESTORE_OWNED = (
    "UPDATE messages SET state = 0, owner = NULL,"
    " backout_count = backout_count + 1"
    " WHERE id IN (SELECT value FROM json_each(?)) AND owner = ? AND state = ?"
)


@dataclass(slots=True)
class UnitOfWork:
    """The rows this connection's unit of work owns (ids), and the queues it touched."""

    persistent: bool = False
    losses: int = 0  # Store.losses when the unit of work began
    taken: list[int] = field(default_factory=list)
    put: list[int] = field(default_factory=list)
    triggers: list[int] = field(default_factory=list)  # FIRST/DEPTH trigger messages
    put_queues: set[str] = field(default_factory=set)
    got_queues: set[str] = field(default_factory=set)

    @property
    def active(self) -> bool:
        return bool(self.taken or self.put or self.triggers)

    @property
    def uncommitted(self) -> int:
        """IBM's count of uncommitted messages: every row this unit of work got or put,
        trigger and report messages included."""
        return len(self.taken) + len(self.put) + len(self.triggers)

    def room(self, n: int, limit: int) -> None:
        """MQIError 2024 unless ``n`` more messages fit under MAXUMSGS ``limit``."""
        if self.uncommitted + n > limit:
            raise mqi_error(
                MQRC_SYNCPOINT_LIMIT_REACHED,
                f"the unit of work holds {self.uncommitted} uncommitted messages;"
                f" {n} more would pass MAXUMSGS({limit}): commit or back it out first",
            )

    def begin(self, store: Store) -> None:
        """Called before the first row joins."""
        if not self.active:
            self.losses = store.losses

    def joined_put(self, store: Store, row_id: int, *, queue: str, persistent: bool) -> None:
        """A message put under syncpoint joins (published at commit)."""
        self.begin(store)
        self.put.append(row_id)
        self.persistent |= persistent
        self.put_queues.add(queue)

    def joined_get(self, store: Store, row_id: int, *, queue: str, persistent: bool) -> None:
        """A message got under syncpoint joins (deleted at commit, restored at backout)."""
        self.begin(store)
        self.taken.append(row_id)
        self.persistent |= persistent
        self.got_queues.add(queue)

    def joined_triggers(self, store: Store, pending: tuple[int, ...], put: tuple[int, ...]) -> None:
        """Trigger messages a put under syncpoint wrote join: ``pending`` ones are
        published when the unit of work ends, ``put`` ones at commit only."""
        self.begin(store)
        self.triggers.extend(pending)
        self.put.extend(put)


def commit(store: Store, uow: UnitOfWork, conn_id: str) -> None:
    """MQCMIT (MQIError 2003 when part of the unit of work was lost)."""
    if store.losses != uow.losses:
        back_out(store, uow, conn_id)
        raise mqi_error(  # (IBM's MQCMIT answers this one with MQCC_WARNING)
            MQRC_BACKED_OUT,
            "part of the unit of work was lost (disk full?) and the rest was backed out",
            comp=1,
        )
    with store.join() as db:
        db.execute(_DELETE_OWNED, (json.dumps(uow.taken), conn_id, TAKEN))
        db.execute(_PUBLISH_OWNED, (json.dumps(uow.put), conn_id, PUT_PENDING))
        if uow.triggers:
            db.execute(_PUBLISH_OWNED, (json.dumps(uow.triggers), conn_id, TRIGGER_PENDING))
    store.release(durable=uow.persistent)


def back_out(store: Store, uow: UnitOfWork, conn_id: str) -> None:
    """MQBACK."""
    with store.join() as db:
        db.execute(_RESTORE_OWNED, (json.dumps(uow.taken), conn_id, TAKEN))
        db.execute(_DELETE_OWNED, (json.dumps(uow.put), conn_id, PUT_PENDING))
        if uow.triggers:  # FIRST/DEPTH trigger messages survive a backout
            db.execute(_PUBLISH_OWNED, (json.dumps(uow.triggers), conn_id, TRIGGER_PENDING))
    store.release(durable=False)
